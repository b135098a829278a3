using ApiGateway.Comparisons;
using GrpcBestPractices.Tests.Fakes;
using LoadEngine.Protocols;

namespace GrpcBestPractices.Tests.Protocols;

/// <summary>A comparison's summary and sentence from made-up runs: medians, ranges, ratios, the spread, failures, and what ranks.</summary>
public sealed class ComparisonSummaryTests
{
    private const string Grpc = "grpc-h2-cleartext";
    private const string Stj = "rest-stj-h2-cleartext";
    private const string Newtonsoft = "rest-newtonsoft-h1-tls";

    private static readonly string GrpcLabel = ContenderList.Find(Grpc)!.Label;
    private static readonly string StjLabel = ContenderList.Find(Stj)!.Label;
    private static readonly string NewtonsoftLabel = ContenderList.Find(Newtonsoft)!.Label;

    [Fact]
    public void RepetitionsRunEveryContenderOnceEachRotatedByOne()
    {
        var plan = new ComparisonPlan(["a", "b", "c"], 3);

        Assert.Equal(
            [(1, "a"), (1, "b"), (1, "c"), (2, "b"), (2, "c"), (2, "a"), (3, "c"), (3, "a"), (3, "b")],
            plan.Schedule());
    }

    [Fact]
    public void EachFigureIsTheMedianAndRangeOfTheContendersCompletedRuns()
    {
        var outcome = Summarize(3, new() { [Grpc] = [0.30, 0.10, 0.20], [Stj] = [0.5, 0.4, 0.6] });

        var grpc = outcome.Summary[0];
        Assert.Equal(new FigureRange(0.20, 0.10, 0.30), grpc.Figures["meanMs"]);
        Assert.Equal(new FigureRange(Throughput(0.20), Throughput(0.30), Throughput(0.10)), grpc.Figures["throughputPerSecond"]);
        Assert.Equal(new FigureRange(12, 12, 12), grpc.Figures["bytesSentPerCall"]);
        Assert.Equal(ComparisonFigures.All.Select(figure => figure.Name), grpc.Figures.Keys);
        Assert.Equal(3, grpc.CompletedRuns);
        Assert.Equal([new ServerSaw("grpc", "HTTP/2", "none", 300)], grpc.ServerSaw);
    }

    [Fact]
    public void AnEvenNumberOfRepetitionsHasTheMeanOfTheMiddleTwoAsItsMedian()
    {
        var outcome = Summarize(2, new() { [Grpc] = [0.1, 0.4], [Stj] = [0.5, 0.6] });

        Assert.Equal(new FigureRange(0.25, 0.1, 0.4), outcome.Summary[0].Figures["meanMs"]);
    }

    [Fact]
    public void TheSentenceNamesTheFastestWithTheMedianAndRangeOfItsPerRepetitionRatiosAgainstTheNextAndTheSlowest()
    {
        var outcome = Summarize(3, new() { [Stj] = [0.4, 0.44, 0.38], [Grpc] = [0.2, 0.2, 0.2], [Newtonsoft] = [0.8, 0.9, 1.0] });

        Assert.Equal("meanMs", outcome.RankedBy);
        var ranking = Assert.IsType<ComparisonRanking>(outcome.Ranking);
        Assert.Equal([Grpc, Stj, Newtonsoft], ranking.Order);
        Assert.Equal(new RatioRange(Stj, 2, 1.9, 2.2, 3), ranking.VsNext);
        Assert.Equal(new RatioRange(Newtonsoft, 4.5, 4, 5, 3), ranking.VsSlowest);
        Assert.False(ranking.WithinSpread);
        Assert.Equal(
            $"{GrpcLabel} was fastest by mean time per call: 2.0× faster than {StjLabel} (median of 3, 1.9–2.2×) " +
            $"and 4.5× faster than the slowest, {NewtonsoftLabel} (median of 3, 4.0–5.0×).",
            outcome.Sentence);
    }

    [Fact]
    public void WhenTheTwoBestRangesOverlapTheSentenceSaysTheDifferenceIsWithinTheRunToRunSpread()
    {
        var outcome = Summarize(3, new() { [Grpc] = [0.20, 0.25, 0.30], [Stj] = [0.28, 0.26, 0.35] });

        Assert.True(outcome.Ranking!.WithinSpread);
        Assert.Null(outcome.Ranking.VsSlowest);
        Assert.Equal(
            $"{GrpcLabel} was fastest by mean time per call, but only 1.2× faster than {StjLabel} (median of 3, 1.04–1.4×), " +
            "which is within the run-to-run spread: their ranges over the repetitions overlap.",
            outcome.Sentence);
    }

    [Fact]
    public void AContenderWithAFailedCallIsNamedAsFailedAndNeverRankedEvenWhenItsFiguresAreTheBest()
    {
        var (suite, runs) = Compare(2, new() { [Grpc] = [0.01, 0.01], [Stj] = [0.3, 0.3], [Newtonsoft] = [0.6, 0.6] });
        var second = runs.FindLastIndex(run => run.Plan.Strategy == Grpc);
        runs[second] = runs[second] with { Stats = runs[second].Stats! with { Failed = 2, Succeeded = 98, StatusCounts = new Dictionary<string, long> { ["OK"] = 98, ["DataLoss"] = 2 } } };

        var outcome = ComparisonSummary.Of(suite, runs);

        var grpc = outcome.Summary.Single(contender => contender.Contender == Grpc);
        Assert.True(grpc.Failed);
        Assert.Equal("2 of 100 calls failed in repetition 2 (DataLoss 2)", grpc.Failure);
        Assert.Equal([Stj, Newtonsoft], outcome.Ranking!.Order);
        Assert.StartsWith($"{StjLabel} was fastest by mean time per call: 2.0× faster than {NewtonsoftLabel} (median of 2, 2.0–2.0×).", outcome.Sentence);
        Assert.EndsWith($" {GrpcLabel} failed (2 of 100 calls failed in repetition 2 (DataLoss 2)) and is not ranked.", outcome.Sentence);
    }

