using System.Globalization;
using Microsoft.AspNetCore.Http.Metadata;
using Microsoft.AspNetCore.WebUtilities;
using NSwag.Generation.AspNetCore;
using NSwag.Generation.Processors;
using NSwag.Generation.Processors.Contexts;

namespace ApiGateway.OpenApi;

/// <summary>
/// What NSwag 14.8 leaves out of a minimal API's metadata: WithSummary and WithDescription, and the content types of
/// Produces/ProducesProblem (it writes every body as application/json and every response description empty).
/// WithTags, Accepts and the response codes and schemas it reads by itself.
/// </summary>
public sealed class MinimalApiMetadataProcessor : IOperationProcessor
{
    public bool Process(OperationProcessorContext context)
    {
        if (context is not AspNetCoreOperationProcessorContext { ApiDescription: { } api })
        {
            return true;
        }

        var operation = context.OperationDescription.Operation;
        var metadata = api.ActionDescriptor.EndpointMetadata;
        // The endpoint's own call comes after its group's, and the last one wins, as in ASP.NET Core's GetMetadata.
        operation.Summary ??= metadata.OfType<IEndpointSummaryMetadata>().LastOrDefault()?.Summary;
        operation.Description ??= metadata.OfType<IEndpointDescriptionMetadata>().LastOrDefault()?.Description;

        foreach (var declared in api.SupportedResponseTypes)
        {
            var mediaTypes = declared.ApiResponseFormats.Select(format => format.MediaType).Distinct().ToList();
            if (operation.Responses.TryGetValue(declared.StatusCode.ToString(CultureInfo.InvariantCulture), out var response)
                && mediaTypes.Count > 0 && response.Content.Count == 1)
            {
                var body = response.Content.Single().Value;
                response.Content.Clear();
                foreach (var mediaType in mediaTypes)
                {
                    response.Content[mediaType] = body;
                }
            }
        }

        foreach (var (status, response) in operation.Responses)
        {
            if (string.IsNullOrEmpty(response.Description) && int.TryParse(status, CultureInfo.InvariantCulture, out var code))
            {
                response.Description = ReasonPhrases.GetReasonPhrase(code);
            }
        }

        return true;
    }
}
