using System.Globalization;
using ApiGateway.Endpoints;
using ApiGateway.Errors;
using NJsonSchema;
using NSwag;
using NSwag.Generation.AspNetCore;
using NSwag.Generation.Processors;
using NSwag.Generation.Processors.Contexts;

namespace ApiGateway.OpenApi;

/// <summary>
/// Writes each route's parameters as its <see cref="RouteParameters"/> declare them — the handlers read text, so bad
/// input gets a sentence, but the document gives the real type, limits, default and meaning — and gives every problem
/// response an example: the endpoint's own (<see cref="ProblemExample"/>), or for 400 an unknown query parameter or an
/// out-of-range number and for 405 another method at the path, each made by the code that makes it at run time.
/// </summary>
public sealed class RouteParametersProcessor : IOperationProcessor
{
    private const string ProblemJson = "application/problem+json";

    private static readonly string[] Methods = ["GET", "POST", "PUT", "DELETE", "PATCH"];

    // Each value type as NSwag types it in a body.
    private static readonly Dictionary<Type, (JsonObjectType Type, string? Format)> Types = new()
    {
        [typeof(int)] = (JsonObjectType.Integer, JsonFormatStrings.Integer), [typeof(double)] = (JsonObjectType.Number, JsonFormatStrings.Double),
        [typeof(bool)] = (JsonObjectType.Boolean, null), [typeof(string)] = (JsonObjectType.String, null), [typeof(Guid)] = (JsonObjectType.String, JsonFormatStrings.Guid),
    };

    public bool Process(OperationProcessorContext context)
    {
        if (context is not AspNetCoreOperationProcessorContext { ApiDescription: { } api })
        {
            return true;
        }

        var operation = context.OperationDescription.Operation;
        var metadata = api.ActionDescriptor.EndpointMetadata;
        var parameters = metadata.OfType<RouteParameters>().LastOrDefault();
        if (parameters is not null)
        {
            Describe(operation, parameters);
        }

        var examples = metadata.OfType<ProblemExample>().Select(example => example.Problem).ToList();
        if (parameters is not null)
        {
            examples.Add(BadParameter(parameters));
        }

        examples.Add(OtherMethod(context));
        foreach (var (status, response) in operation.Responses)
        {
            if (!response.Content.TryGetValue(ProblemJson, out var body))
            {
                continue;
            }

            var own = examples.Where(problem => problem.Status?.ToString(CultureInfo.InvariantCulture) == status).ToList();
            if (own.Count == 1)
            {
                body.Example = Body(own[0]);
            }
            else if (own.Count > 1)
            {
                foreach (var problem in own)
                {
                    body.Examples[problem.Title!] = new OpenApiExample { Summary = problem.Title, Value = Body(problem) };
                }
            }
        }

        return true;
    }

    private static void Describe(OpenApiOperation operation, RouteParameters parameters)
    {
        // Parameters that are neither in the path nor in the query (none today) stay as NSwag made them.
        var others = operation.Parameters.Where(parameter => parameter.Kind is not (OpenApiParameterKind.Path or OpenApiParameterKind.Query)).ToList();
        operation.Parameters.Clear();
        var position = 1;
        foreach (var declared in parameters.All)
        {
            operation.Parameters.Add(new OpenApiParameter
            {
                Name = declared.Name,
                Kind = declared.InPath ? OpenApiParameterKind.Path : OpenApiParameterKind.Query,
                IsRequired = declared.Required,
                Description = declared.Description,
                Schema = Schema(declared),
                Example = declared.Example,
                Explode = declared.Repeatable,
                Position = position++,
            });
        }

        foreach (var other in others)
        {
            operation.Parameters.Add(other);
        }
    }

    private static JsonSchema Schema(RouteParameter parameter)
    {
        var schema = new JsonSchema
        {
            Type = Types[parameter.Type].Type,
            Format = Types[parameter.Type].Format,
            Minimum = (decimal?)parameter.Minimum,
            Maximum = (decimal?)parameter.Maximum,
            Default = parameter.Default,
            Pattern = parameter.Pattern,
            MaxLength = parameter.MaxLength,
        };
        foreach (var allowed in parameter.Allowed ?? [])
        {
            schema.Enumeration.Add(allowed);
        }

        return parameter.Repeatable ? new JsonSchema { Type = JsonObjectType.Array, Item = schema, MaxItems = parameter.MaxItems ?? 0 } : schema;
    }

    /// <summary>The first bounded whole number one past its maximum, as the validation words it; else an unknown parameter.</summary>
    private static Microsoft.AspNetCore.Mvc.ProblemDetails BadParameter(RouteParameters parameters)
    {
        var bounded = parameters.All.FirstOrDefault(parameter => parameter.Type == typeof(int) && parameter.Maximum < int.MaxValue);
        if (bounded is not null && !bounded.TryWhole(((int)bounded.Maximum!.Value + 1).ToString(CultureInfo.InvariantCulture), out _, out var error))
        {
            return ProblemResponses.InvalidParameters(error).ProblemDetails;
        }

        var typo = parameters.QueryNames.Count > 0 ? parameters.QueryNames[0][..^1] : "count";
        return ProblemResponses.UnknownParameter(parameters.UnknownSentence(typo)).ProblemDetails;
    }

    /// <summary>405 for a method the path does not answer, naming those it does, as <see cref="ProblemResponses.MethodNotAllowed"/> says it.</summary>
    private static Microsoft.AspNetCore.Mvc.ProblemDetails OtherMethod(OperationProcessorContext context)
    {
        var path = context.OperationDescription.Path;
        var answered = context.AllOperationDescriptions.Where(operation => operation.Path == path).Select(operation => operation.Method.ToUpperInvariant()).Distinct().ToList();
        var refused = Methods.First(method => !answered.Contains(method));
        var example = path.Replace("{count}", "1000", StringComparison.Ordinal).Replace("{id}", ProblemResponses.ExampleId.ToString(), StringComparison.Ordinal);
        return new Microsoft.AspNetCore.Mvc.ProblemDetails
        {
            Status = StatusCodes.Status405MethodNotAllowed,
            Title = "Method Not Allowed",
            Detail = ProblemResponses.MethodNotAllowed(refused, example, string.Join(", ", Methods.Where(answered.Contains))),
        };
    }

    private static Dictionary<string, object?> Body(Microsoft.AspNetCore.Mvc.ProblemDetails problem)
    {
        var body = new Dictionary<string, object?> { ["title"] = problem.Title, ["status"] = problem.Status, ["detail"] = problem.Detail };
        foreach (var (name, value) in problem.Extensions.Where(extension => extension.Value is not null))
        {
            body[name] = value is Guid or Enum ? value.ToString() : value;
        }

        return body;
    }
}
