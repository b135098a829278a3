using System.Runtime.CompilerServices;
using System.Text.Json;
using System.Text.Json.Serialization;
using LoadEngine.Protocols;

namespace LoadEngine.Runs;

/// <summary>
/// A plan's JSON as answers, events, exports, agents and stored histories have always had it: flat, the called part's
/// fields among the load settings in the same order. Read back, the fields present tell the part: a workload and its
/// contender, a described call, or else the built-in service's call.
/// </summary>
public sealed class RunPlanJson : JsonConverter<RunPlan>
{
    // Written with the caller's options but for nulls, which only the load's bounds write.
    private static readonly ConditionalWeakTable<JsonSerializerOptions, JsonSerializerOptions> LeavingOutNulls = [];

    public override RunPlan Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options) =>
        JsonSerializer.Deserialize<Flat>(ref reader, options)!.Plan();

    public override void Write(Utf8JsonWriter writer, RunPlan value, JsonSerializerOptions options) =>
        JsonSerializer.Serialize(writer, Flat.Of(value), LeavingOutNulls.GetValue(options, given => new(given) { DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull }));

    /// <summary>The plan's JSON shape as a type, for documents that describe it (the gateway's OpenAPI document).</summary>
    public static Type Shape => typeof(Flat);

    // The fields in the order the JSON has always had them.
    private sealed record Flat(
        string Strategy, LoadKind Load = default, [property: JsonIgnore(Condition = JsonIgnoreCondition.Never)] int? Count = null,
        [property: JsonIgnore(Condition = JsonIgnoreCondition.Never)] double? Duration = null, int Concurrency = 1,
        [property: JsonIgnore(Condition = JsonIgnoreCondition.Never)] double? Rate = null,
        [property: JsonIgnore(Condition = JsonIgnoreCondition.Never)] IReadOnlyList<RampStage>? Stages = null,
        int Warmup = 0, int DelayMs = 0, int PayloadBytes = RunPlanRules.DefaultPayloadBytes, bool IncludeStatuses = false,
        IReadOnlyList<double>? Percentiles = null, IReadOnlyList<string>? Thresholds = null, int? Agents = null, AgentShard? Shard = null,
        string? Workload = null, ApiProtocol? Protocol = null, PayloadSerializer? Serializer = null, WireVersion? HttpVersion = null, WireSecurity? Security = null,
        long? FileBytes = null, ConnectionUse? Connection = null, int? Clients = null, BulkReadVariant? Variant = null, int? Users = null,
        string? Target = null, string? Call = null, string? Data = null, string? DescriptorSet = null)
    {
        public static Flat Of(RunPlan plan)
        {
            var (builtIn, workload, described) = (plan.Called as BuiltInCall ?? new BuiltInCall(), plan.Workload, plan.Described);
            return new Flat(
                plan.Strategy, plan.Load, plan.Count, plan.Duration, plan.Concurrency, plan.Rate, plan.Stages,
                plan.Warmup, builtIn.DelayMs, builtIn.PayloadBytes, plan.IncludeStatuses, plan.Percentiles,
                plan.Thresholds, plan.Agents, plan.Shard,
                workload?.Id, workload?.Contender?.Protocol, workload?.Contender?.Serializer, workload?.Contender?.HttpVersion, workload?.Contender?.Security,
                workload?.FileBytes, workload?.Connection, workload?.Clients, workload?.Variant, workload?.Users,
                described?.Target, described?.Call, described?.Data, described?.DescriptorSet);
        }

        public RunPlan Plan() => new()
        {
            Strategy = Strategy, Load = Load, Count = Count, Duration = Duration, Concurrency = Concurrency, Rate = Rate, Stages = Stages, Warmup = Warmup,
            IncludeStatuses = IncludeStatuses, Percentiles = Percentiles ?? RunPlan.DefaultPercentiles, Thresholds = Thresholds ?? [], Agents = Agents, Shard = Shard,
            Called = Workload is { } id ? new WorkloadContender(id, Contender(), FileBytes, Connection, Clients, Variant, Users)
                : Call is { } call ? new MethodCall { Target = Target, Call = call, Data = Data, DescriptorSet = DescriptorSet }
                : new BuiltInCall(DelayMs, PayloadBytes),
        };

        private Contender? Contender() => (Protocol, Serializer, HttpVersion, Security) is ({ } protocol, { } serializer, { } version, { } security)
            ? new Contender(protocol, serializer, version, security)
            : null;
    }
}
