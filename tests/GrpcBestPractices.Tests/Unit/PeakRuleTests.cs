using ApiGateway.Runs;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>Issue 20, item 6: when the gateway gives memory back: once a peak is over, never while work goes on, never for a small growth.</summary>
public sealed class PeakRuleTests
{
    private const long MiB = PeakRule.MiB;

    [Fact]
    public void AfterAPeakItCollectsOnceTheGatewayHasBeenQuietForFiveSecondsAndThenNotAgain()
    {
        var rule = new PeakRule(allocated: 0, committed: 30 * MiB);
        var allocated = 0L;
        // The peak: work allocates hundreds of MiB a second and the GC's heap grows to 400 MiB.
        for (var second = 0; second < 60; second++)
        {
            allocated += 300 * MiB;
            Assert.False(rule.IsOver(allocated, 400 * MiB, idle: false), $"second {second} of the peak");
        }

        var quietSeconds = Enumerable.Range(1, 10).First(_ => rule.IsOver(allocated += MiB / 2, 400 * MiB, idle: true));
        rule.Collected(allocated, 40 * MiB);

        Assert.Equal(PeakRule.QuietSeconds, quietSeconds);
        Assert.All(Enumerable.Range(0, 120), _ => Assert.False(rule.IsOver(allocated += MiB / 2, 40 * MiB, idle: true)));
    }

    [Fact]
    public void AGatewayStillWritingALargeAnswerIsNotPaused()
    {
        var rule = new PeakRule(allocated: 0, committed: 30 * MiB);

        var collections = Enumerable.Range(1, 600).Count(second => rule.IsOver(second * 2 * MiB, 2000 * MiB, idle: true));

        Assert.Equal(0, collections);
    }

    [Fact]
    public void AQuietRunIsNeverPausedEither()
    {
        var rule = new PeakRule(allocated: 0, committed: 30 * MiB);

        // A run of one call a second allocates next to nothing, and its calls' latencies must not take the pause.
        var collections = Enumerable.Range(1, 600).Count(_ => rule.IsOver(0, 2000 * MiB, idle: false));

        Assert.Equal(0, collections);
    }

    [Fact]
    public void AGrowthUnder64MiBIsNotWorthAPause()
    {
        var rule = new PeakRule(allocated: 0, committed: 30 * MiB);

        var collections = Enumerable.Range(1, 600).Count(_ => rule.IsOver(0, 93 * MiB, idle: true));

        Assert.Equal(0, collections);
    }

    [Fact]
    public void GrowthCountsFromTheSmallestHeapSeenSoTheGcsOwnShrinkingDoesNotHideAPeak()
    {
        var rule = new PeakRule(allocated: 0, committed: 200 * MiB);
        Assert.False(rule.IsOver(0, 20 * MiB, idle: true));

        var over = Enumerable.Range(1, 10).Any(_ => rule.IsOver(0, 100 * MiB, idle: true));

        Assert.True(over);
    }
}