    [Fact]
    public void AContenderWhoseRunFailedIsNotRankedAndWithOneLeftNothingIsNamedFastest()
    {
        var (suite, runs) = Compare(1, new() { [Grpc] = [0.1], [Stj] = [0.3] });
        runs[1] = runs[1] with { State = RunState.Failed, Stats = null, Error = "The service at https://127.0.0.1:1 refused the connection." };

        var outcome = ComparisonSummary.Of(suite, runs);

        Assert.Null(outcome.Ranking);
        Assert.Empty(outcome.Summary[1].Figures);
        Assert.Equal(
            $"Only {GrpcLabel} ran without a failure, so there is nothing to rank it against. " +
            $"{StjLabel} failed (repetition 1 failed: The service at https://127.0.0.1:1 refused the connection.) and is not ranked.",
            outcome.Sentence);
    }

    [Fact]
    public void RunsBoundedByDurationAreRankedByThroughput()
    {
        var plan = Plan(Grpc) with { Count = null, Duration = 5 };
        var (suite, runs) = Compare(1, new() { [Grpc] = [0.1], [Stj] = [0.2] }, plan);
        // The mean says gRPC, the calls per second say REST: a duration-bound run is judged by what it got done.
        runs[1] = runs[1] with { Stats = runs[1].Stats! with { ThroughputPerSecond = 30_000 } };

        var outcome = ComparisonSummary.Of(suite, runs);

        Assert.Equal("throughputPerSecond", outcome.RankedBy);
        Assert.Equal(Stj, outcome.Ranking!.Fastest);
        Assert.StartsWith($"{StjLabel} was fastest by throughput (calls/s, as the runs were bounded by their duration): 3.0× faster than {GrpcLabel} (one repetition).", outcome.Sentence);
    }

    [Fact]
    public void AnArrivalRateIsRankedByTimePerCallEvenWhenBoundedByDuration()
    {
        var plan = Plan(Grpc) with { Count = null, Duration = 5, Load = LoadKind.Open, Rate = 100 };

        Assert.Equal(ComparisonFigures.MeanMs, ComparisonFigures.RankingFigure(plan));
    }

    [Fact]
    public void ACancelledComparisonNamesNoFastest()
    {
        var (suite, runs) = Compare(2, new() { [Grpc] = [0.1, 0.1], [Stj] = [0.3, 0.3] });

        var outcome = ComparisonSummary.Of(suite with { State = RunState.Cancelled, Error = "The comparison was cancelled on request." }, runs[..3]);

        Assert.Null(outcome.Ranking);
        Assert.Equal("The comparison was cancelled after 3 of 4 runs (The comparison was cancelled on request.), so no contender is named fastest.", outcome.Sentence);
        Assert.Equal([1, 2], outcome.Summary.Select(contender => contender.CompletedRuns));
    }

    private static ComparisonView Summarize(int repetitions, Dictionary<string, double[]> means)
    {
        var (suite, runs) = Compare(repetitions, means);
        return ComparisonSummary.Of(suite, runs);
    }

    /// <summary>
    /// A completed comparison of the contenders <paramref name="means"/> names (in the order gRPC, STJ, Newtonsoft) and
    /// its runs in schedule order, each with the mean <paramref name="means"/> gives it for its repetition.
    /// </summary>
    private static (SuiteRecord Suite, List<RunRecord> Runs) Compare(int repetitions, Dictionary<string, double[]> means, RunPlan? plan = null)
    {
        var comparison = new ComparisonPlan([.. new[] { Grpc, Stj, Newtonsoft }.Where(means.ContainsKey)], repetitions);
        var suite = new SuiteRecord(Guid.NewGuid(), plan ?? Plan(Grpc), [.. comparison.Schedule().Select(step => step.Contender)], RunState.Completed, SampleRuns.Started, SampleRuns.Started.AddMinutes(1), null)
        {
            Comparison = comparison,
        };
        return (suite, [.. comparison.Schedule().Select(step => Run(step.Contender, means[step.Contender][step.Repetition - 1], plan))]);
    }

    private static RunPlan Plan(string contender) => new() { Strategy = contender, Called = new WorkloadContender("small-ints", ContenderList.Find(contender), null, null, null, null, null), Count = 100, Warmup = 10 };

    private static double Throughput(double meanMs) => Math.Round(1000 / meanMs, 4);

    private static RunRecord Run(string contender, double meanMs, RunPlan? plan)
    {
        var stats = SampleRuns.Stats(1, failed: 0) with
        {
            Calls = 100,
            Succeeded = 100,
            StatusCounts = new Dictionary<string, long> { ["OK"] = 100 },
            Latency = SampleRuns.Latency(1) with { MeanMs = meanMs },
            ThroughputPerSecond = Throughput(meanMs),
            BytesSentPerCall = 12,
            BytesReceivedPerCall = 48,
            ServiceAllocatedBytesPerCall = 900,
            ServerSaw = new ServerSaw(ContenderList.Find(contender)!.ServiceApi, "HTTP/2", "none", 100),
        };
        return new RunRecord(Guid.NewGuid(), (plan ?? Plan(contender)) with { Strategy = contender }, RunState.Completed, SampleRuns.Started, SampleRuns.Started.AddSeconds(1), stats, null, null);
    }
}
