using LoadEngine.Thresholds;

namespace GrpcBestPractices.Tests.Unit;

public sealed class ThresholdTests
{
    private static readonly LatencySummary Latency = new(MinMs: 0.2, MeanMs: 1.5, StdDevMs: 0.7, P50Ms: 1.2, P90Ms: 2.5, P99Ms: 4.8, P999Ms: 9.5, MaxMs: 20)
    {
        Percentiles = [new(75, 1.8), new(99.99, 15)],
    };

    private static readonly SendStats Sends = new(Intended: 1005, Sent: 1002, Late: 7, Dropped: 3, LateAfterMs: 1, RequestedRatePerSecond: 1000,
        AchievedRatePerSecond: 998, LagP50Ms: 0.1, LagP99Ms: 0.9, LagMaxMs: 4);

    private static RunStats Stats(LatencySummary? latency, SendStats? sends = null) =>
        new(WallTimeMs: 1000, ThroughputPerSecond: 12000, Calls: 1000, Succeeded: 995, Failed: 5, FirstCallMs: 3, latency, Histogram: [],
            StatusCounts: new Dictionary<string, long>(), ConnectionsUsed: 1, AllocatedBytesPerCall: 0, Service: new ServiceLoad(null, null, null, 0),
            WarmupCalls: 0, WarmupMs: 0)
        {
            Sends = sends,
        };

    private static RunRecord Run(RunStats? stats, RunState state = RunState.Completed) =>
        new(Guid.NewGuid(), new RunPlan { Strategy = "client-wrapper" }, state, DateTimeOffset.UnixEpoch, DateTimeOffset.UnixEpoch, stats, null, null);

    private static Verdict Judged(RunRecord run, params string[] texts)
    {
        Assert.True(Threshold.TryParseAll(texts, out var thresholds, out var error), error);
        return ThresholdJudge.Judge(thresholds, run.State, run.Stats);
    }

    [Theory]
    [InlineData("p99 < 5ms", "p99", "<", 5, "ms")]
    [InlineData("p50 <= 2", "p50", "<=", 2, "ms")]
    [InlineData("p99.9 > 0.5ms", "p99.9", ">", 0.5, "ms")]
    [InlineData("p99.99 >= 10 ms", "p99.99", ">=", 10, "ms")]
    [InlineData("p99.90 < 1ms", "p99.9", "<", 1, "ms")]
    [InlineData("p0.1 < 1ms", "p0.1", "<", 1, "ms")]
    [InlineData("p100 < 1s", "p100", "<", 1000, "ms")]
    [InlineData("P99 < 5MS", "p99", "<", 5, "ms")]
    [InlineData("p99<5ms", "p99", "<", 5, "ms")]
    [InlineData("  p99   <=   5ms  ", "p99", "<=", 5, "ms")]
    [InlineData("p95 < 500us", "p95", "<", 0.5, "ms")]
    [InlineData("p95 < 250µs", "p95", "<", 0.25, "ms")]
    [InlineData("p95 < 250μs", "p95", "<", 0.25, "ms")]
    [InlineData("p95 < 250US", "p95", "<", 0.25, "ms")]
    [InlineData("p95 < 1.1s", "p95", "<", 1100, "ms")]
    [InlineData("p95 < .5", "p95", "<", 0.5, "ms")]
    [InlineData("mean < 3ms", "mean", "<", 3, "ms")]
    [InlineData("MIN > 0", "min", ">", 0, "ms")]
    [InlineData("max < 2s", "max", "<", 2000, "ms")]
    [InlineData("stddev < 1", "stdDev", "<", 1, "ms")]
    [InlineData("stdDev <= 1.5ms", "stdDev", "<=", 1.5, "ms")]
    [InlineData("errorRate < 0.01", "errorRate", "<", 0.01, "fraction")]
    [InlineData("errorRate < 1%", "errorRate", "<", 0.01, "fraction")]
    [InlineData("ERRORRATE <= 0.5 %", "errorRate", "<=", 0.005, "fraction")]
    [InlineData("errorRate <= 100%", "errorRate", "<=", 1, "fraction")]
    [InlineData("errorRate <= 1", "errorRate", "<=", 1, "fraction")]
    [InlineData("throughput > 10000", "throughput", ">", 10000, "calls/s")]
    [InlineData("throughput > 10000/s", "throughput", ">", 10000, "calls/s")]
    [InlineData("Throughput >= 10k/s", "throughput", ">=", 10000, "calls/s")]
    [InlineData("throughput > 2.5k", "throughput", ">", 2500, "calls/s")]
    [InlineData("failed < 1", "failed", "<", 1, "calls")]
    [InlineData("failed <= 0", "failed", "<=", 0, "calls")]
    [InlineData("late < 10", "late", "<", 10, "calls")]
    [InlineData("DROPPED <= 0", "dropped", "<=", 0, "calls")]
    public void EveryAcceptedFormReadsAsItsMetricOperatorLimitAndUnit(string text, string metric, string op, double limit, string unit)
    {
        Assert.True(Threshold.TryParse(text, out var threshold, out var error), error);

        Assert.Equal((text, metric, op, limit, unit), (threshold.Text, threshold.Name, threshold.OperatorSymbol, threshold.Limit, threshold.Unit));
    }

