using System.ComponentModel.DataAnnotations;
using System.Globalization;
using System.Text;
using System.Text.Json;
using ApiGateway.Configuration;
using ApiGateway.Errors;
using ApiGateway.OpenApi;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Extensions.Options;
using LoadEngine.Protocols;
using LoadEngine.Thresholds;

namespace ApiGateway.Endpoints;

/// <summary>
/// The body of POST /api/runs, for the OpenAPI document: the typed plan as NSwag describes it, and the agents to share it
/// among (the reader accepts numbers as JSON numbers or strings, and enums by their wire names in any case).
/// </summary>
public sealed record RunRequestBody(int? Agents) : RunPlanInput((string?)null, null);

/// <summary>
/// The body of POST /api/suites: a run's plan for every strategy, or for those listed. Documented with only the fields a
/// suite takes (<see cref="RequestShapeSchema"/>): a suite refuses a strategy and a workload's fields.
/// </summary>
public sealed record SuiteRequestBody([property: MaxLength(InputBounds.MaxNames)] IReadOnlyList<string>? Strategies) : RunPlanInput((string?)null, null);

/// <summary>
/// The body of POST /api/comparisons: a workload, the contenders to run it (default: every one that can), how many
/// repetitions, the load, and the settings the workload takes; documented, like a suite's, with only the fields it takes.
/// </summary>
public sealed record ComparisonRequestBody(
    [property: MaxLength(InputBounds.MaxNames)] IReadOnlyList<string>? Contenders, int? Repetitions) : RunPlanInput((string?)null, null);

/// <summary>What one kind of body may hold, and the list of names it takes (a suite's strategies, a comparison's contenders).</summary>
public sealed record RequestShape(string What, IReadOnlyList<string> Fields, string? NamesField, string NamesOf, string NamesExample);

/// <summary>
/// Reads a run plan from a JSON body: its fields checked against the shape and bounded, then bound by System.Text.Json to
/// a typed <see cref="RunPlanInput"/> by <see cref="RunPlanText"/>, the same way a query string or the command line is bound.
/// </summary>
public static class RunRequestReader
{
    // A run (not a suite) may be shared among load agents.
    public static RequestShape Run { get; } = new("run", [.. RunPlanText.Fields, "agents"], null, "", "");

    // A suite runs strategies; workloads are compared by POST /api/comparisons.
    public static RequestShape Suite { get; } = new(
        "run", [.. RunPlanText.Fields.Except(WorkloadRules.Fields).Where(name => name != "strategy"), "strategies"], "strategies", "strategy", "[\"client-wrapper\", \"streaming-call\"]");

    // A comparison names its workload and contenders; each contender's four fields come from its name.
    public static RequestShape Comparison { get; } = new(
        "comparison",
        ["workload", "contenders", "repetitions", "count", "duration", "load", "concurrency", "rate", "warmup", .. WorkloadParameters.All.Select(parameter => parameter.Name)],
        "contenders", "contender", "[\"grpc-h2-cleartext\", \"rest-stj-h1-cleartext\"]");

    /// <summary>The plan; <see cref="Names"/> the suite's strategies or the comparison's contenders; <see cref="Repetitions"/> a comparison's.</summary>
    public sealed record RunRequest(RunPlanInput Input, IReadOnlyList<string>? Names, string? Repetitions, string? Agents = null)
    {
        /// <summary>A lesson experiment's bidirectional method for the streaming lesson, when the body names one.</summary>
        public string? StreamCall { get; init; }
    }

