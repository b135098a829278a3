using System.Text.Json.Serialization;
using System.Text.Json.Serialization.Metadata;
using ApiGateway.Runs;
using LoadEngine.Reports;
using LoadEngine.Thresholds;
using Microsoft.AspNetCore.Http.Json;

namespace ApiGateway.Endpoints;

public static class RunViews
{
    /// <summary>
    /// Every run the gateway answers with (GET, POST, suites, comparisons, events) carries its plan in words as
    /// "planFacts", and its figures the server's words for failed calls as "statusLines": the wording the report and the
    /// CLI use, so the page composes none. The history stores runs without them.
    /// </summary>
    public static IServiceCollection AddRunViews(this IServiceCollection services) =>
        services.Configure<JsonOptions>(options => options.SerializerOptions.TypeInfoResolver =
            (options.SerializerOptions.TypeInfoResolver ?? new DefaultJsonTypeInfoResolver()).WithAddedModifier(info =>
            {
                Add(info, "planFacts", (RunRecord run) => PlanWords.Facts(run.Plan));
                Add(info, "statusLines", (RunStats stats) => StatusDetails.Lines(stats.StatusDetails).ToList());
            }));

    private static void Add<TOwner, TValue>(JsonTypeInfo info, string name, Func<TOwner, TValue> words)
    {
        if (info.Type == typeof(TOwner))
        {
            var property = info.CreateJsonPropertyInfo(typeof(TValue), name);
            property.Get = owner => words((TOwner)owner);
            info.Properties.Add(property);
        }
    }
}

public sealed record RunPage(int Total, int Limit, int Offset, IReadOnlyList<RunRecord> Runs);

/// <summary>One figure of two runs side by side; <see cref="Ratio"/> is candidate ÷ baseline.</summary>
public sealed record MetricComparison(string Metric, string Unit, string Better, double? Baseline, double? Candidate, double? Ratio);

public sealed record RunComparison(RunRecord Baseline, RunRecord Candidate, IReadOnlyList<MetricComparison> Metrics)
{
    public static RunComparison Of(RunRecord baseline, RunRecord candidate)
    {
        var (b, c) = (baseline.Stats!, candidate.Stats!);
        return new RunComparison(baseline, candidate,
        [
            Metric("wallTime", "ms", "lower", b.WallTimeMs, c.WallTimeMs),
            Metric("throughput", "calls/s", "higher", b.ThroughputPerSecond, c.ThroughputPerSecond),
            Metric("firstCall", "ms", "lower", b.FirstCallMs, c.FirstCallMs),
            Metric("p50", "ms", "lower", b.Latency?.P50Ms, c.Latency?.P50Ms),
            Metric("p90", "ms", "lower", b.Latency?.P90Ms, c.Latency?.P90Ms),
            Metric("p99", "ms", "lower", b.Latency?.P99Ms, c.Latency?.P99Ms),
            Metric("p99.9", "ms", "lower", b.Latency?.P999Ms, c.Latency?.P999Ms),
            Metric("mean", "ms", "lower", b.Latency?.MeanMs, c.Latency?.MeanMs),
            Metric("max", "ms", "lower", b.Latency?.MaxMs, c.Latency?.MaxMs),
            Metric("failedCalls", "calls", "lower", b.Failed, c.Failed),
            Metric("connectionsUsed", "connections", "neither", b.ConnectionsUsed, c.ConnectionsUsed),
            Metric("allocatedBytesPerCall", "bytes", "lower", b.AllocatedBytesPerCall, c.AllocatedBytesPerCall),
        ]);
    }

    private static MetricComparison Metric(string name, string unit, string better, double? baseline, double? candidate) =>
        new(name, unit, better, baseline, candidate, baseline is > 0 && candidate is not null ? Math.Round(candidate.Value / baseline.Value, 4) : null);
}

/// <summary>
/// A suite with its runs and the comparison a room reads: each strategy against the fastest. The suite's own fields come
/// first in its JSON, then these (ordered after them).
/// </summary>
public sealed record SuiteView : SuiteRecord
{
    private SuiteView(SuiteRecord suite) : base(suite)
    {
    }

    [JsonPropertyOrder(1)]
    public Guid? CurrentRunId { get; private init; }

    [JsonPropertyOrder(1)]
    public required IReadOnlyList<RunRecord> Runs { get; init; }

    /// <summary>The strategies side by side; a protocol comparison's plan is in its own view (GET /api/comparisons/{id}).</summary>
    [JsonPropertyOrder(1)]
    public new required IReadOnlyList<SuiteRow> Comparison { get; init; }

    /// <summary>With thresholds: whether every run completed and passed its verdict (each run's verdict has the figures). Null without.</summary>
    [JsonPropertyOrder(1)]
    public bool? Passed => ThresholdJudge.SuitePassed(Plan, State, Strategies.Count, Runs);

    /// <summary>The suite's plan in words, as each run carries its own.</summary>
    [JsonPropertyOrder(1)]
    public IReadOnlyList<PlanFact> PlanFacts => PlanWords.Facts(Plan);

    public static SuiteView From(SuiteRecord suite, IReadOnlyList<RunRecord> runs, ActiveSuite? active)
    {
        var fastest = runs.Where(run => run is { State: RunState.Completed, Stats: not null }).Select(run => run.Stats!.WallTimeMs).DefaultIfEmpty().Min();
        var rows = runs.Select(run => new SuiteRow(
            run.Plan.Strategy, run.Id, run.State, run.Stats?.WallTimeMs, run.Stats?.ThroughputPerSecond, run.Stats?.Latency?.P50Ms,
            run.Stats?.Latency?.P99Ms, run.Stats?.ConnectionsUsed, run.Stats?.Failed,
            run is { State: RunState.Completed, Stats: { } stats } && fastest > 0 ? Math.Round(stats.WallTimeMs / fastest, 3) : null)).ToList();
        var current = active?.Current;
        return new SuiteView(suite)
        {
            CurrentRunId = current?.Id,
            Runs = [.. runs.Select(run => current?.Id == run.Id ? run with { Progress = current.Live.Latest } : run)],
            Comparison = rows,
        };
    }
}

public sealed record SuiteRow(
    string Strategy,
    Guid RunId,
    RunState State,
    double? WallTimeMs,
    double? ThroughputPerSecond,
    double? P50Ms,
    double? P99Ms,
    int? ConnectionsUsed,
    long? FailedCalls,
    double? WallTimeVsFastest);

