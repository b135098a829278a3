using System.Text.Json;
using System.Text.Json.Nodes;
using LoadEngine.Protocols;

namespace GrpcBestPractices.Tests;

/// <summary>
/// A plan as a query string or the command line writes it. The rules' tests state plans so, and read them as the gateway
/// and the CLI do: <see cref="RunPlanText"/> into a typed <see cref="RunPlanInput"/>, then <see cref="RunPlanRules"/>.
/// </summary>
public sealed record PlanText(
    string? Strategy, string? Count, string? Concurrency = null, string? Warmup = null, string? DelayMs = null, string? PayloadBytes = null, string? IncludeStatuses = null)
{
    public string? Load { get; init; }
    public string? Rate { get; init; }
    public string? Duration { get; init; }
    public string? Stages { get; init; }
    public string? Percentiles { get; init; }
    public IReadOnlyList<string>? Thresholds { get; init; }
    public string? Workload { get; init; }
    public string? Protocol { get; init; }
    public string? Serializer { get; init; }
    public string? HttpVersion { get; init; }
    public string? Security { get; init; }
    public string? FileBytes { get; init; }
    public string? Connection { get; init; }
    public string? Clients { get; init; }
    public string? Variant { get; init; }
    public string? Users { get; init; }
    public IReadOnlyList<string> SharedBy { get; init; } = [];

    public static bool TryCreate(PlanText text, PlanLimits limits, IReadOnlyCollection<string> strategies, out RunPlan plan, out string error)
    {
        plan = null!;
        return text.TryRead(limits, out var input, out error) && RunPlanRules.TryCreate(input, limits, strategies, out plan, out error);
    }

    public bool TryRead(PlanLimits limits, out RunPlanInput input, out string error)
    {
        var read = TryBind(Values(), Thresholds, limits, out input, out error);
        input = read ? input with { SharedBy = SharedBy } : input;
        return read;
    }

    public RunPlanInput Read(PlanLimits limits) => TryRead(limits, out var input, out var error) ? input : throw new InvalidOperationException(error);

    /// <summary>A contender from its four fields as text, read as a request's are.</summary>
    public static bool TryContender(string? protocol, string? serializer, string? version, string? security, out Contender contender, out string error)
    {
        contender = null!;
        var text = new PlanText(null, null) { Protocol = protocol, Serializer = serializer, HttpVersion = version, Security = security };
        return text.TryRead(PlanLimits.Defaults, out var input, out error)
            && ContenderList.TryCreate(input.Protocol, input.Serializer, input.HttpVersion, input.Security, out contender, out error);
    }

    /// <summary>Values by name (any case), each as a body's string, and the thresholds given, bound by the body's readers.</summary>
    public static bool TryBind(IReadOnlyDictionary<string, string?> values, IReadOnlyList<string>? thresholds, PlanLimits limits, out RunPlanInput input, out string error)
    {
        input = null!;
        var plan = new JsonObject();
        foreach (var field in RunPlanText.Fields.Where(field => field != "thresholds"))
        {
            var text = values.FirstOrDefault(pair => string.Equals(pair.Key, field, StringComparison.OrdinalIgnoreCase)).Value;
            if (!string.IsNullOrEmpty(text) && !(field is "stages" or "percentiles" && string.IsNullOrWhiteSpace(text)))
            {
                plan[field] = text;
            }
        }

        if (thresholds is not null)
        {
            plan["thresholds"] = new JsonArray([.. thresholds.Select(threshold => JsonValue.Create(threshold))]);
        }

        error = string.Empty;
        try
        {
            input = plan.Deserialize<RunPlanInput>(Options)!;
        }
        catch (JsonException unbound)
        {
            error = RunPlanText.Refusal(unbound, limits) ?? unbound.Message;
        }

        return error.Length == 0;
    }

    private static readonly JsonSerializerOptions Options = RunPlanText.Bind(new JsonSerializerOptions(JsonSerializerDefaults.Web), new Dictionary<Type, IReadOnlyList<string>>());

    private Dictionary<string, string?> Values() => new()
    {
        ["strategy"] = Strategy, ["count"] = Count, ["concurrency"] = Concurrency, ["warmup"] = Warmup, ["delayMs"] = DelayMs, ["payloadBytes"] = PayloadBytes,
        ["includeStatuses"] = IncludeStatuses, ["load"] = Load, ["rate"] = Rate, ["duration"] = Duration, ["stages"] = Stages, ["percentiles"] = Percentiles,
        ["workload"] = Workload, ["protocol"] = Protocol, ["serializer"] = Serializer, ["httpVersion"] = HttpVersion, ["security"] = Security,
        ["fileBytes"] = FileBytes, ["connection"] = Connection, ["clients"] = Clients, ["variant"] = Variant, ["users"] = Users,
    };
}
