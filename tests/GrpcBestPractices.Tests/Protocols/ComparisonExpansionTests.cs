using LoadEngine;
using LoadEngine.Protocols;

namespace GrpcBestPractices.Tests.Protocols;

/// <summary>A comparison's body turned into its runs' plans, in this process: the defaults, the schedule, and the contenders a gateway can run.</summary>
public sealed class ComparisonExpansionTests
{
    /// <summary>A gateway with the h2c and HTTP/1.1 listeners and no TLS one.</summary>
    private static readonly EngineOptions WithoutTls = new() { Http1Uri = new Uri("http://127.0.0.1:5002") };

    [Fact]
    public void LeftOutTheContendersAreEveryOneThisGatewayCanRunAndTheDefaultsAreThreeRepetitionsAndATenthOfTheCountAsWarmUp()
    {
        var accepted = TryComparison(new PlanText(null, "200") { Workload = "small-mixed" }, out var comparison, out var schedule, out var error);

        Assert.True(accepted, error);
        string[] cleartext = [.. ContenderList.All.Where(contender => contender.Security == WireSecurity.Cleartext).Select(contender => contender.Name)];
        Assert.Equal(cleartext, comparison.Contenders);
        Assert.Equal(PlanExpansion.DefaultRepetitions, comparison.Repetitions);
        Assert.Equal(comparison.Schedule().Select(step => step.Contender), schedule.Select(plan => plan.Strategy));
        Assert.All(schedule, plan => Assert.Equal(("small-mixed", 200, 20), (plan.Workload!.Id, plan.Count, plan.Warmup)));
    }

    [Theory]
    [InlineData("3", null, 1)]
    [InlineData("300", null, 30)]
    [InlineData("5000", null, 100)]
    [InlineData("3", "0", 0)]
    public void TheDefaultWarmUpIsATenthOfTheCountFromOneToAHundredAndAGivenOneIsKept(string count, string? warmup, int expected)
    {
        var input = new PlanText(null, count, Warmup: warmup) { Workload = "big-dto" };

        Assert.True(TryComparison(input, out _, out var schedule, out var error, "grpc-h2-cleartext", "rest-stj-h1-cleartext"), error);

        Assert.All(schedule, plan => Assert.Equal(expected, plan.Warmup));
    }

    [Fact]
    public void AContenderThisGatewayHasNoListenerForIsRefusedNamingTheSettingAndWhatCanRun()
    {
        var refused = !TryComparison(new PlanText(null, null) { Workload = "small-ints" }, out _, out _, out var error, "grpc-h2-cleartext", "grpc-h2-tls");

        Assert.True(refused);
        Assert.StartsWith("grpc-h2-tls calls the service's TLS listener, and Protocols:TlsUrl gives none. The contenders that can run small-ints with these settings on this gateway: grpc-h2-cleartext, grpc-code-first-h2-cleartext, rest-stj-h1-cleartext,", error);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(11)]
    public void RepetitionsAreFromOneToTen(int repetitions)
    {
        Assert.False(PlanExpansion.TryComparison(
            new PlanText(null, "10") { Workload = "small-ints" }.Read(PlanLimits.Defaults), null, repetitions, PlanLimits.Defaults, WithoutTls, out _, out _, out var error));

        Assert.Equal($"repetitions was '{repetitions}'; it must be a whole number from 1 to 10 (each repetition runs every contender once).", error);
    }

    private static bool TryComparison(PlanText input, out ComparisonPlan comparison, out IReadOnlyList<RunPlan> schedule, out string error, params string[] contenders) =>
        PlanExpansion.TryComparison(
            input.Read(PlanLimits.Defaults), contenders.Length == 0 ? null : contenders, null, PlanLimits.Defaults, WithoutTls, out comparison, out schedule, out error);
}
