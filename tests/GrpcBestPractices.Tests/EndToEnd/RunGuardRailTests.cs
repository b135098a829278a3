using System.Diagnostics;
using System.Net;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>Limits and lifecycles that need their own gateway: runs in flight, restarts, a gateway killed mid-run.</summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
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
        using var folder = new TemporaryFolder();
        string id;
        await using (var first = await StartGatewayAsync(folder))
        {
            using var http = new HttpClient { BaseAddress = first.BaseAddress };
            id = (await http.GetJsonAsync("/Performance/streaming-call/50")).GetProperty("runId").GetString()!;
        }

        var run = await ReadRunAfterRestartAsync(folder, id);

        Assert.Equal("Completed", run.GetProperty("state").GetString());
        Assert.Equal(50, run.GetProperty("stats").GetProperty("succeeded").GetInt64());
    }

    [Fact]
    public async Task RunCutOffByAKilledGatewayIsMarkedFailedAtTheNextStart()
    {
        using var folder = new TemporaryFolder();
        string id;
        await using (var doomed = await StartGatewayAsync(folder))
        {
            using var http = new HttpClient { BaseAddress = doomed.BaseAddress };
            id = (await http.StartRunAsync("""{"strategy": "client-wrapper", "count": 1000, "delayMs": 100}""")).GetProperty("id").GetString()!;
            await Task.Delay(300);
        }

        var run = await ReadRunAfterRestartAsync(folder, id);

        Assert.Equal("Failed", run.GetProperty("state").GetString());
        Assert.Contains("gateway stopped", run.GetProperty("error").GetString());
    }

    [Fact]
    public async Task ChapterRunWhoseCallerLeftIsStoredAsCancelled()
    {
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", system.Service.Url]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress };
        using var leave = new CancellationTokenSource();
        var call = http.GetAsync("/Performance/client-wrapper/500?delayMs=100", leave.Token);

        // Leave only once the run exists: a cold gateway may take a while to start it.
        var runs = default(System.Text.Json.JsonElement);
        await WaitUntilAsync(async () =>
        {
            runs = (await http.GetJsonAsync("/api/runs?limit=1")).GetProperty("runs");
            return runs.GetArrayLength() == 1 && runs[0].GetProperty("state").GetString() == "Running";
        }, "the run was never stored as running");
        var id = runs[0].GetProperty("id").GetString();
        leave.Cancel();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => call);

        var run = default(System.Text.Json.JsonElement);
        await WaitUntilAsync(async () =>
        {
            run = await http.GetJsonAsync($"/api/runs/{id}");
            return run.GetProperty("state").GetString() != "Running";
        }, "the run went on after its caller left");
        Assert.Equal("Cancelled", run.GetProperty("state").GetString());
        Assert.Contains("caller disconnected", run.GetProperty("error").GetString());
    }

    /// <summary>Asks every 100 ms, for at most 10 s, until the condition holds.</summary>
    private static async Task WaitUntilAsync(Func<Task<bool>> condition, string failure)
    {
        var clock = Stopwatch.StartNew();
        while (!await condition())
        {
            Assert.True(clock.Elapsed < TimeSpan.FromSeconds(10), failure);
            await Task.Delay(100);
        }
    }

    private Task<AppProcess> StartGatewayAsync(TemporaryFolder folder) =>
        AppProcess.StartAsync("ApiGateway", ["--ServerUrl", system.Service.Url, "--History:DatabasePath", folder.File("history.db")]);

    /// <summary>A new gateway on the same history file: what a restart sees of run <paramref name="id"/>.</summary>
    private async Task<System.Text.Json.JsonElement> ReadRunAfterRestartAsync(TemporaryFolder folder, string id)
    {
        await using var next = await StartGatewayAsync(folder);
        using var http = new HttpClient { BaseAddress = next.BaseAddress };
        return await http.GetJsonAsync($"/api/runs/{id}");
    }
}
