using LoadEngine.Reports;

namespace GrpcBestPractices.Tests.Fakes;

/// <summary>Run records with every part the model has (series, verdict, sends), for the report tests; figures are made up but consistent.</summary>
public static class SampleRuns
{
    public static readonly DateTimeOffset Started = new(2026, 11, 22, 14, 3, 5, TimeSpan.FromHours(1));

    /// <summary>A bucket of 250 ms: 50 calls in one is 200 calls/s, so a rate divided by the wrong length shows.</summary>
    public const double IntervalMs = 250;

    public static RunPlan Plan(string strategy, LoadKind load = LoadKind.Closed) => new()
    {
        Strategy = strategy,
        Load = load,
        Count = load == LoadKind.Closed ? 1000 : null,
        Duration = load == LoadKind.Closed ? null : 2.5,
        Concurrency = 16,
        Rate = load == LoadKind.Closed ? null : 400,
        Stages = load == LoadKind.Ramping ? [new RampStage(1, 800), new RampStage(1.5, 200)] : null,
        Warmup = 20,
        Called = new BuiltInCall(DelayMs: 1),
        Thresholds = ["p99 < 5ms", "error_rate < 1%"],
    };

    /// <summary>A completed closed-load run; <paramref name="scale"/> stretches its latencies so strategies differ.</summary>
    public static RunRecord Completed(string strategy, double scale = 1, bool passed = true, Guid? suiteId = null) =>
        new(Guid.NewGuid(), Plan(strategy), RunState.Completed, Started, Started.AddSeconds(3), Stats(scale, failed: passed ? 0 : 12), null, suiteId)
        {
            Measured = $"One unary call through {strategy}, from the client's send to the answer.",
            Series = Series(scale, errorsInBucket: passed ? 0 : 3),
            Verdict = Verdict(scale, passed),
        };

    /// <summary>A completed open-load run: latency from the intended and from the actual send, and how the schedule was kept.</summary>
    public static RunRecord Open(string strategy, Guid? suiteId = null)
    {
        var stats = Stats(2, failed: 0) with
        {
            LatencyFromActualSend = Latency(1.6),
            Sends = new SendStats(1000, 990, 37, 10, 5, 400, 396.2, 0.31, 7.25, 18.5),
        };
        return new RunRecord(Guid.NewGuid(), Plan(strategy, LoadKind.Open), RunState.Completed, Started, Started.AddSeconds(3), stats, null, suiteId)
        {
            Measured = $"One unary call through {strategy}, on a schedule of 400 calls/s.",
            Series = Series(2, errorsInBucket: 0),
            Verdict = Verdict(2, passed: true),
        };
    }

    /// <summary>A run that failed before any call: no stats, no series, no verdict.</summary>
    public static RunRecord Failed(string strategy, string error, Guid? suiteId = null) =>
        new(Guid.NewGuid(), Plan(strategy), RunState.Failed, Started, Started.AddSeconds(1), null, error, suiteId);

    public static SuiteRecord Suite(Guid id, params string[] strategies) =>
        new(id, Plan("all"), strategies, RunState.Completed, Started, Started.AddSeconds(9), null);

    public static RunStats Stats(double scale, long failed) => new(
        WallTimeMs: 2512.4 * scale,
        ThroughputPerSecond: 398.03 / scale,
        Calls: 1000,
        Succeeded: 1000 - failed,
        Failed: failed,
        FirstCallMs: 41.7,
        Latency: Latency(scale),
        Histogram: Histogram(scale),
        StatusCounts: failed == 0 ? new Dictionary<string, long> { ["OK"] = 1000 } : new Dictionary<string, long> { ["OK"] = 1000 - failed, ["Unavailable"] = failed },
        ConnectionsUsed: 1,
        AllocatedBytesPerCall: 5120,
        Service: new ServiceLoad(35.5, 71.25, 88.4, 3),
        WarmupCalls: 20,
        WarmupMs: 118.3);

    /// <summary>The summary's p50, p90, p99 and p99.9 are the same figures as its percentile list's.</summary>
    public static LatencySummary Latency(double scale) => new(0.21 * scale, 1.13 * scale, 0.74 * scale, 0.98 * scale, 1.87 * scale, 3.43 * scale, 6.1 * scale, 12.6 * scale)
    {
        Percentiles = RunPlan.DefaultPercentiles.Zip([0.98, 1.41, 1.87, 2.36, 3.43, 6.1, 9.8], (percentile, ms) => new PercentileValue(percentile, ms * scale)).ToList(),
    };

    /// <summary>20 bins growing by a quarter from 0.2 ms, their counts a bell with its top at the ninth.</summary>
    public static IReadOnlyList<HistogramBin> Histogram(double scale) =>
        Enumerable.Range(0, 20).Select(index => new HistogramBin(
            Math.Round(0.2 * scale * Math.Pow(1.25, index), 4), Math.Round(0.2 * scale * Math.Pow(1.25, index + 1), 4),
            1 + (long)Math.Round(175 * Math.Exp(-Math.Pow(index - 8, 2) / 10)))).ToList();

    public static TimeSeries Series(double scale, long errorsInBucket) => new(IntervalMs,
        Enumerable.Range(1, 10).Select(index => new TimePoint(
            index * IntervalMs, 50 + index, errorsInBucket,
            errorsInBucket == 0 ? new Dictionary<string, long>() : new Dictionary<string, long> { ["Unavailable"] = errorsInBucket },
            0.9 * scale, 1.8 * scale, 3.3 * scale + index / 10.0, index == 5 ? null : 9.5 * scale)).ToList());

    private static Verdict Verdict(double scale, bool passed)
    {
        ThresholdResult[] thresholds =
        [
            new("p99 < 5ms", "p99", "<", 5, "ms", 3.43 * scale, 3.43 * scale < 5),
            new("error_rate < 1%", "error_rate", "<", 1, "%", passed ? 0 : 1.2, passed),
        ];
        return new Verdict(thresholds.All(threshold => threshold.Passed), thresholds);
    }

    /// <summary>A suite of three: a closed run that passes, an open run whose p99 fails, and a run that failed before any call.</summary>
    public static ReportContent SuiteReport(string failure = "The service at http://127.0.0.1:1 refused the connection.")
    {
        var suiteId = Guid.NewGuid();
        RunRecord[] runs = [Completed("client-wrapper", suiteId: suiteId), Open("single-connection", suiteId), Failed("channel-per-call", failure, suiteId)];
        return ReportContent.ForSuite(Suite(suiteId, [.. runs.Select(run => run.Plan.Strategy)]), runs, Started.AddMinutes(1), "http://127.0.0.1:5000");
    }
}