    [Theory]
    [InlineData("", "it is empty")]
    [InlineData("   ", "it is empty")]
    [InlineData("< 5ms", "expected a metric first, found '< 5ms'")]
    [InlineData("p99", "expected an operator after 'p99'")]
    [InlineData("p99 5ms", "expected an operator after 'p99', found '5ms'")]
    [InlineData("p99 <", "expected a value after '<'")]
    [InlineData("p99 == 5ms", "'==' is not an operator")]
    [InlineData("p99 = 5ms", "'=' is not an operator")]
    [InlineData("p99 =< 5ms", "'=<' is not an operator")]
    [InlineData("p99 != 5ms", "'!=' is not an operator")]
    [InlineData("p99 <> 5ms", "'<>' is not an operator")]
    [InlineData("p99 < NaN", "expected a number after '<', found 'NaN'")]
    [InlineData("p99 < ∞", "expected a number after '<', found '∞'")]
    [InlineData("p99 < Infinity", "expected a number after '<', found 'Infinity'")]
    [InlineData("p99 < +5ms", "expected a number after '<', found '+5ms'")]
    [InlineData("p99 < -5ms", "the limit -5 is negative")]
    [InlineData("failed < -1", "the limit -1 is negative")]
    [InlineData("p99 < 1.2.3ms", "'1.2.3' is not a number")]
    [InlineData("p99 < 1e3", "'e3' is not a unit of p99")]
    [InlineData("throughput > 10000000000000", "the limit 10000000000000 is too large")]
    [InlineData("p99 < 99999999999999999999999999999999", "is not a number")]
    [InlineData("p99 < 5ms please", "'please' after the value is not understood")]
    [InlineData("p99 < 5 ms ms", "'ms' after the value is not understood")]
    [InlineData("latency < 5ms", "'latency' is not a metric")]
    [InlineData("p < 5ms", "'p' is not a metric")]
    [InlineData("p99.9.9 < 5ms", "'p99.9.9' is not a metric")]
    [InlineData("p.9 < 5ms", "'p.9' is not a metric")]
    [InlineData("p99. < 5ms", "'p99.' is not a metric")]
    [InlineData("p 99 < 5ms", "'p' is not a metric")]
    [InlineData("p0 < 5ms", "p0 is not a percentile; N in pN is above 0 and at most 100")]
    [InlineData("p100.1 < 5ms", "p100.1 is not a percentile")]
    [InlineData("p101 < 5ms", "p101 is not a percentile")]
    [InlineData("p99 < 5%", "'%' is not a unit of p99; it takes ms, us or s (a bare number is ms)")]
    [InlineData("mean < 5m", "'m' is not a unit of mean")]
    [InlineData("max < 5/s", "'/s' is not a unit of max")]
    [InlineData("errorRate < 5ms", "'ms' is not a unit of errorRate; write a fraction (0.01) or a percent (1%)")]
    [InlineData("errorRate < 5", "errorRate 5 is above 1; write a fraction (0.01) or a percent (1%)")]
    [InlineData("errorRate < 101%", "errorRate 101% is above 100%")]
    [InlineData("throughput > 5ms", "'ms' is not a unit of throughput; it is calls/s (10000, 10000/s or 10k/s)")]
    [InlineData("throughput > 5%", "'%' is not a unit of throughput")]
    [InlineData("failed < 1ms", "'ms' is not a unit of failed; it counts calls")]
    [InlineData("late < 1.5", "late counts calls; 1.5 is not a whole number")]
    [InlineData("dropped < 1%", "'%' is not a unit of dropped")]
    public void EveryRejectedFormIsRefusedNamingTheThresholdAndShowingTheAcceptedForm(string text, string reason)
    {
        Assert.False(Threshold.TryParse(text, out _, out var error));

        Assert.StartsWith($"threshold '{text}' could not be read: ", error);
        Assert.Contains(reason, error);
        Assert.EndsWith(". " + Threshold.AcceptedForm, error);
    }

