using System.ComponentModel.DataAnnotations;
using ApiGateway.Configuration;
using ApiGateway.Runs;


namespace GrpcBestPractices.Tests.Unit;

public sealed class RunPlanTests
{
    private static readonly RunLimitsOptions Limits = new();
    private static readonly string[] Strategies = ["client-wrapper", "single-connection"];

    [Fact]
    public void OnlyStrategyAndCountAreNeededTheRestHasTheChaptersDefaults()
    {
        Assert.True(RunPlanValidator.TryCreate(new RunPlanInput("client-wrapper", "1000"), Limits, Strategies, out var plan, out _));

        Assert.Equal(new RunPlan { Strategy = "client-wrapper", Count = 1000, Concurrency = 1000, Warmup = 0, DelayMs = 0, PayloadBytes = 100, IncludeStatuses = true }, plan);
    }

    [Fact]
    public void AllAtOnceIsCappedAtTheConfiguredConcurrency()
    {
        Assert.True(RunPlanValidator.TryCreate(new RunPlanInput("single-connection", "50000"), Limits, Strategies, out var plan, out _));

        Assert.Equal(Limits.MaxConcurrency, plan.Concurrency);
    }

    [Fact]
    public void EveryValueCanBeSet()
    {
        var input = new RunPlanInput("single-connection", "100", "10", "5", "50", "4096", "false");

        Assert.True(RunPlanValidator.TryCreate(input, Limits, Strategies, out var plan, out _));

        Assert.Equal(new RunPlan { Strategy = "single-connection", Count = 100, Concurrency = 10, Warmup = 5, DelayMs = 50, PayloadBytes = 4096, IncludeStatuses = false }, plan);
    }

    [Theory]
    [InlineData("nope", "5", null, null, null, null, null, "strategy was 'nope'; it must be one of: client-wrapper, single-connection.")]
    [InlineData("client-wrapper", "0", null, null, null, null, null, "count was '0'; it must be a whole number from 1 to 100000.")]
    [InlineData("client-wrapper", " 5", null, null, null, null, null, "count was ' 5'")]
    [InlineData("client-wrapper", "1e3", null, null, null, null, null, "count was '1e3'")]
    [InlineData("client-wrapper", "5", "0", null, null, null, null, "concurrency was '0'; it must be a whole number from 1 to 10000")]
    [InlineData("client-wrapper", "5", null, "-1", null, null, null, "warmup was '-1'; it must be a whole number from 0 to 10000.")]
    [InlineData("client-wrapper", "5", null, null, "60001", null, null, "delayMs was '60001'; it must be a whole number from 0 to 60000.")]
    [InlineData("client-wrapper", "5", null, null, null, "0", null, "payloadBytes was '0'; it must be a whole number from 1 to 1048576.")]
    [InlineData("client-wrapper", "5", null, null, null, null, "yes", "includeStatuses was 'yes'; it must be true or false.")]
    public void InvalidInputIsRefusedSayingWhatIsAllowed(string strategy, string count, string? concurrency, string? warmup, string? delay, string? payload, string? include, string expected)
    {
        var input = new RunPlanInput(strategy, count, concurrency, warmup, delay, payload, include);

        Assert.False(RunPlanValidator.TryCreate(input, Limits, Strategies, out _, out var error));

        Assert.StartsWith(expected, error);
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
}
