using System.Net;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>
/// Each test that breaks a gateway or service starts its own, so it harms no other; a test that only needs a gateway of its
/// own points it at the collection's service, and those that only ask a gateway whose service is gone share one.
/// </summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class FaultTests(SystemFixture system, StoppedService stopped) : IClassFixture<StoppedService>
{
    [Theory]
    [MemberData(nameof(StrategyRouteTests.Routes), MemberType = typeof(StrategyRouteTests))]
    public Task StoppedServiceGivesA503NamingTheConfiguredAddressWithinSeconds(string route) =>
        stopped.AssertAnswers503NamingTheAddressWithinSecondsAsync($"{route}/50");

    [Fact]
    public async Task ServiceThatDiesMidwayIsReportedAsAFailureNotAsAShorterRun()
    {
        await using var service = await AppProcess.StartAsync("PerformanceService");
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", service.Url]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(30) };

        var run = http.GetAsync("/Performance/client-wrapper/200?delayMs=20");
        await http.WaitForRunningProgressAsync(calls: 10);
        await service.DisposeAsync();
        using var response = await run;

        Assert.Equal(HttpStatusCode.ServiceUnavailable, response.StatusCode);
        var problem = await SystemFixture.ReadProblemAsync(response);
        var completed = problem.GetProperty("completedCalls").GetInt32();
        Assert.InRange(completed, 1, 199);
    }

    [Fact]
    public async Task SlowServiceHitsTheCallDeadlineInsteadOfHangingTheRun()
    {
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", system.Service.Url, "--Runs:CallTimeoutSeconds", "0.5"]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(30) };

        // Each call is cut at its deadline and counted; the run as a whole is bounded by count × deadline, so two calls
        // end before the service would have answered even one of them.
        foreach (var route in new[] { "/Performance/client-wrapper/2?delayMs=3000", "/Performance/streaming-call/2?delayMs=3000", "/Concurrency/single-connection/2?delayMs=3000" })
        {
            using var response = await http.GetAsync(route);

            Assert.Equal(HttpStatusCode.ServiceUnavailable, response.StatusCode);
            var problem = await SystemFixture.ReadProblemAsync(response);
            Assert.Equal("DeadlineExceeded", problem.GetProperty("grpcStatus").GetString());
            Assert.Equal(2, problem.GetProperty("statusCounts").GetProperty("DeadlineExceeded").GetInt64());
            var stored = await http.GetJsonAsync($"/api/runs/{problem.GetProperty("runId").GetString()}");
            Assert.InRange(stored.GetProperty("stats").GetProperty("wallTimeMs").GetDouble(), 0, 2999);
        }
    }

    [Theory]
    [InlineData("/Performance/client-wrapper/100?delayMs=1000")]
    [InlineData("/Performance/streaming-call/100?delayMs=1000")]
    [InlineData("/Concurrency/single-connection/1000?delayMs=1000")]
    public async Task CallerWhoDisconnectsCancelsTheRun(string route)
    {
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", system.Service.Url]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress };
        using var leave = new CancellationTokenSource();
        var call = http.GetAsync(route, leave.Token);

        // The caller leaves once its run is under way (on a busy machine a cold gateway may take seconds to start it).
        await http.WaitForRunningProgressAsync(calls: 0);
        await leave.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => call);

        // The run would take 100 s (or 10 waves of 1 s); the gateway must log its end well before that.
        var ended = await gateway.WaitForOutputAsync(line => line.Contains("responded 499"), TimeSpan.FromSeconds(30));
        Assert.True(ended, "the gateway did not end the run after the caller disconnected:" + Environment.NewLine + gateway.Output);
    }

    [Fact]
    public async Task ServerUrlFromTheEnvironmentOverridesAppSettings()
    {
        var deadAddress = $"http://127.0.0.1:{Ports.Unused()}";
        await using var gateway = await AppProcess.StartAsync("ApiGateway", environment: new Dictionary<string, string> { ["ServerUrl"] = deadAddress });
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress };

        using var response = await http.GetAsync("/Performance/client-wrapper/1");

        Assert.Contains(deadAddress, (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString());
    }

    [Theory]
    [InlineData("not a url")]
    [InlineData("ftp://127.0.0.1:5000")]
    [InlineData("")]
    public async Task InvalidServerUrlStopsTheGatewayAtStartWithAMessageNamingTheKey(string serverUrl)
    {
        await using var gateway = await AppProcess.RunToExitAsync("ApiGateway", ["--urls", "http://127.0.0.1:0", "--ServerUrl", serverUrl], TimeSpan.FromSeconds(60));

        Assert.Equal(2, gateway.ExitCode);
        Assert.Contains("Invalid configuration:", gateway.Output);
        Assert.Contains("ServerUrl", gateway.Output);
        Assert.DoesNotContain("   at ", gateway.Output);
        Assert.DoesNotContain("Now listening", gateway.Output);
    }

    [Theory]
    [InlineData("ApiGateway", "--Runs:MaxCount", "0", "Runs:MaxCount")]
    [InlineData("ApiGateway", "--Runs:CallTimeoutSeconds", "soon", "Runs:CallTimeoutSeconds")]
    [InlineData("PerformanceService", "--Monitor:SampleIntervalMilliseconds", "1", "Monitor:SampleIntervalMilliseconds")]
    [InlineData("PerformanceService", "--Workloads:UploadReadAheadBytes", "1000", "Workloads:UploadReadAheadBytes")]
    [InlineData("PerformanceService", "--Workloads:UploadReadAheadBytes", "big", "Workloads:UploadReadAheadBytes")]
    [InlineData("PerformanceService", "--Serilog:MinimumLevel:Override:Grpc", "Loud", "Serilog")]
    [InlineData("ApiGateway", "--Serilog:MinimumLevel:Default", "Off", "Serilog")]
    public async Task InvalidSettingStopsTheAppAtStartWithAMessageNamingTheKey(string project, string key, string value, string named)
    {
        await using var app = await AppProcess.RunToExitAsync(project, ["--urls", "http://127.0.0.1:0", "--ServerUrl", "http://127.0.0.1:5000", key, value], TimeSpan.FromSeconds(60));

        Assert.Equal(2, app.ExitCode);
        Assert.Contains(named, app.Output);
        Assert.DoesNotContain("   at ", app.Output);
    }

    [Fact]
    public async Task ServiceSpeaksOnlyHttp2()
    {
        await using var service = await AppProcess.StartAsync("PerformanceService");
        using var http = new HttpClient { BaseAddress = service.BaseAddress };

        using var http11 = new HttpRequestMessage(HttpMethod.Post, "/performance.Monitor/GetPerformance") { Version = HttpVersion.Version11, VersionPolicy = HttpVersionPolicy.RequestVersionExact };
        using var response = await http.SendAsync(http11);

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        Assert.Contains("HTTP/2 only", await response.Content.ReadAsStringAsync());
    }
}
