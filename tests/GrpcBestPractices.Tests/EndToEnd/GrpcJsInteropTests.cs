using System.Diagnostics;
using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>
/// grpc-dotnet against an independent implementation in both directions: grpc-js calling our service (the
/// contract, statuses and deadlines as another stack sees them), and every gateway strategy against a grpc-js server.
/// </summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class GrpcJsInteropTests(SystemFixture system)
{
    private static readonly string InteropDirectory = Path.Combine(AppProcess.RepositoryRoot, "tests", "interop");

    [Fact]
    public async Task GrpcJsClientGetsAnswersStatusesAndDeadlinesFromOurService()
    {
        var address = system.Service.BaseAddress.Authority;

        var result = await RunNodeAsync("grpc-js-client.js", address);

        var unary = result.GetProperty("unary");
        Assert.Equal(64, unary.GetProperty("dataLoad1").GetInt32());
        Assert.Equal(64, unary.GetProperty("dataLoad2").GetInt32());
        Assert.False(string.IsNullOrEmpty(unary.GetProperty("connectionId").GetString()));
        Assert.Equal(3, result.GetProperty("invalid").GetProperty("code").GetInt32());
        Assert.Equal("delay_ms was -1; it must be between 0 and 60000.", result.GetProperty("invalid").GetProperty("details").GetString());
        Assert.Equal(4, result.GetProperty("deadline").GetProperty("code").GetInt32());
        Assert.Equal(Enumerable.Range(1, 50), result.GetProperty("stream").GetProperty("received").EnumerateArray().Select(e => e.GetInt32()));
    }

    [Fact]
    public async Task OurGatewayRunsEveryStrategyAgainstAGrpcJsServer()
    {
        await using var server = await NodeServer.StartAsync();
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", server.Url]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(60) };

        foreach (var route in StrategyRouteTests.RouteNames)
        {
            var body = await http.GetStringAsync($"{route}/120");
            var statuses = JsonDocument.Parse(body).RootElement.GetProperty("performanceStatuses");
            Assert.Equal(120, statuses.GetArrayLength());
            Assert.All(statuses.EnumerateArray(), s => Assert.Equal(Enumerable.Repeat((byte)2, 100), s.GetProperty("dataLoad2").GetBytesFromBase64()));
        }
    }

    private static async Task<JsonElement> RunNodeAsync(string script, params string[] arguments)
    {
        var (exitCode, output, errors) = await NodeScript.RunAsync(InteropDirectory, script, TimeSpan.FromSeconds(60), arguments);
        Assert.True(exitCode == 0, $"node {script} exited with {exitCode}: {errors}");
        return JsonDocument.Parse(output).RootElement.Clone();
    }

    public sealed class NodeServer : IAsyncDisposable
    {
        private readonly Process _process;

        private NodeServer(Process process, string url)
        {
            _process = process;
            Url = url;
        }

        public string Url { get; }

        public static async Task<NodeServer> StartAsync()
        {
            var start = new ProcessStartInfo("node", ["grpc-js-server.js"]) { WorkingDirectory = InteropDirectory, RedirectStandardOutput = true };
            var process = TestHostBond.Start(start);
            using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
            var line = await process.StandardOutput.ReadLineAsync(timeout.Token) ?? string.Empty;
            Assert.StartsWith("Now listening on: ", line);
            return new NodeServer(process, line["Now listening on: ".Length..]);
        }

        public async ValueTask DisposeAsync()
        {
            _process.Kill(entireProcessTree: true);
            await _process.WaitForExitAsync();
            _process.Dispose();
        }
    }
}
