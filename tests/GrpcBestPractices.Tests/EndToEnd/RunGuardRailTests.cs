using System.Diagnostics;
using System.Net;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>Limits and lifecycles that need their own gateway: runs in flight, restarts, a gateway killed mid-run.</summary>
[Collection(SystemCollection.Name)]
public sealed class RunGuardRailTests(SystemFixture system)
{
    [Fact]
    public async Task StartsBeyondTheInFlightLimitGet429WithRetryAfter()
    {
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", system.Service.Url, "--Runs:MaxRunsInFlight", "1"]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress };
        var first = await http.StartRunAsync("""{"strategy": "client-wrapper", "count": 100, "delayMs": 50}""");

        using var second = await http.PostJsonAsync("/api/runs", """{"strategy": "client-wrapper", "count": 1}""");
        using var chapter = await http.GetAsync("/Performance/client-wrapper/1");

        Assert.Equal(HttpStatusCode.TooManyRequests, second.StatusCode);
        Assert.NotNull(second.Headers.RetryAfter?.Delta);
        Assert.Contains("Runs:MaxRunsInFlight", (await SystemFixture.ReadProblemAsync(second)).GetProperty("detail").GetString());
        Assert.Equal(HttpStatusCode.TooManyRequests, chapter.StatusCode);
        await http.PostAsync($"/api/runs/{first.GetProperty("id").GetString()}/cancel", null);
        Assert.Equal(HttpStatusCode.OK, (await http.GetAsync("/Performance/client-wrapper/1")).StatusCode);
    }

    [Fact]
    public async Task HistorySurvivesAGatewayRestart()
    {
        var directory = Directory.CreateTempSubdirectory("grpcbp-restart-").FullName;
        try
        {
            var path = Path.Combine(directory, "history.db");
            string id;
            await using (var first = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", system.Service.Url, "--History:DatabasePath", path]))
            {
                using var http = new HttpClient { BaseAddress = first.BaseAddress };
                id = (await http.GetJsonAsync("/Performance/streaming-call/50")).GetProperty("runId").GetString()!;
            }

            await using var second = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", system.Service.Url, "--History:DatabasePath", path]);
            using var again = new HttpClient { BaseAddress = second.BaseAddress };
            var run = await again.GetJsonAsync($"/api/runs/{id}");

            Assert.Equal("Completed", run.GetProperty("state").GetString());
            Assert.Equal(50, run.GetProperty("stats").GetProperty("succeeded").GetInt64());
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    [Fact]
    public async Task RunCutOffByAKilledGatewayIsMarkedFailedAtTheNextStart()
    {
        var directory = Directory.CreateTempSubdirectory("grpcbp-killed-").FullName;
        try
        {
            var path = Path.Combine(directory, "history.db");
            string id;
            await using (var doomed = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", system.Service.Url, "--History:DatabasePath", path]))
            {
                using var http = new HttpClient { BaseAddress = doomed.BaseAddress };
                id = (await http.StartRunAsync("""{"strategy": "client-wrapper", "count": 1000, "delayMs": 100}""")).GetProperty("id").GetString()!;
                await Task.Delay(300);
            }

            await using var next = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", system.Service.Url, "--History:DatabasePath", path]);
            using var again = new HttpClient { BaseAddress = next.BaseAddress };
            var run = await again.GetJsonAsync($"/api/runs/{id}");

            Assert.Equal("Failed", run.GetProperty("state").GetString());
            Assert.Contains("gateway stopped", run.GetProperty("error").GetString());
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    [Fact]
    public async Task ChapterRunWhoseCallerLeftIsStoredAsCancelled()
    {
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", system.Service.Url]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress };
        using var leave = new CancellationTokenSource(TimeSpan.FromMilliseconds(800));

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => http.GetAsync("/Performance/client-wrapper/500?delayMs=100", leave.Token));

        var clock = Stopwatch.StartNew();
        while (true)
        {
            var latest = (await http.GetJsonAsync("/api/runs?limit=1")).GetProperty("runs")[0];
            if (latest.GetProperty("state").GetString() != "Running")
            {
                Assert.Equal("Cancelled", latest.GetProperty("state").GetString());
                Assert.Contains("caller disconnected", latest.GetProperty("error").GetString());
                break;
            }

            Assert.True(clock.Elapsed < TimeSpan.FromSeconds(10), "the run went on after its caller left");
            await Task.Delay(100);
        }
    }
}
