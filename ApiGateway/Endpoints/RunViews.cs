using ApiGateway.Runs;
using LoadEngine.Thresholds;

namespace ApiGateway.Endpoints;

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

/// <summary>A suite with its runs and the comparison a room reads: each strategy against the fastest.</summary>
public sealed record SuiteView(
    Guid Id,
    RunPlan Plan,
    IReadOnlyList<string> Strategies,
    RunState State,
    DateTimeOffset StartedAt,
    DateTimeOffset? FinishedAt,
    string? Error,
    Guid? CurrentRunId,
    IReadOnlyList<RunRecord> Runs,
    IReadOnlyList<SuiteRow> Comparison)
{
    /// <summary>With thresholds: whether every run completed and passed its verdict (each run's verdict has the figures). Null without.</summary>
    public bool? Passed => ThresholdJudge.SuitePassed(Plan, State, Strategies.Count, Runs);

    public static SuiteView From(SuiteRecord suite, IReadOnlyList<RunRecord> runs, ActiveSuite? active)
    {
        var fastest = runs.Where(run => run is { State: RunState.Completed, Stats: not null }).Select(run => run.Stats!.WallTimeMs).DefaultIfEmpty().Min();
        var rows = runs.Select(run => new SuiteRow(
            run.Plan.Strategy, run.Id, run.State, run.Stats?.WallTimeMs, run.Stats?.ThroughputPerSecond, run.Stats?.Latency?.P50Ms,
            run.Stats?.Latency?.P99Ms, run.Stats?.ConnectionsUsed, run.Stats?.Failed,
            run is { State: RunState.Completed, Stats: { } stats } && fastest > 0 ? Math.Round(stats.WallTimeMs / fastest, 3) : null)).ToList();
        var current = active?.Current;
        return new SuiteView(suite.Id, suite.Plan, suite.Strategies, suite.State, suite.StartedAt, suite.FinishedAt, suite.Error,
            current?.Id, [.. runs.Select(run => current?.Id == run.Id ? run with { Progress = current.Live.Latest } : run)], rows);
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

