using System.Text.Json.Serialization;

namespace LoadEngine.Runs;

/// <summary>The shape of the load, apart from the strategy that makes each call (NBomber's LoadSimulation, k6's executors).</summary>
[JsonConverter(typeof(JsonStringEnumConverter<LoadKind>))]
public enum LoadKind
{
    /// <summary>One call in flight: each waits for the previous answer.</summary>
    [JsonStringEnumMemberName("sequential")]
    Sequential,

    /// <summary><see cref="RunPlan.Concurrency"/> calls in flight; a new one starts as one ends.</summary>
    [JsonStringEnumMemberName("closed")]
    Closed,

    /// <summary>A constant arrival rate: calls start on a schedule, whether or not earlier ones have answered.</summary>
    [JsonStringEnumMemberName("open")]
    Open,

    /// <summary>An arrival rate that moves linearly through <see cref="RunPlan.Stages"/>.</summary>
    [JsonStringEnumMemberName("ramping")]
    Ramping,
}

/// <summary>
/// What each load is, said once: its wire name, its words (the reports), its label (the page's form), whether it starts
/// calls on a schedule, and the plan settings it reads. The page reads them from GET /api/plan-facts.
/// </summary>
/// <param name="Settings">The plan settings beyond count and duration this load reads, as the API names them.</param>
public sealed record LoadFact([property: JsonIgnore] LoadKind Kind, string Name, string Words, string Label, bool ArrivalRate, IReadOnlyList<string> Settings)
{
    public static IReadOnlyList<LoadFact> All { get; } =
    [
        new(LoadKind.Sequential, "sequential", "sequential: one call in flight", "sequential: one at a time", ArrivalRate: false, []),
        new(LoadKind.Closed, "closed", "closed: a fixed number of calls in flight", "closed: N in flight", ArrivalRate: false, ["concurrency"]),
        new(LoadKind.Open, "open", "open: a constant arrival rate", "open: a rate", ArrivalRate: true, ["rate", "concurrency"]),
        new(LoadKind.Ramping, "ramping", "ramping: an arrival rate through stages", "ramping: rate stages", ArrivalRate: true, ["rate", "stages", "concurrency"]),
    ];

    public static LoadFact Of(LoadKind load) => All.First(fact => fact.Kind == load);
}

public static class LoadKinds
{
    /// <summary>An arrival-rate load: calls start on a schedule, not when an earlier one ends.</summary>
    public static bool IsArrivalRate(this LoadKind load) => LoadFact.Of(load).ArrivalRate;

    /// <summary>Whether a concurrency means something under the load: calls in flight (closed), the most in flight (arrival rates).</summary>
    public static bool UsesConcurrency(this LoadKind load) => LoadFact.Of(load).Settings.Contains("concurrency");

    /// <summary>"sequential: one call in flight".</summary>
    public static string Words(this LoadKind load) => LoadFact.Of(load).Words;
}
