using System.Diagnostics;
using System.Net;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.Faults;

/// <summary>SIGTERM to the gateway cancels the runs in flight with its own reason, answers their callers, stores them, and exits in seconds.</summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class ShutdownTests
{
    // Kestrel's own drain waits up to 30 s for requests in flight: well under that proves the run did not hold it.
    private static readonly TimeSpan ExitBound = TimeSpan.FromSeconds(10);

    [Fact]
    public async Task SigtermDuringAChapterRunAnswersTheCallerStoresTheRunAsStoppedByTheGatewayAndExitsWithinSeconds()
    {
        await using var service = await AppProcess.StartAsync("PerformanceService");
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", service.Url]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(120) };
        // 100 s of calls: only the shutdown can end it in time.
        var run = http.GetAsync("/Performance/client-wrapper/100?delayMs=1000");
        var id = await http.WaitForRunningProgressAsync(calls: 1);

        var clock = Stopwatch.StartNew();
        await gateway.SignalAsync("TERM");

        try
        {
            using var response = await run;
            Assert.True(clock.Elapsed < ExitBound, $"the answer took {clock.Elapsed}");
            Assert.Equal(HttpStatusCode.ServiceUnavailable, response.StatusCode);
            var problem = await SystemFixture.ReadProblemAsync(response);
            Assert.Equal("The gateway is stopping", problem.GetProperty("title").GetString());
            Assert.Equal(id, problem.GetProperty("runId").GetString());
        }
        catch (HttpRequestException)
        {
            // The connection may close before the answer is read: that is an answer too, as long as it came fast.
            Assert.True(clock.Elapsed < ExitBound, $"the connection closed after {clock.Elapsed}");
        }

        Assert.True(await gateway.WaitForExitAsync(ExitBound), $"the gateway still ran {ExitBound} after SIGTERM");
        Assert.True(clock.Elapsed < ExitBound, $"the gateway exited {clock.Elapsed} after SIGTERM");

        // The history says why the run ended: read it back through a new gateway on the same file.
        await using var restarted = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", service.Url, "--History:DatabasePath", gateway.HistoryPath!]);
        using var again = new HttpClient { BaseAddress = restarted.BaseAddress };
        var stored = await again.GetJsonAsync($"/api/runs/{id}");
        Assert.Equal("Cancelled", stored.GetProperty("state").GetString());
        Assert.Equal("The gateway stopped during the run.", stored.GetProperty("error").GetString());
    }

    [Fact]
    public async Task SigtermDuringALessonExperimentStoresItAsStoppedByTheGatewayAndExitsWithinSeconds()
    {
        await using var service = await AppProcess.StartAsync("PerformanceService");
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", service.Url]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress };
        // Keep-alive's experiment waits out idle pauses of several seconds: it is still going when the signal comes.
        var started = await http.StartRunAsync("{}", "/api/lessons/keep-alive/experiments");
        var path = $"/api/lessons/keep-alive/experiments/{started.GetProperty("id").GetString()}";

        var clock = Stopwatch.StartNew();
        await gateway.SignalAsync("TERM");

        Assert.True(await gateway.WaitForExitAsync(ExitBound), $"the gateway still ran {ExitBound} after SIGTERM");
        Assert.True(clock.Elapsed < ExitBound, $"the gateway exited {clock.Elapsed} after SIGTERM");
        await using var restarted = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", service.Url, "--History:DatabasePath", gateway.HistoryPath!]);
        using var again = new HttpClient { BaseAddress = restarted.BaseAddress };
        var stored = await again.GetJsonAsync(path);
        Assert.Equal(("Cancelled", "The gateway stopped during the run."), (stored.GetProperty("state").GetString(), stored.GetProperty("error").GetString()));
    }
}
