using ApiGateway.Comparisons;
using ApiGateway.Endpoints;
using LoadEngine;
using LoadEngine.Protocols;

namespace GrpcBestPractices.Tests.Protocols;

/// <summary>A comparison's body turned into its runs' plans, in this process: the defaults, the schedule, and the contenders a gateway can run.</summary>
public sealed class ComparisonRulesTests
{
    /// <summary>A gateway with the h2c and HTTP/1.1 listeners and no TLS one.</summary>
    private static readonly EngineOptions WithoutTls = new() { Http1Uri = new Uri("http://127.0.0.1:5002") };

    [Fact]
    public void LeftOutTheContendersAreEveryOneThisGatewayCanRunAndTheDefaultsAreThreeRepetitionsAndATenthOfTheCountAsWarmUp()
    {
        var accepted = ComparisonRules.TryCreate(Request(new PlanText(null, "200") { Workload = "small-mixed" }), PlanLimits.Defaults, WithoutTls, out var comparison, out var error);

        Assert.True(accepted, error);
        string[] cleartext = [.. ContenderList.All.Where(contender => contender.Security == WireSecurity.Cleartext).Select(contender => contender.Name)];
        Assert.Equal(cleartext, comparison.Comparison.Contenders);
        Assert.Equal(ComparisonRules.DefaultRepetitions, comparison.Comparison.Repetitions);
        Assert.Equal(comparison.Comparison.Schedule().Select(step => step.Contender), comparison.Schedule.Select(plan => plan.Strategy));
        Assert.All(comparison.Schedule, plan => Assert.Equal(("small-mixed", 200, 20), (plan.Workload!.Id, plan.Count, plan.Warmup)));
    }

    [Theory]
    [InlineData("3", null, 1)]
    [InlineData("300", null, 30)]
    [InlineData("5000", null, 100)]
    [InlineData("3", "0", 0)]
    public void TheDefaultWarmUpIsATenthOfTheCountFromOneToAHundredAndAGivenOneIsKept(string count, string? warmup, int expected)
    {
        var input = new PlanText(null, count, Warmup: warmup) { Workload = "big-dto" };

        Assert.True(ComparisonRules.TryCreate(Request(input, "grpc-h2-cleartext", "rest-stj-h1-cleartext"), PlanLimits.Defaults, WithoutTls, out var comparison, out var error), error);

        Assert.All(comparison.Schedule, plan => Assert.Equal(expected, plan.Warmup));
    }

    [Fact]
    public void AContenderThisGatewayHasNoListenerForIsRefusedNamingTheSettingAndWhatCanRun()
    {
        var refused = !ComparisonRules.TryCreate(
            Request(new PlanText(null, null) { Workload = "small-ints" }, "grpc-h2-cleartext", "grpc-h2-tls"), PlanLimits.Defaults, WithoutTls, out _, out var error);

        Assert.True(refused);
        Assert.StartsWith("grpc-h2-tls calls the service's TLS listener, and Protocols:TlsUrl gives none. The contenders that can run small-ints with these settings on this gateway: grpc-h2-cleartext, grpc-code-first-h2-cleartext, rest-stj-h1-cleartext,", error);
    }

    private static RunRequestReader.RunRequest Request(PlanText input, params string[] contenders) =>
        new(input.Read(PlanLimits.Defaults), contenders.Length == 0 ? null : contenders, null);
}
