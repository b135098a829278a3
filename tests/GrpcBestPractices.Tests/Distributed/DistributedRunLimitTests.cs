using System.Globalization;
using System.Net;
using System.Text.Json;
using System.Text.RegularExpressions;
using HistoryStore;
using GrpcBestPractices.Tests.Infrastructure;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.Distributed;

/// <summary>
/// Distributed runs wait for their agents under a limit of their own, never in the slots of runs the gateway makes;
/// one whose agents never come fails with one sentence per shard that reads the same everywhere.
/// </summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class DistributedRunLimitTests(SystemFixture system, ITestOutputHelper output)
{
    private const string Distributed = """{"strategy": "initialized-client", "count": 20, "agents": 2}""";

    private const int JoinSeconds = 15;

    [Fact]
    public async Task RunsWaitingForAgentsLeaveTheLocalSlotsFreeAndTheOneOverTheirOwnLimitGetsA429NamingIt()
    {
        var service = system.Service;
        // The agents never come, and the join timeout never ends the wait within the test.
        await using var gateway = await AppProcess.StartAsync("ApiGateway",
            ["--ServerUrl", service.Url, "--Agents:JoinTimeoutSeconds", "3600", "--Agents:MaxRunsInFlight", "2", "--Runs:MaxRunsInFlight", "2"]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(60) };
        string[] waiting = [(await http.StartRunAsync(Distributed)).GetProperty("id").GetString()!, (await http.StartRunAsync(Distributed)).GetProperty("id").GetString()!];

        using var third = await http.PostJsonAsync("/api/runs", Distributed);
        Assert.Equal(HttpStatusCode.TooManyRequests, third.StatusCode);
        Assert.NotNull(third.Headers.RetryAfter);
        Assert.Contains("2 distributed run(s) are already waiting for or following their agents, the most Agents:MaxRunsInFlight allows",
            (await SystemFixture.ReadProblemAsync(third)).GetProperty("detail").GetString());

        // Both of Runs:MaxRunsInFlight's slots are free: two local runs start at once, and complete, while the two wait.
        string[] locals =
        [
            (await http.StartRunAsync("""{"strategy": "client-wrapper", "count": 20, "delayMs": 50}""")).GetProperty("id").GetString()!,
            (await http.StartRunAsync("""{"strategy": "client-wrapper", "count": 20, "delayMs": 50}""")).GetProperty("id").GetString()!,
        ];
        foreach (var local in locals)
        {
            var ended = await http.WaitUntilFinishedAsync($"/api/runs/{local}");
            Assert.True(ended.GetProperty("state").GetString() == "Completed", ended.ToString());
        }

        foreach (var id in waiting)
        {
            Assert.Equal("Running", (await http.GetJsonAsync($"/api/runs/{id}")).GetProperty("state").GetString());
            using var cancel = await http.PostAsync($"/api/runs/{id}/cancel", null);
            Assert.Equal("Cancelled", (await http.WaitUntilFinishedAsync($"/api/runs/{id}")).GetProperty("state").GetString());
        }

        // Their slots are given back with them.
        var again = (await http.StartRunAsync(Distributed)).GetProperty("id").GetString();
        using var cancelAgain = await http.PostAsync($"/api/runs/{again}/cancel", null);
        Assert.Equal("Cancelled", (await http.WaitUntilFinishedAsync($"/api/runs/{again}")).GetProperty("state").GetString());
    }

    [Fact]
    public async Task ADistributedRunWhoseAgentsNeverCameFailsWithTheSameShardSentencesStoredInItsEventsAndInItsLogLineWithItsRealDuration()
    {
        var service = system.Service;
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", service.Url, "--Agents:JoinTimeoutSeconds", JoinSeconds.ToString(CultureInfo.InvariantCulture)]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(60) };
        var followed = (await http.StartRunAsync(Distributed)).GetProperty("id").GetString()!;
        var readAfter = (await http.StartRunAsync(Distributed)).GetProperty("id").GetString()!;
        // One run's events are followed from its start: its 'final' is the one pushed as it ends.
        using var live = await http.GetAsync($"/api/runs/{followed}/events", HttpCompletionOption.ResponseHeadersRead);
        var expected = Enumerable.Range(0, 2).Select(shard => $"No agent took shard {shard}/2 within {JoinSeconds} s (Agents:JoinTimeoutSeconds).").ToList();
        var error = $"No agent reported figures. {string.Join(" ", expected)}";

        foreach (var id in new[] { followed, readAfter })
        {
            var run = await http.WaitUntilFinishedAsync($"/api/runs/{id}", TimeSpan.FromSeconds(JoinSeconds + 120));
            output.WriteLine($"{id}: {run.GetProperty("state")}: {run.GetProperty("error")}");
            Assert.Equal("Failed", run.GetProperty("state").GetString());
            Assert.Equal(error, run.GetProperty("error").GetString());

            // GET, read back from the history and the agents' store after the run ended.
            Assert.Equal(expected, Sentences(run));
            Assert.All(run.GetProperty("agentReports").EnumerateArray(), report => Assert.Equal("Missing", report.GetProperty("state").GetString()));

            // The events' final: pushed as the run ended, or read from the history afterwards.
            var final = id == followed ? await FinalAsync(live) : await FinalAsync(await http.GetAsync($"/api/runs/{id}/events", HttpCompletionOption.ResponseHeadersRead));
            Assert.Equal(error, final.GetProperty("error").GetString());
            Assert.Equal(expected, Sentences(final));

            // The store itself: each shard's sentence as the gateway declared it when the run ended.
            await using (var store = new RunAgentStore(HistoryDatabase.Open(HistoryDatabase.Sqlite, gateway.HistoryPath!)))
            {
                Assert.Equal(expected, (await store.ListShardsAsync(Guid.Parse(id), withFigures: false)).Select(row => row.Error ?? ""));
            }

            // The log line: the run's real duration (it waited out the join timeout, where it said 0 ms), and the same sentences.
            var logged = $"Run {id} (initialized-client) ended Failed after ";
            Assert.True(await gateway.WaitForOutputAsync(line => line.Contains(logged, StringComparison.Ordinal), TimeSpan.FromSeconds(30)), gateway.Output);
            var line = gateway.Output.Split(Environment.NewLine).Single(line => line.Contains(logged, StringComparison.Ordinal));
            var took = double.Parse(Regex.Match(line, @"ended Failed after ([\d.]+) ms").Groups[1].Value, CultureInfo.InvariantCulture);
            Assert.InRange(took, JoinSeconds * 1000, (JoinSeconds + 120) * 1000);
            Assert.EndsWith(error, line);
        }

        // An agent that comes later is told the run ended without its shard, and runs nothing.
        var late = await CliProcess.RunAsync("--agent", "--run-id", readAfter, "--shard", "1/2", "--target", service.Url, "--history", gateway.HistoryPath!);
        Assert.Equal(1, late.ExitCode);
        Assert.Contains($"run {readAfter} ended without shard 1/2: {expected[1]} Nothing was run.", late.Error);
    }

    [Fact]
    public async Task AnAgentDeclaredMissingWhileFrozenHasItsLateFiguresRefusedAndTheRunKeepsItsSentence()
    {
        var service = system.Service;
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", service.Url, "--Agents:HeartbeatTimeoutSeconds", "3"]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(60) };
        // 200 calls of 20 ms: 4 s, longer than it takes to freeze the agent; a silence window the freeze cannot trip.
        var id = (await http.StartRunAsync("""{"strategy": "initialized-client", "count": 200, "delayMs": 20, "agents": 1}""")).GetProperty("id").GetString()!;
        using var agent = CliProcess.Start("--agent", "--run-id", id, "--shard", "0/1", "--target", service.Url, "--history", gateway.HistoryPath!, "--plain", "--silence-seconds", "120");
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(120);
        JsonElement reported;
        while ((reported = await http.GetJsonAsync($"/api/runs/{id}")).GetProperty("agentReports")[0].GetProperty("callsSoFar").GetInt64() == 0)
        {
            Assert.True(DateTime.UtcNow < deadline, $"the agent never reported a call in 120 s: {reported}");
            await Task.Delay(50);
        }

        agent.Signal("STOP");
        JsonElement run;
        try
        {
            run = await http.WaitUntilFinishedAsync($"/api/runs/{id}", TimeSpan.FromSeconds(120));
        }
        finally
        {
            agent.Signal("CONT");
        }

        var finished = await agent.WaitForExitAsync(TimeSpan.FromSeconds(120));
        var after = await http.GetJsonAsync($"/api/runs/{id}");

        Assert.Equal("Failed", run.GetProperty("state").GetString());
        var sentence = Assert.Single(Sentences(run));
        Assert.Matches(@"^Agent .+ stopped reporting at \d\d:\d\d:\d\d UTC, [\d.]+ s without a heartbeat, after \d+ calls\.$", sentence);
        Assert.True(finished.ExitCode == 1, finished.ToString());
        Assert.Contains("but the gateway had already ended the run without it (declared missing): its figures are not in the run.", finished.Error);
        // Read again once the agent's figures came: the shard is still missing, with the same sentence, and the run unchanged.
        Assert.Equal("Missing", after.GetProperty("agentReports")[0].GetProperty("state").GetString());
        Assert.Equal([sentence], Sentences(after));
        Assert.Equal(run.GetProperty("error").GetString(), after.GetProperty("error").GetString());
    }

    private static List<string> Sentences(JsonElement run) =>
        [.. run.GetProperty("agentReports").EnumerateArray().Select(report => report.GetProperty("error").GetString() ?? "")];

    /// <summary>The 'final' event of a run's Server-Sent Events.</summary>
    private static async Task<JsonElement> FinalAsync(HttpResponseMessage response)
    {
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(JoinSeconds + 120));
        using var reader = new StreamReader(await response.Content.ReadAsStreamAsync(timeout.Token));
        var name = "message";
        while (await reader.ReadLineAsync(timeout.Token) is { } line)
        {
            if (line.StartsWith("event: ", StringComparison.Ordinal))
            {
                name = line["event: ".Length..];
            }
            else if (line.StartsWith("data: ", StringComparison.Ordinal) && name == "final")
            {
                return JsonDocument.Parse(line["data: ".Length..]).RootElement.Clone();
            }
        }

        throw new InvalidOperationException("The events ended without a 'final'.");
    }
}
