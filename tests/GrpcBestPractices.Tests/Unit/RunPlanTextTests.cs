using LoadEngine.Protocols;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>A query string's or the command line's values bind as a body does: each text read into its type, or refused with a sentence naming the field.</summary>
public sealed class RunPlanTextTests
{
    [Fact]
    public void QueryTextBindsToTheSameTypedInputAsABodyWhateverTheCaseOfItsNames()
    {
        var values = new Dictionary<string, string?> { ["COUNT"] = "100", ["load"] = "Ramping", ["stages"] = "10:5000, 20:5000", ["percentiles"] = "p50,99.9", ["httpVersion"] = "2", ["warmup"] = "" };

        Assert.True(PlanText.TryBind(values, ["p99 < 5ms"], PlanLimits.Defaults, out var input, out var error), error);

        Assert.Equal((100, LoadKind.Ramping, WireVersion.Http2, (int?)null), (input.Count, input.Load, input.HttpVersion, input.Warmup));
        Assert.Equal([new RampStage(10, 5000), new RampStage(20, 5000)], input.Stages!);
        Assert.Equal([50, 99.9], input.Percentiles!);
        Assert.Equal(["p99 < 5ms"], input.Thresholds!);
    }

    [Theory]
    [InlineData("count", "ten", "count was 'ten'; it must be a whole number from 1 to 100000.")]
    [InlineData("rate", "fast", "rate was 'fast'; it must be a number of calls per second from 0.001 to 1000000.")]
    [InlineData("includeStatuses", "maybe", "includeStatuses was 'maybe'; it must be true or false.")]
    [InlineData("stages", "10:5000,x", "stages was '10:5000,x'; 'x' is not a stage.")]
    [InlineData("percentiles", "50,,99", "percentiles was '50,,99'; '' is not a percentile.")]
    public void TextThatDoesNotReadAsItsTypeIsRefusedNamingTheFieldAndWhatIsAllowed(string field, string text, string expected)
    {
        Assert.False(PlanText.TryBind(new Dictionary<string, string?> { [field] = text }, null, PlanLimits.Defaults, out _, out var error));

        Assert.StartsWith(expected, error);
    }

    [Fact]
    public void ThresholdsAreBoundedOneByOneNotAsTheQueryJoinsThem()
    {
        var thresholds = Enumerable.Repeat("p99.9 < 100ms", 6).ToList();
        var values = new Dictionary<string, string?> { ["count"] = "10", ["thresholds"] = string.Join(',', thresholds) };

        Assert.True(PlanText.TryBind(values, thresholds, PlanLimits.Defaults, out var input, out var error), error);
        Assert.Equal(6, input.Thresholds!.Count);
    }
}
