using System.ComponentModel.DataAnnotations;
using ApiGateway.Configuration;
using ApiGateway.Runs;

namespace GrpcBestPractices.Tests.Unit;

public sealed class RunPlanTests
{
    [Theory]
    [InlineData("1", null, 1, 0)]
    [InlineData("1000", "50", 1000, 50)]
    [InlineData("100000", "", 100000, 0)]
    public void ValidInputBecomesAPlan(string count, string? delay, int expectedCount, int expectedDelay)
    {
        Assert.True(RunPlan.TryParse(count, delay, 100_000, out var plan, out _));
        Assert.Equal(new RunPlan(expectedCount, expectedDelay), plan);
    }

    [Theory]
    [InlineData("0", null, "count")]
    [InlineData("-3", null, "count")]
    [InlineData(" 5", null, "count")]
    [InlineData("1e3", null, "count")]
    [InlineData("100001", null, "count")]
    [InlineData("5", "-1", "delayMs")]
    [InlineData("5", "60001", "delayMs")]
    public void InvalidInputIsRefusedNamingTheParameter(string count, string? delay, string parameter)
    {
        Assert.False(RunPlan.TryParse(count, delay, 100_000, out _, out var error));
        Assert.StartsWith(parameter + " was", error);
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