    public static async Task<(RunRequest? Request, string Error)> ReadAsync(HttpRequest http, RequestShape shape)
    {
        JsonDocument document;
        try
        {
            document = await JsonDocument.ParseAsync(http.Body, default, http.HttpContext.RequestAborted);
        }
        catch (JsonException invalid)
        {
            return (null, $"The body must be a JSON object such as {{\"strategy\": \"client-wrapper\", \"count\": 1000}}; it could not be read: {invalid.Message}");
        }
        // Kestrel reports some malformed framing (a chunk size that overflows) as a plain IOException while the client is still
        // there; its own BadHttpRequestExceptions (413, 408, a bad chunk) have their own answers.
        catch (IOException unreadable) when (unreadable is not Microsoft.AspNetCore.Http.BadHttpRequestException && !http.HttpContext.RequestAborted.IsCancellationRequested)
        {
            return (null, $"The body could not be read as HTTP/1.1 framed it ({unreadable.Message.TrimEnd('.')}): send it with a Content-Length, or in chunks whose size line is a hexadecimal number that fits in 31 bits.");
        }

        using (document)
        {
            try
            {
                // The limits name the range in a sentence on a number that does not read; a bare request (a unit test's) has the defaults.
                var limits = http.HttpContext.RequestServices?.GetService<IOptions<RunLimitsOptions>>()?.Value.PlanLimits() ?? PlanLimits.Defaults;
                return Read(document, shape, limits);
            }
            catch (InvalidOperationException notUnicode) when (notUnicode.InnerException is null or DecoderFallbackException)
            {
                // The parser leaves strings as they came; reading one that is not valid UTF-8, or holds half a surrogate pair, throws.
                return (null, $"The body must be UTF-8 JSON whose strings are valid Unicode; it could not be read: {notUnicode.Message}");
            }
        }
    }

    private static (RunRequest? Request, string Error) Read(JsonDocument document, RequestShape shape, PlanLimits limits)
    {
        if (document.RootElement.ValueKind != JsonValueKind.Object)
        {
            return (null, $"The body must be a JSON object, not {document.RootElement.ValueKind}.");
        }

        IReadOnlyList<string>? names = null;
        foreach (var property in document.RootElement.EnumerateObject())
        {
            var problem = !shape.Fields.Contains(property.Name, StringComparer.Ordinal) ? NotASetting(shape, property.Name)
                : property.Name == shape.NamesField ? ReadNames(shape, property.Value, out names)
                : property.Name is "stages" or "percentiles" or "thresholds" && property.Value.ValueKind == JsonValueKind.Array ? CheckList(property.Name, property.Value)
                : InputBounds.TooLong(property.Name, property.Value.ValueKind == JsonValueKind.String ? property.Value.GetString() : property.Value.GetRawText(), MaxLength(property.Name));
            if (problem is not null)
            {
                return (null, problem);
            }
        }

        using var plan = DataAsText(document);
        return RunPlanText.TryBind(plan.RootElement, limits, out var input, out var error)
            ? (new RunRequest(input, names, RunPlanText.Text(document.RootElement, "repetitions"), RunPlanText.Text(document.RootElement, "agents"))
            {
                StreamCall = RunPlanText.Text(document.RootElement, "streamCall"),
            }, string.Empty)
            : (null, error);
    }

    /// <summary>A call's data and name may be longer than a setting's value: the request's JSON, the method's full name.</summary>
    private static int MaxLength(string field) => field switch
    {
        "data" => InputBounds.MaxDataLength,
        "call" or "streamCall" => InputBounds.MaxCallLength,
        _ => InputBounds.MaxValueLength,
    };

    /// <summary>
    /// data may be sent as the request itself (a JSON object, or an array of them) or as a string holding it; the plan keeps
    /// it as text either way.
    /// </summary>
    private static JsonDocument DataAsText(JsonDocument document)
    {
        if (!document.RootElement.TryGetProperty("data", out var data) || data.ValueKind is not (JsonValueKind.Object or JsonValueKind.Array))
        {
            return JsonDocument.Parse(document.RootElement.GetRawText());
        }

        var plan = System.Text.Json.Nodes.JsonNode.Parse(document.RootElement.GetRawText())!.AsObject();
        plan["data"] = data.GetRawText();
        return JsonSerializer.SerializeToDocument(plan);
    }

    private static string? ReadNames(RequestShape shape, JsonElement value, out IReadOnlyList<string>? names)
    {
        names = null;
        if (value.ValueKind != JsonValueKind.Array || value.EnumerateArray().Any(item => item.ValueKind != JsonValueKind.String))
        {
            return $"{shape.NamesField} must be an array of {shape.NamesOf} names, e.g. {shape.NamesExample}.";
        }

        names = [.. value.EnumerateArray().Select(item => item.GetString()!)];
        return InputBounds.Names(shape.NamesField!, names);
    }

