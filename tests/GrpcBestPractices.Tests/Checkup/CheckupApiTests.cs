using System.Net;
using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.Checkup;

/// <summary>
/// POST /api/checkups and its resources on the real gateway and service: bodies it refuses with a sentence, another site's
/// page refused, unknown ids, and one real checkup of the built-in service through its descriptors (made once for the
/// class: a checkup takes its whole budget), its events, its stored record and the runs it names.
/// </summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class CheckupApiTests(SystemFixture system, CheckupApiTests.OneCheckup checkup) : IClassFixture<CheckupApiTests.OneCheckup>
{
    private const string GetPerformance = "performance.Monitor/GetPerformance";

    private const string NoSuchId = "3f2b8c1e-9a4d-4e6b-8f0a-1c2d3e4f5a6b";

    [Theory]
    [InlineData("{}", 400, "A checkup needs call: the unary method of your service to check, as package.Service/Method")]
    [InlineData("""{"target": "performance", "data": {"clientName": "checkup"}}""", 400, "A checkup needs call:")]
    [InlineData($$"""{"call": "{{GetPerformance}}", "budgetSeconds": 5}""", 400, "budget was 5 s; it must be from 20 s to 1800 s (default 120 s)")]
    [InlineData($$"""{"call": "{{GetPerformance}}", "budgetSeconds": "soon"}""", 400, "budgetSeconds was 'soon'; it must be a number of seconds from 20 to 1800.")]
    [InlineData($$"""{"call": "{{GetPerformance}}", "inFlight": 0}""", 400, "inFlight was '0'; it must be a whole number from 1 to ")]
    [InlineData($$"""{"call": "{{GetPerformance}}", "inFlight": "many"}""", 400, "inFlight was 'many'; it must be a whole number from 1 to ")]
    [InlineData("""{"target": "nowhere", "call": "a.B/C"}""", 400, "target was 'nowhere'; the configured targets are: ")]
    [InlineData("""{"call": "performance.Monitor/Nothing"}""", 400, "The target has no method performance.Monitor/Nothing; it has performance.Monitor/GetPerformance")]
    [InlineData("""{"call": "performance.Monitor/GetManyPerformanceStats"}""", 400, "The lessons compare ways of making unary calls, and performance.Monitor/GetManyPerformanceStats is ")]
    [InlineData($$$"""{"call": "{{{GetPerformance}}}", "data": {"delayMs": "soon"}}""", 400, "delayMs")]
    [InlineData($$"""{"call": "{{GetPerformance}}", "count": 10}""", 400, "'count' is not a checkup setting; the body may hold: target, call, data, streamCall, budgetSeconds, inFlight.")]
    public async Task ABodyItCannotCheckIsAProblemWithASentence(string body, int status, string sentence)
    {
        var before = (await system.Http.GetJsonAsync("/api/checkups")).GetProperty("total").GetInt32();

        using var response = await system.Http.PostJsonAsync("/api/checkups", body);

        var problem = await SystemFixture.ReadProblemAsync(response);
        Assert.Equal(status, (int)response.StatusCode);
        Assert.Contains(sentence, problem.GetProperty("detail").GetString());
        Assert.Equal(before, (await system.Http.GetJsonAsync("/api/checkups")).GetProperty("total").GetInt32());
    }

    [Theory]
    [InlineData("/api/checkups")]
    [InlineData($"/api/checkups/{NoSuchId}/cancel")]
    public async Task APageOnAnotherSiteCannotStartOrCancelACheckup(string path)
    {
        using var request = new HttpRequestMessage(HttpMethod.Post, path) { Content = new StringContent($$"""{"call": "{{GetPerformance}}"}""", System.Text.Encoding.UTF8, "application/json") };
        request.Headers.Add("Origin", "https://attacker.example");

        using var response = await system.Http.SendAsync(request);

        Assert.Equal(HttpStatusCode.Forbidden, response.StatusCode);
        Assert.Contains("only the gateway's own page", (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString());
    }

    [Theory]
    [InlineData("GET", $"/api/checkups/{NoSuchId}", $"There is no checkup {NoSuchId}; GET /api/checkups lists them")]
    [InlineData("GET", $"/api/checkups/{NoSuchId}/events", $"There is no checkup {NoSuchId}")]
    [InlineData("POST", $"/api/checkups/{NoSuchId}/cancel", $"There is no checkup {NoSuchId}")]
    [InlineData("GET", "/api/checkups/seven", "'seven' is not an id: the ids in /api/checkups/{id} are GUIDs")]
    public async Task AnUnknownCheckupIsA404WithASentence(string method, string path, string sentence)
    {
        using var response = await system.Http.SendAsync(new HttpRequestMessage(new HttpMethod(method), path));

        Assert.Equal(HttpStatusCode.NotFound, response.StatusCode);
        Assert.Contains(sentence, (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString());
    }

    [Fact]
    public async Task ARealCheckupOfTheBuiltInServiceEndsCompletedWithItemsAndItsEventsEndWithFinal()
    {
        var made = await checkup.MakeAsync(system.Http);

        Assert.Equal($"/api/checkups/{made.Id}", made.Location);
        Assert.Equal(("Running", 20.0), (made.Started.GetProperty("checkup").GetProperty("state").GetString(), made.Started.GetProperty("checkup").GetProperty("budgetSeconds").GetDouble()));
        Assert.Equal("final", made.Events[^1].Event);
        Assert.Contains(made.Events, happened => happened.Event == "checkup");
        var stored = (await system.Http.GetJsonAsync($"/api/checkups/{made.Id}")).GetProperty("checkup");
        Assert.True(stored.GetProperty("state").GetString() == "Completed", stored.ToString());
        Assert.NotEmpty(stored.GetProperty("items").EnumerateArray());
        Assert.Equal(stored.ToString(), made.Events[^1].Data.GetProperty("checkup").ToString());
        Assert.Equal(made.Id, CheckupsOf(await system.Http.GetJsonAsync("/api/checkups?limit=1")).Single().GetProperty("id").GetString());
    }

    [Fact]
    public async Task EveryRunACheckupsItemNamesIsAStoredRun()
    {
        var made = await checkup.MakeAsync(system.Http);

        var stored = (await system.Http.GetJsonAsync($"/api/checkups/{made.Id}")).GetProperty("checkup");
        var runs = stored.GetProperty("items").EnumerateArray().SelectMany(item => item.GetProperty("runs").EnumerateArray()).Select(run => run.GetString()!).ToList();
        Assert.NotEmpty(runs);
        foreach (var id in runs)
        {
            Assert.Equal(id, (await system.Http.GetJsonAsync($"/api/runs/{id}")).GetProperty("id").GetString());
        }
    }

    private static IEnumerable<JsonElement> CheckupsOf(JsonElement page) => page.GetProperty("checkups").EnumerateArray().Select(view => view.GetProperty("checkup"));

    /// <summary>The class's one real checkup: started by the first test that asks, its events read to the end.</summary>
    public sealed class OneCheckup : IDisposable
    {
        private readonly SemaphoreSlim _making = new(1, 1);
        private Made? _made;

        public async Task<Made> MakeAsync(HttpClient http)
        {
            await _making.WaitAsync();
            try
            {
                return _made ??= await StartAndFollowAsync(http);
            }
            finally
            {
                _making.Release();
            }
        }

        public void Dispose() => _making.Dispose();

        private static async Task<Made> StartAndFollowAsync(HttpClient http)
        {
            using var response = await http.PostJsonAsync("/api/checkups", $$"""{"call": "{{GetPerformance}}", "data": {"clientName": "checkup"}, "budgetSeconds": 20}""");
            var body = await response.Content.ReadAsStringAsync();
            Assert.True(response.StatusCode == HttpStatusCode.Accepted, $"POST /api/checkups answered {(int)response.StatusCode}: {body}");
            var started = JsonDocument.Parse(body).RootElement.Clone();
            var id = started.GetProperty("checkup").GetProperty("id").GetString()!;
            // A 20 s budget, with room for a busy 2-core machine; the events end with the checkup.
            using var cancel = new CancellationTokenSource(TimeSpan.FromSeconds(240));
            await using var stream = await http.GetStreamAsync(started.GetProperty("links").GetProperty("events").GetString(), cancel.Token);
            var events = new List<(string, JsonElement)>();
            await foreach (var item in System.Net.ServerSentEvents.SseParser.Create(stream).EnumerateAsync(cancel.Token))
            {
                events.Add((item.EventType, JsonDocument.Parse(item.Data).RootElement.Clone()));
            }

            return new Made(id, response.Headers.Location?.ToString(), started, events);
        }
    }

    public sealed record Made(string Id, string? Location, JsonElement Started, IReadOnlyList<(string Event, JsonElement Data)> Events);
}
