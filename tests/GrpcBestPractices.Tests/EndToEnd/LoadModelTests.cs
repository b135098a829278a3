using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>Each load model against the real service, through the gateway's run API.</summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class LoadModelTests(SystemFixture system)
{
    [Fact]
    public async Task AnOpenLoadSendsEveryCallOfItsScheduleAtItsRate()
    {
        var run = await RunAsync(system.Http, """{"strategy": "multiple-connections", "load": "open", "rate": 200, "duration": 2}""");

        var sends = run.GetProperty("stats").GetProperty("sends");
        Assert.Equal(400, sends.GetProperty("intended").GetInt64());
        Assert.Equal(400, sends.GetProperty("sent").GetInt64());
        Assert.Equal(0, sends.GetProperty("dropped").GetInt64());
        Assert.Equal(200, sends.GetProperty("requestedRatePerSecond").GetDouble());
        Assert.InRange(sends.GetProperty("achievedRatePerSecond").GetDouble(), 190, 210);
        Assert.Equal(400, run.GetProperty("stats").GetProperty("succeeded").GetInt64());
    }

    [Fact]
    public async Task AStreamUnderAnOpenLoadWritesEachMessageWhenItIsDue()
    {
        var run = await RunAsync(system.Http, """{"strategy": "streaming-call", "load": "open", "rate": 150, "duration": 1}""");

        var stats = run.GetProperty("stats");
        Assert.Equal(150, stats.GetProperty("sends").GetProperty("sent").GetInt64());
        Assert.Equal(150, stats.GetProperty("succeeded").GetInt64());
        Assert.Equal(JsonValueKind.Object, stats.GetProperty("latencyFromActualSend").ValueKind);
    }

    [Fact]
    public async Task CoordinatedOmissionCorrectionShowsTheWaitOfCallsThatCouldNotGoOutOnTime()
    {
        // At most 4 calls in flight, each held 100 ms by the service: 40 calls/s can start on time against 100 due per second.
        var run = await RunAsync(system.Http, """{"strategy": "single-connection", "load": "open", "rate": 100, "duration": 2, "delayMs": 100, "concurrency": 4}""");

        var stats = run.GetProperty("stats");
        var sends = stats.GetProperty("sends");
        Assert.True(sends.GetProperty("late").GetInt64() > 0, $"no send was late: {sends}");
        Assert.True(sends.GetProperty("dropped").GetInt64() > 0, $"no call was dropped: {sends}");
        Assert.Equal(sends.GetProperty("intended").GetInt64(), sends.GetProperty("sent").GetInt64() + sends.GetProperty("dropped").GetInt64());
        var fromDue = stats.GetProperty("latency").GetProperty("p50Ms").GetDouble();
        var fromSend = stats.GetProperty("latencyFromActualSend").GetProperty("p50Ms").GetDouble();
        Assert.True(fromSend >= 100, $"the service held each call 100 ms, yet p50 from the actual send was {fromSend} ms");
        Assert.True(fromDue > fromSend * 1.5, $"p50 from when calls were due ({fromDue} ms) hides the wait: from the actual send it was {fromSend} ms");
    }

    [Fact]
    public async Task ARampingLoadRaisesItsRateThroughItsStages()
    {
        var run = await RunAsync(system.Http, """{"strategy": "multiple-connections", "load": "ramping", "stages": [{"duration": 1, "target": 200}, {"duration": 1, "target": 200}]}""");

        Assert.Equal(300, run.GetProperty("stats").GetProperty("sends").GetProperty("intended").GetInt64());
        var points = run.GetProperty("series").GetProperty("points").EnumerateArray().ToList();
        var early = points.Where(point => point.GetProperty("atMs").GetDouble() <= 500).Sum(point => point.GetProperty("calls").GetInt64());
        var late = points.Where(point => point.GetProperty("atMs").GetDouble() is > 1500 and <= 2000).Sum(point => point.GetProperty("calls").GetInt64());
        Assert.True(late > early * 2, $"the ramp did not show: {early} calls in the first half second, {late} in the last");
    }

    [Fact]
    public async Task AClosedLoadBoundedByADurationStopsByItself()
    {
        var run = await RunAsync(system.Http, """{"strategy": "client-wrapper", "load": "closed", "concurrency": 4, "duration": 1}""");

        var stats = run.GetProperty("stats");
        Assert.Equal(JsonValueKind.Null, run.GetProperty("plan").GetProperty("count").ValueKind);
        Assert.True(stats.GetProperty("succeeded").GetInt64() > 10);
        Assert.InRange(stats.GetProperty("wallTimeMs").GetDouble(), 1000, 30_000);
    }

    [Fact]
    public async Task TheTimeSeriesCountsEveryCallOnce()
    {
        var run = await RunAsync(system.Http, """{"strategy": "single-connection", "count": 3000, "concurrency": 50}""");

        var series = run.GetProperty("series");
        var points = series.GetProperty("points").EnumerateArray().ToList();
        Assert.True(points.Count > 0);
        Assert.Equal(run.GetProperty("stats").GetProperty("calls").GetInt64(), points.Sum(point => point.GetProperty("calls").GetInt64()));
        Assert.All(points, point => Assert.True(point.GetProperty("p99Ms").ValueKind == JsonValueKind.Null || point.GetProperty("p99Ms").GetDouble() >= point.GetProperty("p50Ms").GetDouble()));
    }

    [Fact]
    public async Task TheTimeSeriesIsStoredWithTheRunAndSurvivesAGatewayRestart()
    {
        using var folder = new TemporaryFolder();
        var history = Path.Combine(folder.Path, "history.db");
        string id;
        JsonElement before;
        await using (var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", system.Service.Url, "--History:DatabasePath", history]))
        {
            using var http = new HttpClient { BaseAddress = gateway.BaseAddress };
            before = await RunAsync(http, """{"strategy": "client-wrapper", "count": 300}""");
            id = before.GetProperty("id").GetString()!;
        }

        await using var restarted = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", system.Service.Url, "--History:DatabasePath", history]);
        using var client = new HttpClient { BaseAddress = restarted.BaseAddress };
        var after = await client.GetJsonAsync($"/api/runs/{id}");

        Assert.Equal(before.GetProperty("series").GetRawText(), after.GetProperty("series").GetRawText());
        Assert.NotEmpty(after.GetProperty("series").GetProperty("points").EnumerateArray());
    }

    [Fact]
    public async Task ARunCarriesAVerdictWithEachThresholdsMeasuredValue()
    {
        var run = await RunAsync(system.Http, """{"strategy": "client-wrapper", "count": 200, "thresholds": ["p99 < 10s", "errorRate < 1%", "throughput > 1", "p50 < 1us", "p99.9 < 10s"]}""");

        var verdict = run.GetProperty("verdict");
        Assert.False(verdict.GetProperty("passed").GetBoolean());
        var results = verdict.GetProperty("thresholds").EnumerateArray().ToList();
        Assert.Equal([true, true, true, false, true], results.Select(result => result.GetProperty("passed").GetBoolean()));
        Assert.All(results, result => Assert.Equal(JsonValueKind.Number, result.GetProperty("measured").ValueKind));
        Assert.Equal(run.GetProperty("stats").GetProperty("latency").GetProperty("p50Ms").GetDouble(), results[3].GetProperty("measured").GetDouble());
        // A percentile a threshold judges is reported even when the plan's list did not name it.
        Assert.Contains(run.GetProperty("stats").GetProperty("latency").GetProperty("percentiles").EnumerateArray(), p => p.GetProperty("percentile").GetDouble() == 99.9);
    }

    [Fact]
    public async Task AChapterRouteTakesThresholdsAndAnswersWithTheVerdict()
    {
        var run = await system.GetRunAsync("/Performance/client-wrapper/50?includeStatuses=false&thresholds=p99%20%3C%2010s&thresholds=failed%20%3D%3D%200".Replace("%3D%3D", "%3C%3D", StringComparison.Ordinal));

        Assert.True(run.GetProperty("verdict").GetProperty("passed").GetBoolean());
        Assert.Equal(2, run.GetProperty("verdict").GetProperty("thresholds").GetArrayLength());
    }

    [Theory]
    [InlineData("""{"strategy": "client-wrapper", "count": 10, "thresholds": ["p99 <"]}""", "threshold 'p99 <' (thresholds[0]) could not be read")]
    [InlineData("""{"strategy": "client-wrapper", "count": 10, "thresholds": ["p99 < 5ms", "speed > 1"]}""", "threshold 'speed > 1' (thresholds[1]) could not be read")]
    [InlineData("""{"strategy": "client-wrapper", "count": 10, "thresholds": [5]}""", "thresholds must be an array of strings")]
    public async Task AThresholdThatCannotBeReadIsA400NamingItAndShowingTheAcceptedForm(string body, string expected)
    {
        using var response = await system.Http.PostJsonAsync("/api/runs", body);

        Assert.Equal(System.Net.HttpStatusCode.BadRequest, response.StatusCode);
        var detail = (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString();
        Assert.Contains(expected, detail);
        Assert.Contains("e.g. \"p99 < 5ms\"", detail);
    }

    private static async Task<JsonElement> RunAsync(HttpClient http, string body)
    {
        var started = await http.StartRunAsync(body);
        var id = started.GetProperty("id").GetString();
        var ended = await http.WaitUntilFinishedAsync($"/api/runs/{id}");
        Assert.True(ended.GetProperty("state").GetString() == "Completed", $"the run did not complete: {ended}");
        return ended;
    }
}
