using LoadEngine;
using LoadEngine.Protocols;
using LoadEngine.Strategies;
using LoadEngine.Targets.Described;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>The one expansion of a plan into a suite, a comparison, a list of contenders and the strategies that fit a described method, which the gateway and the CLI share.</summary>
public sealed class PlanExpansionTests
{
    private static readonly DescribedTarget Monitor = DescribedTarget.FromGenerated([Performance.PerformanceReflection.Descriptor]);

    private const string Unary = "performance.Monitor/GetPerformance";
    private const string Bidirectional = "performance.Monitor/GetManyPerformanceStats";

    [Fact]
    public void ASuiteOfEveryStrategyIsOnePlanPerStrategyFromTheSameSettings()
    {
        Assert.True(PlanExpansion.TrySuite(Input("20"), null, PlanLimits.Defaults, out var plans, out var error), error);

        Assert.Equal(StrategyList.Names, plans.Select(plan => plan.Strategy));
        Assert.All(plans, plan => Assert.Equal(20, plan.Count));
    }

    [Theory]
    [InlineData("no-such-strategy", "; 'no-such-strategy' is not one.")]
    [InlineData("factory-client,factory-client", ".")]
    public void ASuiteNamingAStrategyTwiceOrOneThatIsNotIsRefusedListingThem(string named, string ending)
    {
        Assert.False(PlanExpansion.TrySuite(Input("20"), named.Split(','), PlanLimits.Defaults, out var plans, out var error));

        Assert.Empty(plans);
        Assert.Equal($"strategies must name each strategy at most once, from: {string.Join(", ", StrategyList.Names)}{ending}", error);
    }

    [Fact]
    public void AProblemEveryStrategyHasIsSaidOnceAndOneOfSomeNamesTheFirst()
    {
        var limits = PlanLimits.Defaults with { MaxCount = 10 };
        Assert.False(PlanExpansion.TrySuite(Input("20"), null, limits, out _, out var shared));
        Assert.False(PlanExpansion.TrySuite(new PlanText(null, "20") { Rate = "50" }.Read(PlanLimits.Defaults), null, PlanLimits.Defaults, out _, out var some));

        Assert.DoesNotContain("For ", shared);
        Assert.Contains("count", shared);
        Assert.StartsWith($"For {StrategyList.Names[0]}: ", some);
    }

    [Fact]
    public void AComparisonNeedsAWorkload()
    {
        Assert.False(PlanExpansion.TryComparison(Input("20"), null, 1, PlanLimits.Defaults, new EngineOptions(), out _, out _, out var error));

        Assert.Equal($"A comparison needs a workload: one of {string.Join(", ", WorkloadList.Ids)}.", error);
    }

    [Fact]
    public void EveryContenderIsThoseTheWorkloadsSettingsAllowAndANamedOneTheyRefuseIsNamed()
    {
        var stream = new PlanText(null, null) { Workload = "bulk-read", Variant = "stream", Users = "5000" }.Read(PlanLimits.Defaults);
        var rest = ContenderList.All.First(contender => contender.Protocol == ApiProtocol.Rest).Name;

        Assert.True(PlanExpansion.TryContenders(stream, null, PlanLimits.Defaults, out var every, out var error), error);
        Assert.False(PlanExpansion.TryContenders(stream, ["grpc-h2-cleartext", rest], PlanLimits.Defaults, out var refused, out var named));

        Assert.NotEmpty(every);
        Assert.All(every, plan => Assert.NotEqual(ApiProtocol.Rest, plan.Workload!.Contender!.Protocol));
        Assert.Empty(refused);
        Assert.StartsWith($"For {rest}: ", named);
    }

    [Fact]
    public void ASuiteOfEveryStrategyOnAUnaryMethodLeavesOutTheStreamingCallWithANoteAndCarriesTheDescriptors()
    {
        var plans = Suite(Unary, null);

        Assert.True(PlanExpansion.TryFit(plans, Monitor, strategiesAsked: false, out var fitted, out var notes, out var error), error);

        Assert.Equal(plans.Count - 1, fitted.Count);
        Assert.DoesNotContain(fitted, plan => plan.Strategy == "streaming-call");
        Assert.All(fitted, plan => Assert.Equal(Monitor.Hash, plan.Described?.DescriptorSet));
        Assert.Equal([$"streaming-call left out: streaming-call carries every call as a message on one bidirectional stream, and {Unary} is unary: name a bidirectional method, or another strategy."], notes);
    }

    [Fact]
    public void AStrategyAskedForThatCannotCallTheMethodIsRefusedNamedWhenThereAreSeveral()
    {
        Assert.False(PlanExpansion.TryFit(Suite(Unary, ["factory-client", "streaming-call"]), Monitor, strategiesAsked: true, out _, out _, out var several));
        Assert.False(PlanExpansion.TryFit(Suite(Unary, ["streaming-call"]), Monitor, strategiesAsked: true, out _, out _, out var alone));

        Assert.Equal($"For streaming-call: {alone}", several);
        Assert.StartsWith("streaming-call carries every call", alone);
        Assert.True(PlanExpansion.TryFit(Suite(Bidirectional, ["streaming-call"]), Monitor, strategiesAsked: true, out _, out _, out var error), error);
    }

    [Fact]
    public void AMethodTheTargetLacksOrDataThatDoesNotFitIsSaidOnceForEveryPlan()
    {
        Assert.False(PlanExpansion.TryFit(Suite("performance.Monitor/NoSuchMethod", null), Monitor, strategiesAsked: false, out _, out _, out var unknown));
        Assert.False(PlanExpansion.TryFit(Suite(Unary, null, """{"noSuchField": 1}"""), Monitor, strategiesAsked: false, out _, out _, out var misfit));

        Assert.Contains("NoSuchMethod", unknown);
        Assert.Contains("noSuchField", misfit);
        Assert.DoesNotContain("For ", unknown + misfit);
    }

    [Fact]
    public void PlansThatCallNoDescribedMethodAreLeftAsTheyAre()
    {
        Assert.True(PlanExpansion.TrySuite(Input("20"), null, PlanLimits.Defaults, out var plans, out _));

        Assert.True(PlanExpansion.TryFit(plans, Monitor, strategiesAsked: false, out var fitted, out var notes, out _));

        Assert.Same(plans, fitted);
        Assert.Empty(notes);
    }

    private static RunPlanInput Input(string count) => new PlanText(null, count).Read(PlanLimits.Defaults);

    private static IReadOnlyList<RunPlan> Suite(string call, IReadOnlyList<string>? strategies, string data = "{}") =>
        PlanExpansion.TrySuite(Input("20") with { Call = call, Data = data }, strategies, PlanLimits.Defaults, out var plans, out var error)
            ? plans
            : throw new InvalidOperationException(error);
}
