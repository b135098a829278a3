using ApiGateway.Configuration;
using ApiGateway.Endpoints;
using ApiGateway.Errors;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>What a plan may hold: each bound refused by name, before the rules read the value, and quoted only in part.</summary>
public sealed class InputBoundsTests
{
    private static readonly PlanLimits Limits = new RunLimitsOptions().PlanLimits();

    // Built in the test, not in the data: xUnit would print a million characters as the test's name.
    private static PlanText Beyond(string what) => what switch
    {
        "a threshold's text" => new PlanText("client-wrapper", "10") { Thresholds = ["p99" + new string(' ', 1_450_000) + "< 5ms"] },
        "a threshold too many" => new PlanText("client-wrapper", "10") { Thresholds = [.. Enumerable.Repeat("p99 < 5ms", 21)] },
        "a percentile of a million nines" => new PlanText("client-wrapper", "10") { Percentiles = "99." + new string('9', 1_000_000) },
        "ten thousand percentiles" => new PlanText("client-wrapper", "10") { Percentiles = string.Join(',', Enumerable.Repeat("50", 10_000)) },
        "ten thousand stages" => new PlanText("client-wrapper", null) { Load = "ramping", Stages = string.Join(',', Enumerable.Repeat("1:10", 10_000)) },
        "a strategy's name" => new PlanText(new string('x', 100_000), "10"),
        "a number" => new PlanText("client-wrapper", new string('9', 65)),
        _ => throw new ArgumentOutOfRangeException(nameof(what)),
    };

    [Theory]
    [InlineData("a threshold's text", "thresholds[0] is 1,450,008 characters long; at most 100 are allowed.")]
    [InlineData("a threshold too many", "thresholds holds 21 items; at most 20 are allowed")]
    [InlineData("a percentile of a million nines", "percentiles[0] is 1,000,003 characters long; at most 64 are allowed.")]
    [InlineData("ten thousand percentiles", "percentiles holds 10,000 items; at most 20 are allowed")]
    [InlineData("ten thousand stages", "stages holds 10,000 items; at most 100 are allowed")]
    [InlineData("a strategy's name", "strategy is 100,000 characters long; at most 64 are allowed.")]
    [InlineData("a number", "count is 65 characters long; at most 64 are allowed.")]
    public void AValueBeyondItsBoundIsRefusedNamingTheFieldTheBoundAndOnlyItsStart(string what, string expected)
    {
        Assert.False(PlanText.TryCreate(Beyond(what), Limits, ["client-wrapper"], out _, out var error), what);

        Assert.True(error.StartsWith(expected, StringComparison.Ordinal), $"{what}: {Excerpt.Of(error, 300)}");
        Assert.True(error.Length < 400, $"{what}: the sentence is {error.Length} characters long: {Excerpt.Of(error, 300)}");
    }

    [Fact]
    public void APlanAtEveryBoundIsAccepted()
    {
        var input = new PlanText("client-wrapper", null)
        {
            Load = "ramping",
            Stages = string.Join(',', Enumerable.Repeat("1:10", PlanLimits.MaxStages)),
            Percentiles = string.Join(',', Enumerable.Range(1, PlanLimits.MaxPercentiles).Select(percentile => (percentile * 4.5).ToString(System.Globalization.CultureInfo.InvariantCulture))),
            Thresholds = [.. Enumerable.Range(0, InputBounds.MaxThresholds).Select(index => $"p{50 + index} < {index + 1}ms" + new string(' ', InputBounds.MaxThresholdLength - 6 - $"{50 + index}{index + 1}".Length))],
        };
        Assert.All(input.Thresholds!, threshold => Assert.Equal(InputBounds.MaxThresholdLength, threshold.Length));

        Assert.True(PlanText.TryCreate(input, Limits, ["client-wrapper"], out var plan, out var error), error);
        Assert.Equal(InputBounds.MaxThresholds, plan.Thresholds.Count);
    }

    [Theory]
    [InlineData(32, true)]
    [InlineData(33, false)]
    public void AListOfNamesHoldsAtMostItsBound(int count, bool fits)
    {
        var names = Enumerable.Range(0, count).Select(index => $"strategy-{index}").ToList();

        Assert.Equal(fits, InputBounds.Names("strategies", names) is null);
    }

    [Fact]
    public void AnExcerptIsTheTextWhenShortAndItsStartMarkedAsCutWhenLong()
    {
        Assert.Equal("p99 < 5ms", Excerpt.Of("p99 < 5ms"));

        var cut = Excerpt.Of(new string('a', 10_000));

        Assert.Equal(new string('a', InputBounds.MaxExcerpt) + "… (cut; 10,000 characters in all)", cut);
    }

    [Fact]
    public void AProblemSentenceIsNeverLongerThanItsBoundAndKeepsItsEnd()
    {
        var sentence = "strategy was '" + new string('x', 50_000) + "'; it must be one of: client-wrapper, streaming-call.";

        var bounded = ProblemResponses.Bounded(sentence);

        Assert.True(bounded.Length <= ProblemResponses.MaxDetailLength + 80, $"{bounded.Length} characters");
        Assert.Contains("characters left out", bounded);
        Assert.EndsWith("it must be one of: client-wrapper, streaming-call.", bounded);
        Assert.Equal("short", ProblemResponses.Bounded("short"));
    }
}
