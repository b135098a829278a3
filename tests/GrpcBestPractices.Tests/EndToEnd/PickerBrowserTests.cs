using GrpcBestPractices.Tests.Infrastructure;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>
/// How far the run panel's target and method picker reaches, in a real browser (tests/browser/picker.mjs): a gateway
/// whose second target is the grpc-js Monitor server; the pick survives a reload, the lessons run on it or say why they
/// cannot, a suite on its unary method says why streaming-call was left out and what its headline ranks by, a refusal's
/// sentence shows once, and a run whose every call failed plots 0 calls/s.
/// </summary>
[Trait("Category", "Process")]
public sealed class PickerBrowserTests(ITestOutputHelper output)
{
    [Fact]
    public async Task TheLessonsRunWhereThePickerPointsAndThePickSurvivesAReload()
    {
        await using var service = await AppProcess.StartAsync("PerformanceService");
        await using var node = await GrpcJsInteropTests.NodeServer.StartAsync();
        var proto = Path.Combine(AppProcess.RepositoryRoot, "GrpcDependencies", "Protos", "performance.proto");
        await using var gateway = await AppProcess.StartAsync("ApiGateway",
            [.. await SystemFixture.GatewayArgumentsAsync(service), "--Targets:grpcjs:Address", node.Url, "--Targets:grpcjs:Proto", proto]);

        var result = await BrowserScript.RunAsync(output, "picker.mjs", TimeSpan.FromMinutes(6), gateway.Url, BrowserScript.Screenshots, "grpcjs", "240");

        Assert.Empty(result.GetProperty("foreignRequests").EnumerateArray());
        // The data the script made the gateway refuse (a 400) and the run whose every call failed are the only errors shown.
        Assert.All(result.GetProperty("consoleErrors").EnumerateArray().Select(error => error.GetString()),
            error => Assert.True(error!.Contains("status of 400", StringComparison.Ordinal) || error.Contains("No call succeeded", StringComparison.Ordinal), error));
        output.WriteLine($"Headline: {result.GetProperty("headline").GetString()}");
        output.WriteLine($"Left out: {result.GetProperty("missing").GetString()}");
        output.WriteLine($"Screenshots in {BrowserScript.Screenshots}");
    }
}