    public static string NotASetting(RequestShape shape, string name) => $"'{Excerpt.Of(name)}' is not a {shape.What} setting; the body may hold: {string.Join(", ", shape.Fields)}.";

    /// <summary>
    /// Documents a route that reads <paramref name="shape"/> from its JSON body: no query parameters, a 400 for a field it
    /// does not hold, a 413 for a body over Kestrel's limit (the exception handler's answer) and a 415 for a body that is
    /// not sent as JSON (routing refuses it by the route's Accepts).
    /// </summary>
    public static RouteHandlerBuilder WithBody(this RouteHandlerBuilder route, RequestShape shape, string path, IEndpointRouteBuilder app, params RouteParameter[] inPath)
    {
        var limit = app.ServiceProvider.GetRequiredService<IOptions<KestrelServerOptions>>().Value.Limits.MaxRequestBodySize;
        return route.WithParameters(RouteParameters.Body(shape.What, inPath))
            // Routing's Accepts check lets a body with no Content-Type through; a page on another site can send one without asking.
            .AddEndpointFilter(async (context, next) =>
                context.HttpContext.Features.Get<IHttpRequestBodyDetectionFeature>()?.CanHaveBody is true && !context.HttpContext.Request.HasJsonContentType()
                    ? TypedResults.Problem(
                        statusCode: StatusCodes.Status415UnsupportedMediaType,
                        title: "Unsupported Media Type",
                        detail: ProblemResponses.UnsupportedMediaType(context.HttpContext.Request.ContentType, context.HttpContext.Request.Path))
                    : await next(context))
            .ProducesProblem(ProblemResponses.InvalidParameters(NotASetting(shape, "concurency")))
            .ProducesProblem(new ProblemDetails
            {
                Status = StatusCodes.Status415UnsupportedMediaType, Title = "Unsupported Media Type", Detail = ProblemResponses.UnsupportedMediaType("text/plain", path),
            })
            .ProducesProblem(UnexpectedProblemHandler.BodyTooLarge(
                $"Request body too large. The max request body size is {limit?.ToString(CultureInfo.InvariantCulture) ?? "unlimited"} bytes."));
    }

    /// <summary>
    /// A JSON list bounded before it is bound: stages as [{"duration": 10, "target": 5000}] (or ["10:5000"]), percentiles
    /// [50, 99.9], thresholds a list of strings; null when it is one.
    /// </summary>
    private static string? CheckList(string name, JsonElement array)
    {
        var (most, example) = name switch
        {
            "stages" => (PlanLimits.MaxStages, "[{\"duration\": 10, \"target\": 5000}]"),
            "percentiles" => (PlanLimits.MaxPercentiles, "[50, 90, 99, 99.9]"),
            _ => (InputBounds.MaxThresholds, "[\"p99 < 5ms\", \"errorRate < 1%\"]"),
        };
        if (InputBounds.Items(name, array.GetArrayLength(), most, example) is { } tooMany)
        {
            return tooMany;
        }

        foreach (var (item, index) in array.EnumerateArray().Select((item, index) => (item, index)))
        {
            var fits = (name, item.ValueKind) switch
            {
                ("stages", JsonValueKind.Object) => item.TryGetProperty("duration", out var duration) && item.TryGetProperty("target", out var target)
                    && duration.ValueKind == JsonValueKind.Number && target.ValueKind == JsonValueKind.Number,
                ("percentiles", JsonValueKind.Number) or (_, JsonValueKind.String) => true,
                _ => false,
            };
            if (!fits)
            {
                return name switch
                {
                    "stages" => $"stages must be an array of {{\"duration\": seconds, \"target\": calls per second}}, e.g. {example}; it held {Excerpt.Of(item.GetRawText())}.",
                    "percentiles" => $"percentiles must be an array of numbers, e.g. {example}; it held {Excerpt.Of(item.GetRawText())}.",
                    _ => $"thresholds must be an array of strings; it held {Excerpt.Of(item.GetRawText())}. {Threshold.AcceptedForm}",
                };
            }

            if (name == "percentiles" && InputBounds.TooLong($"percentiles[{index}]", item.ValueKind == JsonValueKind.String ? item.GetString() : item.GetRawText(), InputBounds.MaxValueLength) is { } tooLong)
            {
                return tooLong;
            }
        }

        return null;
    }
}
