using System.Diagnostics;
using System.Text.Json;
using LoadEngine.Runs;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>
/// A run shared among agents: each agent's share of the plan, and the merge of what they recorded, which must give
/// exactly what one histogram holding every value gives (percentiles from the merged histogram, never an average).
/// </summary>
public sealed class AgentMergeTests
{
    [Fact]
    public void FourAgentsHistogramsSentAsJsonAndMergedGiveExactlyTheFiguresOfOneHistogramHoldingEveryValue()
    {
        var random = new Random(20261123);
        var agents = Enumerable.Range(0, 4).Select(_ => new LatencyRecorder()).ToArray();
        var all = new LatencyRecorder();
        for (var i = 0; i < 200_000; i++)
        {
            // Log-normal around 0.4 ms with a long tail, in Stopwatch ticks.
            var ms = Math.Exp(Math.Log(0.4) + 0.8 * Gaussian(random)) + (random.Next(1000) == 0 ? random.Next(5, 400) : 0);
            var ticks = (long)(ms * Stopwatch.Frequency / 1000);
            agents[random.Next(agents.Length)].Record(ticks);
            all.Record(ticks);
        }

        var sent = agents.Select(agent => JsonSerializer.Deserialize<LatencyDistribution>(JsonSerializer.Serialize(agent.Total(), RunJson.Options), RunJson.Options)!).ToList();
        var merged = LatencyDistribution.Merge(sent);
        var single = all.Total();

        Assert.Equal(single.Count, merged.Count);
        Assert.Equal(agents.Sum(agent => agent.Total().Count), merged.Count);
        Assert.Equal(Json(single.Summarize([50, 99, 99.9, 99.99])), Json(merged.Summarize([50, 99, 99.9, 99.99])));
        Assert.Equal(single.ToBins(), merged.ToBins());
        // Not trivially so: the agents' own medians differ from one another and from the merged one's average.
        Assert.NotEqual(merged.Summarize()!.P99Ms, sent.Average(part => part.Summarize()!.P99Ms));
    }

    [Fact]
    public void MergedFiguresSumTheCountsAndSpanFromTheFirstAgentsStartToTheLastOnesEnd()
    {
        var start = new DateTimeOffset(2026, 11, 23, 6, 0, 0, TimeSpan.Zero);
        var a = Figures(start, TimeSpan.FromSeconds(10), calls: 1000, failed: 10, "OK", 990, "Unavailable", 10);
        var b = Figures(start.AddSeconds(2), TimeSpan.FromSeconds(10), calls: 500, failed: 0, "OK", 500);

        var merged = RunFigures.Merge([a, b]).ToStats(RunPlan.DefaultPercentiles);

        Assert.Equal(1500, merged.Calls);
        Assert.Equal(10, merged.Failed);
        Assert.Equal(1490, merged.Succeeded);
        Assert.Equal(12_000, merged.WallTimeMs);
        Assert.Equal(Math.Round(1490 / 12.0, 4), merged.ThroughputPerSecond);
        Assert.Equal(new Dictionary<string, long> { ["OK"] = 1490, ["Unavailable"] = 10 }, merged.StatusCounts);
        Assert.Equal(2, merged.ConnectionsUsed);
    }

    [Fact]
    public void RunFiguresSurviveTheirJsonUnchanged()
    {
        var figures = Figures(DateTimeOffset.UnixEpoch, TimeSpan.FromSeconds(3), calls: 300, failed: 1, "OK", 299, "DeadlineExceeded", 1);

        var back = JsonSerializer.Deserialize<RunFigures>(JsonSerializer.Serialize(figures, RunJson.Options), RunJson.Options)!;

        Assert.Equal(JsonSerializer.Serialize(figures.ToStats(RunPlan.DefaultPercentiles), RunJson.Options), JsonSerializer.Serialize(back.ToStats(RunPlan.DefaultPercentiles), RunJson.Options));
    }

    [Theory]
    [InlineData(10, 4, new[] { 3, 3, 2, 2 })]
    [InlineData(8, 4, new[] { 2, 2, 2, 2 })]
    [InlineData(5, 1, new[] { 5 })]
    [InlineData(7, 7, new[] { 1, 1, 1, 1, 1, 1, 1 })]
    public void EachAgentRunsItsShareOfTheCountAndTheSharesAddUpToTheWhole(int count, int agents, int[] shares)
    {
        var whole = new RunPlan { Strategy = "factory-client", Count = count, Load = LoadKind.Closed, Concurrency = agents * 2, Warmup = 50 };

        var plans = Enumerable.Range(0, agents).Select(index => AgentShares.Of(whole, new AgentShard(index, agents))).ToList();

        Assert.Equal(shares, plans.Select(plan => plan.Count!.Value));
        Assert.Equal(whole.Concurrency, plans.Sum(plan => plan.Concurrency));
        Assert.All(plans, plan => Assert.Equal(50, plan.Warmup));
        Assert.Equal(Enumerable.Range(0, agents), plans.Select(plan => plan.Shard!.Index));
    }

    [Fact]
    public void AnOpenLoadIsSharedByRateAndEveryRampTarget()
    {
        var open = new RunPlan { Strategy = "factory-client", Load = LoadKind.Ramping, Duration = 10, Rate = 400, Stages = [new RampStage(5, 800)], Concurrency = 100 };

        var share = AgentShares.Of(open, new AgentShard(3, 4));

        Assert.Equal(100, share.Rate);
        Assert.Equal(200, Assert.Single(share.Stages!).Target);
        Assert.Equal(25, share.Concurrency);
        Assert.Null(share.Count);
    }

    [Theory]
    [InlineData("0/4", 0, 4)]
    [InlineData("3/4", 3, 4)]
    [InlineData("4/4", -1, 0)]
    [InlineData("1", -1, 0)]
    [InlineData("-1/4", -1, 0)]
    [InlineData("0/0", -1, 0)]
    [InlineData("a/b", -1, 0)]
    public void AShardIsReadAsIndexFromZeroSlashCount(string text, int index, int count)
    {
        var parsed = AgentShard.TryParse(text, out var shard);

        Assert.Equal(index >= 0, parsed);
        if (parsed)
        {
            Assert.Equal(new AgentShard(index, count), shard);
        }
    }

    [Theory]
    [InlineData(3, 4, "count was 3; with 4 agents it must be at least 4, one call per agent.")]
    [InlineData(100, 65, "agents was 65; it must be between 1 and 64.")]
    [InlineData(100, 4, null)]
    public void APlanThatCannotBeSharedSaysWhy(int count, int agents, string? problem) =>
        Assert.Equal(problem, AgentShares.Problem(new RunPlan { Strategy = "factory-client", Count = count }, agents));

    private static RunFigures Figures(DateTimeOffset from, TimeSpan span, long calls, long failed, params object[] statuses)
    {
        var latency = new LatencyRecorder();
        for (var i = 0; i < calls - failed; i++)
        {
            latency.Record(Stopwatch.Frequency / 1000 * (1 + i % 7));
        }

        var counts = statuses.Chunk(2).ToDictionary(pair => (string)pair[0], pair => Convert.ToInt64(pair[1]));
        return new RunFigures(from, from + span, span.TotalMilliseconds, calls, failed, 3.5, latency.Total(), null, null, counts, 1, calls * 100,
            new ServiceLoadFigures(50, 30, 120, 2), 10, 40, null);
    }

    private static string Json(object? value) => JsonSerializer.Serialize(value, RunJson.Options);

    private static double Gaussian(Random random) =>
        Math.Sqrt(-2 * Math.Log(1 - random.NextDouble())) * Math.Cos(2 * Math.PI * random.NextDouble());
}
