using ApiGateway.Security;
using Microsoft.AspNetCore.Authorization;
using NSwag;
using NSwag.Generation.AspNetCore;
using NSwag.Generation.Processors;
using NSwag.Generation.Processors.Contexts;
using NSwag.Generation.Processors.Security;

namespace ApiGateway.OpenApi;

/// <summary>
/// The document's two ways to send a key (Swagger UI's Authorize button), required on every operation but those open to
/// anyone (<see cref="WorkAccess"/>: beyond loopback every route needs one): the header X-Api-Key, or a bearer token,
/// which is a key or a JWT.
/// </summary>
public sealed class WorkSecurityProcessor : IOperationProcessor
{
    private const string ApiKey = "ApiKey";
    private const string Bearer = "Bearer";
    private const string OnlyBeyondLoopback = "Needed only when the gateway listens beyond loopback, on every route but /health and /metrics.";

    /// <summary>The schemes, defined once for the document, and this processor that requires them on every operation.</summary>
    public static void AddTo(NSwag.Generation.OpenApiDocumentGeneratorSettings settings)
    {
        settings.DocumentProcessors.Add(new SecurityDefinitionAppender(ApiKey, new OpenApiSecurityScheme
        {
            Type = OpenApiSecuritySchemeType.ApiKey,
            Name = ApiKeyAuthentication.HeaderName,
            In = OpenApiSecurityApiKeyLocation.Header,
            Description = $"One of the gateway's {AuthOptions.Section}:ApiKeys. {OnlyBeyondLoopback}",
        }));
        settings.DocumentProcessors.Add(new SecurityDefinitionAppender(Bearer, new OpenApiSecurityScheme
        {
            Type = OpenApiSecuritySchemeType.Http,
            Scheme = "bearer",
            Description = $"One of the gateway's {AuthOptions.Section}:ApiKeys, or a JWT from {JwtAuthOptions.Section}:Authority. {OnlyBeyondLoopback}",
        }));
        settings.OperationProcessors.Add(new WorkSecurityProcessor());
    }

    public bool Process(OperationProcessorContext context)
    {
        // As the fallback policy has it: a route that says nothing needs the key too.
        if (context is AspNetCoreOperationProcessorContext { ApiDescription: { } api }
            && !api.ActionDescriptor.EndpointMetadata.OfType<IAllowAnonymous>().Any())
        {
            context.OperationDescription.Operation.Security =
            [
                new OpenApiSecurityRequirement { [ApiKey] = [] },
                new OpenApiSecurityRequirement { [Bearer] = [] },
            ];
        }

        return true;
    }
}
