using GrpcBestPractices.Tests.Infrastructure;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>
/// The run form's target and method picker in a real browser (tests/browser/targets.mjs): a gateway whose second target
/// is the grpc-js Monitor server, described by performance.proto; the page picks its method, edits the request, is
/// refused for JSON that does not parse or fit, runs it, and keeps its run apart from the built-in service's.
/// </summary>
[Trait("Category", "Process")]
public sealed class TargetsBrowserTests(ITestOutputHelper output)
{
    [Fact]
    public async Task ThePagePicksASecondTargetsMethodEditsItsRequestAndKeepsItsRunsApart()
    {
        await using var service = await AppProcess.StartAsync("PerformanceService");
        await using var node = await GrpcJsInteropTests.NodeServer.StartAsync();
        var proto = Path.Combine(AppProcess.RepositoryRoot, "GrpcDependencies", "Protos", "performance.proto");
        await using var gateway = await AppProcess.StartAsync("ApiGateway",
            [.. await SystemFixture.GatewayArgumentsAsync(service), "--Targets:grpcjs:Address", node.Url, "--Targets:grpcjs:Proto", proto]);

        var result = await BrowserScript.RunAsync(output, "targets.mjs", TimeSpan.FromSeconds(180), gateway.Url, BrowserScript.Screenshots, "grpcjs", "30", "90");

        // The one 400 the script asks for (data that does not fit) is the only error the console shows.
        Assert.Equal(["Failed to load resource: the server responded with a status of 400 (Bad Request)"], result.GetProperty("consoleErrors").EnumerateArray().Select(error => error.GetString()));
        Assert.Empty(result.GetProperty("foreignRequests").EnumerateArray());
        Assert.Contains("delayMs", result.GetProperty("dataProblem").GetString());
        output.WriteLine($"Screenshots in {BrowserScript.Screenshots}; page open to targets shown: {result.GetProperty("targetsShownMs").GetInt32()} ms");
    }
}
