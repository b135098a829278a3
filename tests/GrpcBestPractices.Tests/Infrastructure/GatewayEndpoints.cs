using ApiGateway;
using ApiGateway.Endpoints;
using ApiGateway.History;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Routing;
using Microsoft.AspNetCore.Routing.Patterns;

namespace GrpcBestPractices.Tests.Infrastructure;

/// <summary>
/// The gateway's endpoints as its own code maps them (<see cref="GatewaySetup.MapGatewayEndpoints"/>), on an app that is
/// built with the gateway's settings but never started: no server and no socket, only the routes and their metadata.
/// </summary>
public static class GatewayEndpoints
{
    public static async Task<IReadOnlyList<RouteEndpoint>> MapAsync()
    {
        var builder = WebApplication.CreateBuilder(new WebApplicationOptions { ContentRootPath = Path.Combine(AppProcess.RepositoryRoot, "ApiGateway") });
        // The services the handlers take as parameters; without them ASP.NET Core would read those parameters from the request.
        builder.AddGatewayOptions();
        builder.AddRunHistory();
        builder.Services.AddStrategies();
        await using var app = builder.Build();
        app.MapGatewayEndpoints();
        return ((IEndpointRouteBuilder)app).DataSources.SelectMany(source => source.Endpoints).OfType<RouteEndpoint>().ToList();
    }

    /// <summary>The path as OpenAPI writes it: parameters by name only ({id:guid} is {id}), no trailing slash.</summary>
    public static string OpenApiPath(this RouteEndpoint endpoint) =>
        "/" + string.Join('/', endpoint.RoutePattern.PathSegments.Select(segment => string.Concat(segment.Parts.Select(part => part switch
        {
            RoutePatternLiteralPart literal => literal.Content,
            RoutePatternSeparatorPart separator => separator.Content,
            RoutePatternParameterPart parameter => $"{{{parameter.Name}}}",
            _ => throw new NotSupportedException($"Route part {part.PartKind} in {endpoint.RoutePattern.RawText}"),
        }))));

    /// <summary>The endpoint's HTTP methods; an endpoint that answers any method has none, which no document can list.</summary>
    public static IReadOnlyList<string> HttpMethods(this RouteEndpoint endpoint) =>
        endpoint.Metadata.GetMetadata<IHttpMethodMetadata>()?.HttpMethods ?? ["ANY"];
}