    [Fact]
    public void TheAcceptedFormSaysABareLatencyIsMillisecondsAndGivesExamples()
    {
        Assert.Contains("a bare number is ms", Threshold.AcceptedForm);
        Assert.Contains("\"p99 < 5ms\"", Threshold.AcceptedForm);
        Assert.True(Threshold.TryParse("p99 < 5ms", out _, out _));
        Assert.True(Threshold.TryParse("errorRate < 1%", out _, out _));
    }

    [Fact]
    public void AListReadsEveryThresholdInOrder()
    {
        Assert.True(Threshold.TryParseAll(["p99 < 5ms", "errorRate < 0.01", "throughput > 10000"], out var thresholds, out var error), error);

        Assert.Equal(["p99", "errorRate", "throughput"], thresholds.Select(threshold => threshold.Name));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void NoThresholdsIsAnEmptyList(bool isNull)
    {
        Assert.True(Threshold.TryParseAll(isNull ? null : [], out var thresholds, out var error));

        Assert.Empty(thresholds);
        Assert.Empty(error);
    }

    [Fact]
    public void AListIsRefusedAtItsFirstBadThresholdNamedByTextAndPosition()
    {
        Assert.False(Threshold.TryParseAll(["p99 < 5ms", "p99 <", "nope"], out var thresholds, out var error));

        Assert.Empty(thresholds);
        Assert.Equal($"threshold 'p99 <' (thresholds[1]) could not be read: expected a value after '<'. {Threshold.AcceptedForm}", error);
    }

    [Fact]
    public void AMissingEntryInAListIsRefusedAsEmpty()
    {
        Assert.False(Threshold.TryParseAll([null], out _, out var error));

        Assert.StartsWith("threshold '' (thresholds[0]) could not be read: it is empty.", error);
    }

    [Fact]
    public void TwentyThresholdsAreTheMostAPlanTakes()
    {
        var twenty = Enumerable.Repeat("p99 < 5ms", Threshold.MaxPerPlan).ToList();

        Assert.Equal(20, Threshold.MaxPerPlan);
        Assert.True(Threshold.TryParseAll(twenty, out var thresholds, out _));
        Assert.Equal(20, thresholds.Count);
        Assert.False(Threshold.TryParseAll([.. twenty, "p50 < 1ms"], out _, out var error));
        Assert.Equal("thresholds has 21 entries; a plan takes at most 20.", error);
    }

    [Fact]
    public void PercentilesNeededAreThoseOfThePercentileThresholdsEachOnceInOrder()
    {
        Assert.True(Threshold.TryParseAll(["p99.99 < 9ms", "mean < 1ms", "p50 < 1ms", "P99.990 < 8ms", "p99 < 5ms"], out var thresholds, out _));

        Assert.Equal([50, 99, 99.99], Threshold.PercentilesNeeded(thresholds));
    }

    [Theory]
    [InlineData("p50 >= 0", 1.2)]
    [InlineData("p90 >= 0", 2.5)]
    [InlineData("p99 >= 0", 4.8)]
    [InlineData("p99.9 >= 0", 9.5)]
    [InlineData("p75 >= 0", 1.8)]
    [InlineData("p99.99 >= 0", 15)]
    [InlineData("mean >= 0", 1.5)]
    [InlineData("min >= 0", 0.2)]
    [InlineData("max >= 0", 20)]
    [InlineData("stdDev >= 0", 0.7)]
    [InlineData("errorRate >= 0", 0.005)]
    [InlineData("throughput >= 0", 12000)]
    [InlineData("failed >= 0", 5)]
    [InlineData("late >= 0", 7)]
    [InlineData("dropped >= 0", 3)]
    public void EachMetricIsMeasuredOnItsFigureOfTheRun(string text, double measured)
    {
        var verdict = Judged(Run(Stats(Latency, Sends)), text);

        var result = Assert.Single(verdict.Thresholds);
        Assert.Equal((measured, true, null), (result.Measured, result.Passed, result.Reason));
        Assert.True(verdict.Passed);
    }

    [Fact]
    public void APercentileInThePlansListIsPreferredOverTheFixedField()
    {
        var latency = Latency with { Percentiles = [new(99, 4.7)] };

        Assert.Equal(4.7, Assert.Single(Judged(Run(Stats(latency)), "p99 < 5ms").Thresholds).Measured);
    }

    [Theory]
    [InlineData("p99 < 5ms", 4.9, true)]
    [InlineData("p99 < 5ms", 5, false)]
    [InlineData("p99 < 5ms", 5.1, false)]
    [InlineData("p99 <= 5ms", 4.9, true)]
    [InlineData("p99 <= 5ms", 5, true)]
    [InlineData("p99 <= 5ms", 5.1, false)]
    [InlineData("p99 > 5ms", 4.9, false)]
    [InlineData("p99 > 5ms", 5, false)]
    [InlineData("p99 > 5ms", 5.1, true)]
    [InlineData("p99 >= 5ms", 4.9, false)]
    [InlineData("p99 >= 5ms", 5, true)]
    [InlineData("p99 >= 5ms", 5.1, true)]
    [InlineData("p99 <= 5000us", 5, true)]
    [InlineData("p99 < 0.005s", 5, false)]
    [InlineData("p99 <= 1.1s", 1100, true)]
    public void EachOperatorIsJudgedBelowAtAndAboveTheLimit(string text, double p99, bool passes)
    {
        var verdict = Judged(Run(Stats(Latency with { P99Ms = p99 })), text);

        Assert.Equal(passes, Assert.Single(verdict.Thresholds).Passed);
        Assert.Equal(passes, verdict.Passed);
    }

    [Fact]
    public void TheVerdictPassesOnlyWhenEveryThresholdHolds()
    {
        var run = Run(Stats(Latency));

        Assert.True(Judged(run, "p99 < 5ms", "errorRate < 1%").Passed);
        Assert.False(Judged(run, "p99 < 5ms", "errorRate < 0.1%").Passed);
    }

    [Fact]
    public void AResultCarriesTheThresholdAsWrittenTheMetricCanonicallyAndTheLimitInItsReportingUnit()
    {
        var result = Assert.Single(Judged(Run(Stats(Latency)), "P99.90 <= 500 us").Thresholds);

        Assert.Equal(new ThresholdResult("P99.90 <= 500 us", "p99.9", "<=", 0.5, "ms", 9.5, false), result);
    }

    [Theory]
    [InlineData(RunState.Failed, "the run failed before it measured anything")]
    [InlineData(RunState.Cancelled, "the run was cancelled before it measured anything")]
    [InlineData(RunState.Running, "the run has not finished")]
    public void ARunWithoutStatisticsFailsEveryThresholdWithNothingMeasured(RunState state, string reason)
    {
        var verdict = Judged(Run(null, state), "p99 < 5ms", "errorRate <= 100%", "failed >= 0");

        Assert.False(verdict.Passed);
        Assert.All(verdict.Thresholds, result => Assert.Equal((null, false, reason), (result.Measured, result.Passed, result.Reason)));
    }

    [Theory]
    [InlineData(RunState.Failed)]
    [InlineData(RunState.Cancelled)]
    public void AFailedOrCancelledRunFailsTheVerdictEvenWhenItsFiguresHold(RunState state)
    {
        var verdict = Judged(Run(Stats(Latency), state), "p99 < 5ms", "errorRate < 1%");

        Assert.All(verdict.Thresholds, result => Assert.True(result.Passed));
        Assert.False(verdict.Passed);
    }

    [Fact]
    public void APercentileTheRunDidNotReportFailsWithNothingMeasured()
    {
        var verdict = Judged(Run(Stats(Latency)), "p95 < 100ms", "p99 < 100ms");

        Assert.False(verdict.Passed);
        Assert.Equal(
            new ThresholdResult("p95 < 100ms", "p95", "<", 100, "ms", null, false) { Reason = "the run did not report p95; the plan's percentiles must include 95" },
            verdict.Thresholds[0]);
        Assert.True(verdict.Thresholds[1].Passed);
    }

    [Theory]
    [InlineData("late <= 1000")]
    [InlineData("dropped <= 1000")]
    public void LateAndDroppedFailOnAClosedRunWhichKeepsNoSchedule(string text)
    {
        var verdict = Judged(Run(Stats(Latency, sends: null)), text);

        var result = Assert.Single(verdict.Thresholds);
        Assert.Equal((null, false), (result.Measured, result.Passed));
        Assert.StartsWith("only arrival-rate loads (open, ramping) count", result.Reason);
        Assert.False(verdict.Passed);
    }

    [Fact]
    public void LatencyThresholdsFailWhenNoCallSucceededWhileTheOthersAreStillJudged()
    {
        var verdict = Judged(Run(Stats(latency: null)), "mean < 100ms", "errorRate < 1%");

        Assert.Equal((null, false, "no call succeeded, so the run has no latency"), (verdict.Thresholds[0].Measured, verdict.Thresholds[0].Passed, verdict.Thresholds[0].Reason));
        Assert.True(verdict.Thresholds[1].Passed);
    }

    [Theory]
    [InlineData(RunState.Completed)]
    [InlineData(RunState.Failed)]
    public void NoThresholdsGiveAPassingVerdictWithNoResultsSoTheCallerAttachesNone(RunState state)
    {
        var verdict = ThresholdJudge.Judge([], state, Run(null, state).Stats);

        Assert.True(verdict.Passed);
        Assert.Empty(verdict.Thresholds);
    }
}
