using System.Net;
using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>The resource API: background runs, their history, live events, cancellation, comparison and suites.</summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class RunApiTests(SystemFixture system)
{
    [Fact]
    public async Task StrategiesListNameRouteLessonAndLink()
    {
        var strategies = (await system.Http.GetJsonAsync("/api/strategies")).EnumerateArray().ToList();

        Assert.Equal(StrategyRouteTests.RouteNames.Select(route => route + "/{count}"), strategies.Select(s => s.GetProperty("route").GetString()));
        Assert.All(strategies, s => Assert.StartsWith("https://learn.microsoft.com/", s.GetProperty("link").GetString()));
        Assert.All(strategies, s => Assert.False(string.IsNullOrWhiteSpace(s.GetProperty("lesson").GetString())));
    }

    [Fact]
    public async Task PostedRunProceedsInTheBackgroundAndIsStoredWithItsStatistics()
    {
        var started = await system.Http.StartRunAsync("""{"strategy": "streaming-call", "count": 300, "warmup": 10, "payloadBytes": 64}""");
        var id = started.GetProperty("id").GetString();

        var run = await system.Http.WaitUntilFinishedAsync($"/api/runs/{id}");

        Assert.Equal("Completed", run.GetProperty("state").GetString());
        Assert.Equal(300, run.GetProperty("stats").GetProperty("succeeded").GetInt64());
        Assert.Equal(64, run.GetProperty("plan").GetProperty("payloadBytes").GetInt32());
        var page = await system.Http.GetJsonAsync("/api/runs?strategy=streaming-call&limit=5");
        Assert.Equal(id, page.GetProperty("runs")[0].GetProperty("id").GetString());
        Assert.All(page.GetProperty("runs").EnumerateArray(), r => Assert.Equal("streaming-call", r.GetProperty("plan").GetProperty("strategy").GetString()));
    }

    [Fact]
    public async Task HistoryIsNewestFirstAndPages()
    {
        var ids = new List<string>();
        for (var i = 0; i < 3; i++)
        {
            ids.Add((await system.GetRunAsync("/Performance/client-wrapper/2")).GetProperty("runId").GetString()!);
        }

        var first = await system.Http.GetJsonAsync("/api/runs?strategy=client-wrapper&limit=2");
        var second = await system.Http.GetJsonAsync("/api/runs?strategy=client-wrapper&limit=2&offset=1");

        Assert.Equal([ids[2], ids[1]], first.GetProperty("runs").EnumerateArray().Select(r => r.GetProperty("id").GetString()));
        Assert.Equal(ids[1], second.GetProperty("runs")[0].GetProperty("id").GetString());
        Assert.True(first.GetProperty("total").GetInt32() >= 3);
    }

    [Fact]
    public async Task DeletedRunIsGone()
    {
        var id = (await system.GetRunAsync("/Performance/client-wrapper/2")).GetProperty("runId").GetString();

        Assert.Equal(HttpStatusCode.NoContent, (await system.Http.DeleteAsync($"/api/runs/{id}")).StatusCode);
        using var gone = await system.Http.GetAsync($"/api/runs/{id}");

        Assert.Equal(HttpStatusCode.NotFound, gone.StatusCode);
        Assert.Contains("GET /api/runs", (await SystemFixture.ReadProblemAsync(gone)).GetProperty("detail").GetString());
        Assert.Equal(HttpStatusCode.NotFound, (await system.Http.DeleteAsync($"/api/runs/{id}")).StatusCode);
    }

    [Fact]
    public async Task EventsStreamProgressSeveralTimesASecondThenTheFinalRun()
    {
        var started = await system.Http.StartRunAsync("""{"strategy": "client-wrapper", "count": 60, "delayMs": 25}""");
        using var request = new HttpRequestMessage(HttpMethod.Get, $"/api/runs/{started.GetProperty("id").GetString()}/events");
        using var response = await system.Http.SendAsync(request, HttpCompletionOption.ResponseHeadersRead);
        Assert.Equal("text/event-stream", response.Content.Headers.ContentType?.MediaType);

        var events = await ReadEventsAsync(response);

        var progress = events.Where(e => e.Name == "progress").Select(e => e.Data).ToList();
        var final = Assert.Single(events, e => e.Name == "final").Data;
        Assert.Equal("Completed", final.GetProperty("state").GetString());
        // 60 calls of ≥ 25 ms last ≥ 1.5 s: at five ticks a second that is several progress events.
        Assert.True(progress.Count >= 4, $"only {progress.Count} progress events");
        var sequences = progress.Select(p => p.GetProperty("sequence").GetInt64()).ToList();
        Assert.Equal(sequences.Order(), sequences);
        Assert.Contains(progress, p => p.GetProperty("completed").GetInt64() is > 0 and < 60);
        Assert.Contains(progress, p => p.GetProperty("rollingP50Ms").ValueKind == JsonValueKind.Number);
        Assert.Equal(60, progress[^1].GetProperty("completed").GetInt64());
    }

    [Fact]
    public async Task CancelledRunIsStoredAsCancelledWithWhatItMeasured()
    {
        var started = await system.Http.StartRunAsync("""{"strategy": "client-wrapper", "count": 1000, "delayMs": 50}""");
        var id = started.GetProperty("id").GetString();
        // Cancel once some calls have completed, however long a cold gateway takes to get there.
        for (var waited = 0; (await system.Http.GetJsonAsync($"/api/runs/{id}")).GetProperty("progress").GetProperty("completed").GetInt64() == 0; waited += 50)
        {
            Assert.True(waited < 10_000, "the run made no progress in 10 s");
            await Task.Delay(50);
        }

        using var cancel = await system.Http.PostAsync($"/api/runs/{id}/cancel", null);
        var run = await cancel.ReadJsonAsync();

        Assert.Equal(HttpStatusCode.OK, cancel.StatusCode);
        Assert.Equal("Cancelled", run.GetProperty("state").GetString());
        Assert.Equal("Cancelled on request.", run.GetProperty("error").GetString());
        Assert.InRange(run.GetProperty("stats").GetProperty("calls").GetInt64(), 1, 999);
        Assert.Equal("Cancelled", (await system.Http.GetJsonAsync($"/api/runs/{id}")).GetProperty("state").GetString());
    }

    [Fact]
    public async Task CompareShowsTwoRunsSideBySideWithRatios()
    {
        var baseline = (await system.GetRunAsync("/Performance/client-wrapper/100")).GetProperty("runId").GetString();
        var candidate = (await system.GetRunAsync("/Performance/streaming-call/100")).GetProperty("runId").GetString();

        var comparison = await system.Http.GetJsonAsync($"/api/runs/compare?baseline={baseline}&candidate={candidate}");

        var wall = comparison.GetProperty("metrics").EnumerateArray().Single(m => m.GetProperty("metric").GetString() == "wallTime");
        Assert.Equal(
            Math.Round(wall.GetProperty("candidate").GetDouble() / wall.GetProperty("baseline").GetDouble(), 4),
            wall.GetProperty("ratio").GetDouble());
        Assert.Equal(baseline, comparison.GetProperty("baseline").GetProperty("id").GetString());
    }

    [Theory]
    [InlineData("/api/runs/compare?baseline=x&candidate=y", HttpStatusCode.BadRequest)]
    [InlineData("/api/runs/compare?baseline=00000000-0000-0000-0000-000000000001&candidate=00000000-0000-0000-0000-000000000002", HttpStatusCode.NotFound)]
    [InlineData("/api/runs?limit=0", HttpStatusCode.BadRequest)]
    [InlineData("/api/runs?strategy=fastest", HttpStatusCode.BadRequest)]
    [InlineData("/api/runs/00000000-0000-0000-0000-000000000001/events", HttpStatusCode.NotFound)]
    [InlineData("/api/suites/00000000-0000-0000-0000-000000000001", HttpStatusCode.NotFound)]
    public async Task BadQueriesGetProblemsThatSayWhatIsAllowed(string path, HttpStatusCode expected)
    {
        using var response = await system.Http.GetAsync(path);

        Assert.Equal(expected, response.StatusCode);
        Assert.False(string.IsNullOrWhiteSpace((await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString()));
    }

    [Theory]
    [InlineData("not json", "could not be read")]
    [InlineData("[1, 2]", "must be a JSON object")]
    [InlineData("""{"strategy": "client-wrapper", "count": 10, "speed": "max"}""", "'speed' is not a run setting")]
    [InlineData("""{"strategy": "client-wrapper"}""", "A sequential run needs a count (calls) or a duration (seconds) to end")]
    [InlineData("""{"strategy": "client-wrapper", "count": 1.5}""", "count was '1.5'")]
    [InlineData("""{"strategy": "warp", "count": 10}""", "strategy was 'warp'")]
    public async Task BadRunBodiesGetA400SayingWhatIsAllowed(string body, string expected)
    {
        using var response = await system.Http.PostJsonAsync("/api/runs", body);

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        Assert.Contains(expected, (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString());
    }

    [Fact]
    public async Task SuiteRunsEveryStrategyWithTheSamePlanAndComparesThem()
    {
        var started = await system.Http.StartRunAsync("""{"count": 120, "warmup": 5}""", "/api/suites");

        var suite = await system.Http.WaitUntilFinishedAsync($"/api/suites/{started.GetProperty("id").GetString()}");

        Assert.Equal("Completed", suite.GetProperty("state").GetString());
        var rows = suite.GetProperty("comparison").EnumerateArray().ToList();
        Assert.Equal(StrategyRouteTests.RouteNames.Select(route => route.Split('/')[2]), rows.Select(r => r.GetProperty("strategy").GetString()));
        Assert.All(suite.GetProperty("runs").EnumerateArray(), run =>
        {
            Assert.Equal(120, run.GetProperty("plan").GetProperty("count").GetInt32());
            Assert.Equal(suite.GetProperty("id").GetString(), run.GetProperty("suiteId").GetString());
        });
        Assert.Equal(1.0, rows.Min(r => r.GetProperty("wallTimeVsFastest").GetDouble()));
    }

    [Fact]
    public async Task SuiteEventsFollowEachRunThenEndWithTheSuite()
    {
        var started = await system.Http.StartRunAsync("""{"count": 40, "delayMs": 5, "strategies": ["client-wrapper", "streaming-call"]}""", "/api/suites");
        using var response = await system.Http.GetAsync($"/api/suites/{started.GetProperty("id").GetString()}/events", HttpCompletionOption.ResponseHeadersRead);

        var events = await ReadEventsAsync(response);

        Assert.Equal(["client-wrapper", "streaming-call"], events.Where(e => e.Name == "run").Select(e => e.Data.GetProperty("plan").GetProperty("strategy").GetString()));
        Assert.Contains(events, e => e.Name == "progress" && e.Data.GetProperty("strategy").GetString() == "streaming-call");
        Assert.Equal("Completed", events[^1].Data.GetProperty("state").GetString());
    }

    [Fact]
    public async Task SuiteEventsReportEveryRunOnceEvenRunsTooFastToFollow()
    {
        var started = await system.Http.StartRunAsync("""{"count": 3}""", "/api/suites");
        using var response = await system.Http.GetAsync($"/api/suites/{started.GetProperty("id").GetString()}/events", HttpCompletionOption.ResponseHeadersRead);

        var events = await ReadEventsAsync(response);

        Assert.Equal(StrategyRouteTests.RouteNames.Select(route => route.Split('/')[^1]),
            events.Where(e => e.Name == "run").Select(e => e.Data.GetProperty("plan").GetProperty("strategy").GetString()));
    }

    private static async Task<List<(string Name, JsonElement Data)>> ReadEventsAsync(HttpResponseMessage response)
    {
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        using var reader = new StreamReader(await response.Content.ReadAsStreamAsync(timeout.Token));
        var events = new List<(string, JsonElement)>();
        var name = "message";
        while (await reader.ReadLineAsync(timeout.Token) is { } line)
        {
            if (line.StartsWith("event: ", StringComparison.Ordinal))
            {
                name = line["event: ".Length..];
            }
            else if (line.StartsWith("data: ", StringComparison.Ordinal))
            {
                events.Add((name, JsonDocument.Parse(line["data: ".Length..]).RootElement.Clone()));
                name = "message";
            }
        }

        return events;
    }
}
