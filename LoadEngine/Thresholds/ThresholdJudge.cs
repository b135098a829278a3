using LoadEngine.Runs;

namespace LoadEngine.Thresholds;

/// <summary>
/// Judges a run's thresholds on its statistics. Attach the verdict to a run only when its plan had thresholds: with none
/// the verdict is an empty pass, which says nothing about the run.
/// </summary>
public static class ThresholdJudge
{
    // Percentiles are read as the plan wrote them; the tolerance only absorbs a round trip through JSON or SQLite.
    private const double SamePercentile = 1e-9;

    /// <summary>The run with its plan's thresholds judged; a plan without thresholds gets no verdict (it would say nothing).</summary>
    public static RunRecord WithVerdict(RunRecord run) =>
        run.Plan.Thresholds.Count > 0 && Threshold.TryParseAll(run.Plan.Thresholds, out var thresholds, out _)
            ? run with { Verdict = Judge(thresholds, run.State, run.Stats) }
            : run;

    /// <summary>
    /// A suite's verdict, for the gateway's suite view and the CLI's suite file alike: with thresholds, whether it completed,
    /// every strategy ran, and every run passed its own verdict (which has the figures); null when the plan had none.
    /// </summary>
    public static bool? SuitePassed(RunPlan plan, RunState state, int strategies, IReadOnlyList<RunRecord> runs) =>
        plan.Thresholds.Count == 0 ? null : state == RunState.Completed && runs.Count == strategies && runs.All(run => run.Verdict?.Passed == true);

    /// <summary>
    /// Each threshold against its figure. A run that did not complete fails the verdict whatever its figures say (they
    /// cover only part of the plan); a figure the run does not have fails its threshold, with nothing measured and the
    /// reason. No thresholds give a passing verdict with no results.
    /// </summary>
    public static Verdict Judge(IReadOnlyList<Threshold> thresholds, RunState state, RunStats? stats)
    {
        if (thresholds.Count == 0)
        {
            return new Verdict(true, []);
        }

        var results = thresholds.Select(threshold => JudgeOne(threshold, state, stats)).ToList();
        return new Verdict(state == RunState.Completed && results.All(result => result.Passed), results);
    }

    private static ThresholdResult JudgeOne(Threshold threshold, RunState state, RunStats? stats)
    {
        var (measured, reason) = Measure(threshold, state, stats);
        return new ThresholdResult(threshold.Text, threshold.Name, threshold.OperatorSymbol, threshold.Limit, threshold.Unit, measured,
            measured is { } value && threshold.HoldsFor(value))
        {
            Reason = reason,
        };
    }

    private static (double? Measured, string? Reason) Measure(Threshold threshold, RunState state, RunStats? stats)
    {
        if (stats is null)
        {
            return (null, state switch
            {
                RunState.Running => "the run has not finished",
                RunState.Failed => "the run failed before it measured anything",
                RunState.Cancelled => "the run was cancelled before it measured anything",
                _ => "the run has no statistics",
            });
        }

        if (threshold.IsLatency)
        {
            return stats.Latency is { } latency
                ? Latency(threshold, latency)
                : (null, "no call succeeded, so the run has no latency");
        }

        return threshold.Metric switch
        {
            ThresholdMetric.ErrorRate => (stats.ErrorRate, null),
            ThresholdMetric.Throughput => (stats.ThroughputPerSecond, null),
            ThresholdMetric.Failed => (stats.Failed, null),
            _ when stats.Sends is null => (null, $"only arrival-rate loads (open, ramping) count {threshold.Name} calls; this run kept no schedule"),
            ThresholdMetric.Late => (stats.Sends.Late, null),
            _ => (stats.Sends.Dropped, null),
        };
    }

    private static (double? Measured, string? Reason) Latency(Threshold threshold, LatencySummary latency) => threshold.Metric switch
    {
        ThresholdMetric.Mean => (latency.MeanMs, null),
        ThresholdMetric.Min => (latency.MinMs, null),
        ThresholdMetric.Max => (latency.MaxMs, null),
        ThresholdMetric.StdDev => (latency.StdDevMs, null),
        _ => Percentile(latency, threshold.Percentile!.Value) is { } ms
            ? (ms, null)
            : (null, $"the run did not report {threshold.Name}; the plan's percentiles must include {threshold.Name[1..]}"),
    };

    /// <summary>The plan's list first; the fixed fields when they are the one asked for.</summary>
    private static double? Percentile(LatencySummary latency, double percentile) =>
        latency.Percentiles.FirstOrDefault(reported => Math.Abs(reported.Percentile - percentile) < SamePercentile)?.Ms ?? percentile switch
        {
            50 => latency.P50Ms,
            90 => latency.P90Ms,
            99 => latency.P99Ms,
            99.9 => latency.P999Ms,
            _ => (double?)null,
        };
}
