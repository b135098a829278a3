using System.ComponentModel.DataAnnotations;
using System.Text.Json;
using ApiGateway.Configuration;
using ApiGateway.Endpoints;

namespace GrpcBestPractices.Tests.Unit;

public sealed class RunPlanTests
{
    private static readonly PlanLimits Limits = new RunLimitsOptions().PlanLimits();
    private static readonly string[] Strategies = ["client-wrapper", "single-connection", "streaming-call"];

    [Fact]
    public void OnlyStrategyAndCountAreNeededTheRestHasTheChaptersDefaults()
    {
        var plan = Create(new PlanText("client-wrapper", "1000"));

        AssertSame(new RunPlan { Strategy = "client-wrapper", Load = LoadKind.Sequential, Count = 1000, Concurrency = 1, IncludeStatuses = true }, plan);
    }

    [Fact]
    public void EachStrategyRunsUnderItsOwnLoadUnlessOneIsNamed()
    {
        Assert.Equal(LoadKind.Sequential, Create(new PlanText("client-wrapper", "10")).Load);
        Assert.Equal(LoadKind.Closed, Create(new PlanText("single-connection", "10")).Load);
        Assert.Equal(LoadKind.Closed, Create(new PlanText("streaming-call", "10")).Load);
        Assert.Equal(LoadKind.Closed, Create(new PlanText("client-wrapper", "10", "4") { Load = "closed" }).Load);
    }

    [Fact]
    public void AllAtOnceIsCappedAtTheConfiguredConcurrency()
    {
        Assert.Equal(Limits.MaxConcurrency, Create(new PlanText("single-connection", "50000")).Concurrency);
    }

    [Fact]
    public void EveryValueCanBeSetAndAPercentileAThresholdJudgesIsReported()
    {
        var plan = Create(new PlanText("single-connection", "100", "10", "5", "50", "4096", "false") { Percentiles = "99.9,50", Thresholds = ["p99 < 5ms"] });

        AssertSame(new RunPlan
        {
            Strategy = "single-connection", Load = LoadKind.Closed, Count = 100, Concurrency = 10, Warmup = 5, Called = new BuiltInCall(50, 4096),
            IncludeStatuses = false, Percentiles = [50, 99, 99.9], Thresholds = ["p99 < 5ms"],
        }, plan);
    }

    [Fact]
    public void AnOpenLoadRunsAtARateForADuration()
    {
        var plan = Create(new PlanText("single-connection", null) { Load = "open", Rate = "2500", Duration = "10" });

        AssertSame(new RunPlan { Strategy = "single-connection", Load = LoadKind.Open, Rate = 2500, Duration = 10, Concurrency = PlanLimits.DefaultArrivalInFlight }, plan);
    }

    [Fact]
    public void ARampingLoadMovesThroughItsStages()
    {
        var plan = Create(new PlanText("single-connection", null) { Load = "ramping", Stages = "10:5000, 20:5000" });

        Assert.Equal(LoadKind.Ramping, plan.Load);
        Assert.Equal([new RampStage(10, 5000), new RampStage(20, 5000)], plan.Stages!);
        Assert.False(plan.IncludeStatuses);
    }

    [Theory]
    [InlineData("nope", "5", null, null, null, null, null, "strategy was 'nope'; it must be one of: client-wrapper, single-connection, streaming-call.")]
    [InlineData("client-wrapper", "0", null, null, null, null, null, "count was '0'; it must be a whole number from 1 to 100000.")]
    [InlineData("client-wrapper", " 5", null, null, null, null, null, "count was ' 5'")]
    [InlineData("client-wrapper", "1e3", null, null, null, null, null, "count was '1e3'")]
    [InlineData("single-connection", "5", "0", null, null, null, null, "concurrency was '0'; it must be a whole number from 1 to 10000")]
    [InlineData("client-wrapper", "5", null, "-1", null, null, null, "warmup was '-1'; it must be a whole number from 0 to 10000.")]
    [InlineData("client-wrapper", "5", null, null, "60001", null, null, "delayMs was '60001'; it must be a whole number from 0 to 60000.")]
    [InlineData("client-wrapper", "5", null, null, null, "0", null, "payloadBytes was '0'; it must be a whole number from 1 to 1048576.")]
    [InlineData("client-wrapper", "5", null, null, null, null, "yes", "includeStatuses was 'yes'; it must be true or false.")]
    public void InvalidInputIsRefusedSayingWhatIsAllowed(string strategy, string count, string? concurrency, string? warmup, string? delay, string? payload, string? include, string expected)
    {
        var input = new PlanText(strategy, count, concurrency, warmup, delay, payload, include);

        Assert.False(PlanText.TryCreate(input, Limits, Strategies, out _, out var error));

        Assert.StartsWith(expected, error);
    }

