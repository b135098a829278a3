using System.Text.Json;
using ApiGateway.Runs;

namespace ApiGateway.Endpoints;

/// <summary>The body of POST /api/runs, for the OpenAPI document (the reader accepts numbers as JSON numbers or strings).</summary>
public sealed record RunRequestBody(string Strategy, int Count, int? Concurrency, int? Warmup, int? DelayMs, int? PayloadBytes);

/// <summary>The body of POST /api/suites: a run's plan for every strategy, or for those listed.</summary>
public sealed record SuiteRequestBody(int Count, int? Concurrency, int? Warmup, int? DelayMs, int? PayloadBytes, IReadOnlyList<string>? Strategies);

/// <summary>
/// Reads a run plan from a JSON body into the same text form the query string gives, so both are validated
/// by one set of rules and say the same thing when something is wrong.
/// </summary>
public static class RunRequestReader
{
    private static readonly string[] PlanFields = ["strategy", "count", "concurrency", "warmup", "delayMs", "payloadBytes", "includeStatuses"];

    public sealed record RunRequest(RunPlanInput Input, IReadOnlyList<string>? Strategies);

    public static async Task<(RunRequest? Request, string Error)> ReadAsync(HttpRequest http, bool suite)
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

        using (document)
        {
            if (document.RootElement.ValueKind != JsonValueKind.Object)
            {
                return (null, $"The body must be a JSON object, not {document.RootElement.ValueKind}.");
            }

            var allowed = suite ? PlanFields.Append("strategies").Where(name => name != "strategy").ToArray() : PlanFields;
            var values = new Dictionary<string, string?>(StringComparer.Ordinal);
            IReadOnlyList<string>? strategies = null;
            foreach (var property in document.RootElement.EnumerateObject())
            {
                if (!allowed.Contains(property.Name, StringComparer.Ordinal))
                {
                    return (null, $"'{property.Name}' is not a run setting; the body may hold: {string.Join(", ", allowed)}.");
                }

                if (property.Name == "strategies")
                {
                    if (property.Value.ValueKind != JsonValueKind.Array || property.Value.EnumerateArray().Any(item => item.ValueKind != JsonValueKind.String))
                    {
                        return (null, "strategies must be an array of strategy names, e.g. [\"client-wrapper\", \"streaming-call\"].");
                    }

                    strategies = property.Value.EnumerateArray().Select(item => item.GetString()!).ToList();
                    continue;
                }

                values[property.Name] = property.Value.ValueKind switch
                {
                    JsonValueKind.String => property.Value.GetString(),
                    JsonValueKind.Null => null,
                    JsonValueKind.True => "true",
                    JsonValueKind.False => "false",
                    _ => property.Value.GetRawText(),
                };
            }

            var input = new RunPlanInput(
                values.GetValueOrDefault("strategy"), values.GetValueOrDefault("count"), values.GetValueOrDefault("concurrency"),
                values.GetValueOrDefault("warmup"), values.GetValueOrDefault("delayMs"), values.GetValueOrDefault("payloadBytes"),
                values.GetValueOrDefault("includeStatuses"));
            return (new RunRequest(input, strategies), string.Empty);
        }
    }
}
