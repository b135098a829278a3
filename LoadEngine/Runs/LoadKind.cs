using System.Text.Json.Serialization;

namespace LoadEngine.Runs;

/// <summary>The shape of the load, apart from the strategy that makes each call (NBomber's LoadSimulation, k6's executors); <see cref="LoadFact"/> says what each is.</summary>
[JsonConverter(typeof(JsonStringEnumConverter<LoadKind>))]
public enum LoadKind
{
    [JsonStringEnumMemberName("sequential")]
    Sequential,

    [JsonStringEnumMemberName("closed")]
    Closed,

    [JsonStringEnumMemberName("open")]
    Open,

    [JsonStringEnumMemberName("ramping")]
    Ramping,
}

/// <summary>
/// What a load is, said once: its wire name, its words (the reports, the page's form), whether calls start on
/// a schedule (an arrival rate), and the plan settings it reads beyond count and duration. The page reads GET /api/plan-facts.
/// </summary>
public sealed record LoadFact([property: JsonIgnore] LoadKind Kind, string Name, string Words, bool ArrivalRate, IReadOnlyList<string> Settings)
{
    public static IReadOnlyList<LoadFact> All { get; } =
    [
        new(LoadKind.Sequential, "sequential", "sequential: one call in flight", ArrivalRate: false, []),
        new(LoadKind.Closed, "closed", "closed: a fixed number of calls in flight", ArrivalRate: false, ["concurrency"]),
        new(LoadKind.Open, "open", "open: a constant arrival rate", ArrivalRate: true, ["rate", "concurrency"]),
        new(LoadKind.Ramping, "ramping", "ramping: an arrival rate through stages", ArrivalRate: true, ["rate", "stages", "concurrency"]),
    ];

    public static LoadFact Of(LoadKind load) => All.First(fact => fact.Kind == load);

    /// <summary>A concurrency means calls in flight (closed) or the most in flight (arrival rates).</summary>
    [JsonIgnore]
    public bool UsesConcurrency => Settings.Contains("concurrency");
}