    [Theory]
    [InlineData("fast", null, null, null, null, "load was 'fast'; it must be one of: sequential, closed, open, ramping.")]
    [InlineData("1", null, null, null, null, "load was '1'")]
    [InlineData("open", null, "10", null, null, "An open run needs a rate")]
    [InlineData("open", "0", "10", null, null, "rate was '0'; it must be a number of calls per second from 0.001")]
    [InlineData("open", "1000", null, null, null, "An open run needs a count (calls) or a duration (seconds)")]
    [InlineData("open", "1000", "601", null, null, "duration was '601'; it must be a number of seconds from 0.1 to 600 (Runs:MaxRunSeconds).")]
    [InlineData("closed", "1000", "10", null, null, "rate applies only to the open and ramping loads; load was 'closed'.")]
    [InlineData("ramping", null, null, null, null, "A ramping run needs stages")]
    [InlineData("ramping", null, null, "10:5000,soon", null, "stages was '10:5000,soon'; 'soon' is not a stage.")]
    [InlineData("ramping", null, null, "400:10,400:10", null, "stages was '400:10,400:10'; at most 100 stages lasting at most 600 s in all")]
    [InlineData("open", "100", "10", "10:50", null, "stages applies only to the ramping load; load was 'open'.")]
    [InlineData("closed", null, "10", null, null, "A closed run bounded by its duration needs a concurrency")]
    [InlineData("closed", null, null, null, "0,50", "percentiles was '0,50'; '0' is not a percentile.")]
    public void InvalidLoadSettingsAreRefusedSayingWhatIsAllowed(string load, string? rate, string? duration, string? stages, string? percentiles, string expected)
    {
        var input = new PlanText("single-connection", load == "closed" && duration is null && percentiles is not null ? "10" : null)
        {
            Load = load, Rate = rate, Duration = duration, Stages = stages, Percentiles = percentiles,
        };

        Assert.False(PlanText.TryCreate(input, Limits, Strategies, out _, out var error));

        Assert.StartsWith(expected, error);
    }

    [Fact]
    public void ConcurrencyOnANamedLoadThatHasNoUseForItIsRefused()
    {
        var input = new PlanText("single-connection", "100", "10") { Load = "sequential" };

        Assert.False(PlanText.TryCreate(input, Limits, Strategies, out _, out var error));

        Assert.Equal("concurrency applies only with load=closed|open|ramping (calls in flight; under an arrival rate, the most in flight); load was 'sequential', " +
            "where each call waits for the previous answer, so it would do nothing. Leave it out, or name a load that uses it, e.g. load=closed.", error);
    }

    [Fact]
    public void ConcurrencyOnAStrategyThatRunsSequentiallyByItselfIsRefused()
    {
        Assert.False(PlanText.TryCreate(new PlanText("client-wrapper", "100", "10"), Limits, Strategies, out _, out var error));

        Assert.StartsWith("concurrency applies only with load=closed|open|ramping (calls in flight; under an arrival rate, the most in flight); " +
            "left out, this run's load is its own, sequential,", error);
    }

    [Fact]
    public void ConcurrencySharedWithStrategiesThatUseItIsLeftAsideByASequentialOneButStillChecked()
    {
        var shared = new PlanText("client-wrapper", "100", "10") { SharedBy = ["client-wrapper", "single-connection"] };

        Assert.Equal(1, Create(shared).Concurrency);
        Assert.Equal(10, Create(shared with { Strategy = "single-connection" }).Concurrency);
        Assert.False(PlanText.TryCreate(shared with { Concurrency = "0" }, Limits, Strategies, out _, out var error));
        Assert.StartsWith("concurrency was '0'", error);
        // Shared only by strategies that run sequentially, it would do nothing for any of them.
        Assert.False(PlanText.TryCreate(shared with { SharedBy = ["client-wrapper"] }, Limits, Strategies, out _, out _));
    }

    [Fact]
    public void AnArrivalRateKeepsAtMostItsConcurrencyInFlightAThousandUnlessNamed()
    {
        Assert.Equal(PlanLimits.DefaultArrivalInFlight, Create(new PlanText("single-connection", null) { Load = "open", Rate = "100", Duration = "1" }).Concurrency);
        Assert.Equal(8, Create(new PlanText("single-connection", null, "8") { Load = "ramping", Stages = "1:100" }).Concurrency);
    }

    [Fact]
    public void StatusesNeedACount()
    {
        var input = new PlanText("single-connection", null, "10", IncludeStatuses: "true") { Duration = "5" };

        Assert.False(PlanText.TryCreate(input, Limits, Strategies, out _, out var error));

        Assert.StartsWith("includeStatuses needs a count", error);
    }

    [Theory]
    [InlineData("http://127.0.0.1:5000", true)]
    [InlineData("https://localhost:5001", true)]
    [InlineData("http://127.0.0.1:5000/some/path", false)]
    [InlineData("127.0.0.1:5000", false)]
    [InlineData("ftp://127.0.0.1", false)]
    public void ServerUrlMustBeAnAbsoluteHttpAddress(string serverUrl, bool valid)
    {
        var options = new GatewayOptions { ServerUrl = serverUrl };
        var results = new List<ValidationResult>();

        Assert.Equal(valid, Validator.TryValidateObject(options, new ValidationContext(options), results, validateAllProperties: true));
        Assert.All(results, result => Assert.Contains("ServerUrl", result.ErrorMessage));
    }

    private static RunPlan Create(PlanText input)
    {
        Assert.True(PlanText.TryCreate(input, Limits, Strategies, out var plan, out var error), error);
        return plan;
    }

    // Plans hold lists, which records compare by reference: compare what the API would write instead.
    private static void AssertSame(RunPlan expected, RunPlan actual) =>
        Assert.Equal(JsonSerializer.Serialize(expected, RunJson.Options), JsonSerializer.Serialize(actual, RunJson.Options));
}
