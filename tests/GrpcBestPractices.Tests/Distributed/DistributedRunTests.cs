using System.Text.Json;
using HistoryStore;
using GrpcBestPractices.Tests.Infrastructure;
using HdrHistogram;
using LoadEngine.Runs;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.Distributed;

/// <summary>
/// Distributed runs with real processes: the service (one for the class), a gateway per test, and agent processes (the CLI
/// with --agent) sharing one history. The store is SQLite here and PostgreSQL in <see cref="PostgresDistributedRunTests"/>: the same behaviour.
/// </summary>
public abstract class DistributedRunTests(ITestOutputHelper output, ServiceFixture shared)
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(120);

    /// <summary>The gateway's arguments that choose the shared store.</summary>
    protected abstract Task<string[]> GatewayHistoryAsync();

    /// <summary>The agent's arguments that name the same store.</summary>
    protected abstract string[] AgentHistory(AppProcess gateway);

    /// <summary>The store as the test reads it back, to check the gateway's figures against what the agents wrote.</summary>
    protected abstract RunAgentStore OpenStore(AppProcess gateway);

    [Fact]
    public async Task FourAgentsShareARunAndTheMergedRunHasEveryCallAndExactlyThePercentilesOfOneHistogramHoldingThemAll()
    {
        var service = shared.Service;
        await using var gateway = await StartGatewayAsync(service);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress };

        var started = await http.StartRunAsync("""{"strategy": "factory-client", "load": "closed", "concurrency": 8, "count": 4002, "warmup": 20, "agents": 4}""");
        var id = started.GetProperty("id").GetString()!;
        var waiting = started.GetProperty("agentReports").EnumerateArray().ToList();
        Assert.Equal(4, waiting.Count);
        Assert.All(waiting, report => Assert.Equal("Waiting", report.GetProperty("state").GetString()));
        Assert.Equal([1001, 1001, 1000, 1000], waiting.Select(report => report.GetProperty("share").GetProperty("count").GetInt32()));
        Assert.Contains($"--run-id {id} --shard 2/4", waiting[2].GetProperty("command").GetString());

        var agents = Enumerable.Range(0, 4).Select(index => CliProcess.Start(AgentArguments(gateway, service, id, $"{index}/4"))).ToList();
        try
        {
            var results = await Task.WhenAll(agents.Select(agent => agent.WaitForExitAsync(Patience)));
            Assert.All(results, result => Assert.True(result.ExitCode == 0, result.ToString()));
        }
        finally
        {
            agents.ForEach(agent => agent.Dispose());
        }

        var run = await http.WaitUntilFinishedAsync($"/api/runs/{id}", Patience);
        Assert.True(run.GetProperty("state").GetString() == "Completed", run.ToString());
        var stats = run.GetProperty("stats");
        var reports = run.GetProperty("agentReports").EnumerateArray().ToList();
        Assert.Equal(4002, stats.GetProperty("calls").GetInt64());
        Assert.Equal(reports.Sum(report => report.GetProperty("stats").GetProperty("calls").GetInt64()), stats.GetProperty("calls").GetInt64());
        Assert.Equal(0, stats.GetProperty("failed").GetInt64());
        Assert.All(reports, report => Assert.Equal("Completed", report.GetProperty("state").GetString()));
        // Four processes, each with the one connection a factory client's channel opens.
        Assert.Equal(4, stats.GetProperty("connectionsUsed").GetInt32());

        // One histogram holding every value the agents recorded, added up here from what they stored.
        await using var store = OpenStore(gateway);
        var shards = await store.ListShardsAsync(Guid.Parse(id), withFigures: true);
        var all = new LongHistogram(1, LatencyRecorder.HighestUnits, LatencyRecorder.SignificantDigits);
        foreach (var shard in shards)
        {
            all.Add(shard.Figures!.Latency.Histogram);
        }

        var maxUnits = shards.Max(shard => shard.Figures!.Latency.MaxUnits);
        var latency = stats.GetProperty("latency");
        Assert.Equal(all.TotalCount, shards.Sum(shard => shard.Figures!.Latency.Count));
        Assert.Equal(4002 - 4, all.TotalCount); // each agent's first call is reported apart
        foreach (var (field, percentile) in new[] { ("p50Ms", 50.0), ("p99Ms", 99.0), ("p999Ms", 99.9) })
        {
            var expected = Math.Round(LatencyRecorder.Milliseconds(Math.Min(all.GetValueAtPercentile(percentile), maxUnits)), 4);
            output.WriteLine($"{field}: merged run {latency.GetProperty(field).GetDouble()} ms, one histogram of all {all.TotalCount} values {expected} ms; " +
                $"the agents' own: {string.Join(", ", reports.Select(report => report.GetProperty("stats").GetProperty("latency").GetProperty(field).GetDouble()))} ms");
            Assert.Equal(expected, latency.GetProperty(field).GetDouble());
        }
    }

    [Fact]
    public async Task AnAgentKilledMidRunLeavesThePartialRunNamingItsMissingShareAndTheOthersFigures()
    {
        var service = shared.Service;
        await using var gateway = await StartGatewayAsync(service, "--Agents:HeartbeatTimeoutSeconds", "3");
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress };
        // 200 calls each, 20 ms apiece: long enough to kill one agent while it runs.
        var id = (await http.StartRunAsync("""{"strategy": "initialized-client", "count": 400, "delayMs": 20, "agents": 2}""")).GetProperty("id").GetString()!;

        using var survivor = CliProcess.Start(AgentArguments(gateway, service, id, "0/2"));
        using (var victim = CliProcess.Start(AgentArguments(gateway, service, id, "1/2")))
        {
            await WaitAsync(async () => (await http.GetJsonAsync($"/api/runs/{id}")).GetProperty("agentReports")[1].GetProperty("callsSoFar").GetInt64() > 0, "agent 1/2 to report calls");
            victim.Dispose(); // kill -9: no last word
        }

        var killed = System.Diagnostics.Stopwatch.StartNew();
        Assert.Equal(0, (await survivor.WaitForExitAsync(Patience)).ExitCode);
        var run = await http.WaitUntilFinishedAsync($"/api/runs/{id}", Patience);
        output.WriteLine($"Ended {run.GetProperty("state")} {killed.Elapsed.TotalSeconds:0.0} s after the kill (heartbeat timeout 3 s): {run.GetProperty("error")}");

        Assert.Equal("Partial", run.GetProperty("state").GetString());
        var error = run.GetProperty("error").GetString()!;
        Assert.Contains("shard 1/2's share of 200 calls is missing", error);
        Assert.Matches(@"\(Agent .+ stopped reporting at \d\d:\d\d:\d\d UTC, [\d.]+ s without a heartbeat, after \d+ calls\)\. The figures", error);
        Assert.Contains("The figures are the 1 of 2 agents that reported.", error);
        Assert.Equal(200, run.GetProperty("stats").GetProperty("calls").GetInt64());
        var reports = run.GetProperty("agentReports").EnumerateArray().ToList();
        Assert.Equal(["Completed", "Missing"], reports.Select(report => report.GetProperty("state").GetString()));
    }

    [Fact]
    public async Task OneAgentAndFourAgentsAtAQuarterOfTheRateMakeTheSameCallsWithAConsistentDistribution()
    {
        var service = shared.Service;
        await using var gateway = await StartGatewayAsync(service);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress };
        var runs = new List<JsonElement>();
        foreach (var agents in new[] { 1, 4 })
        {
            var id = (await http.StartRunAsync($$"""{"strategy": "initialized-client", "load": "open", "rate": 200, "duration": 3, "concurrency": 40, "warmup": 20, "agents": {{agents}}}""")).GetProperty("id").GetString()!;
            var processes = Enumerable.Range(0, agents).Select(index => CliProcess.Start(AgentArguments(gateway, service, id, $"{index}/{agents}"))).ToList();
            try
            {
                var results = await Task.WhenAll(processes.Select(agent => agent.WaitForExitAsync(Patience)));
                Assert.All(results, result => Assert.True(result.ExitCode == 0, result.ToString()));
            }
            finally
            {
                processes.ForEach(agent => agent.Dispose());
            }

            runs.Add(await http.WaitUntilFinishedAsync($"/api/runs/{id}", Patience));
        }

        Assert.All(runs, run => Assert.True(run.GetProperty("state").GetString() == "Completed", run.ToString()));
        var (one, four) = (runs[0].GetProperty("stats"), runs[1].GetProperty("stats"));
        // 200 calls/s for 3 s, due on schedule whoever sends them.
        Assert.Equal(600, one.GetProperty("sends").GetProperty("intended").GetInt64());
        Assert.Equal(600, four.GetProperty("sends").GetProperty("intended").GetInt64());
        Assert.Equal(600, one.GetProperty("calls").GetInt64() + one.GetProperty("sends").GetProperty("dropped").GetInt64());
        Assert.Equal(600, four.GetProperty("calls").GetInt64() + four.GetProperty("sends").GetProperty("dropped").GetInt64());
        Assert.Equal(200, four.GetProperty("sends").GetProperty("requestedRatePerSecond").GetDouble());
        var (p50One, p50Four) = (one.GetProperty("latency").GetProperty("p50Ms").GetDouble(), four.GetProperty("latency").GetProperty("p50Ms").GetDouble());
        output.WriteLine($"1 agent: {one.GetProperty("calls")} calls, p50 {p50One} ms, p99 {one.GetProperty("latency").GetProperty("p99Ms")} ms; " +
            $"4 agents: {four.GetProperty("calls")} calls, p50 {p50Four} ms, p99 {four.GetProperty("latency").GetProperty("p99Ms")} ms");
        // Merging is exact: the merged median lies within the agents' own medians, however busy the machine was.
        var agentMedians = runs[1].GetProperty("agentReports").EnumerateArray()
            .Select(report => report.GetProperty("stats").GetProperty("latency").GetProperty("p50Ms").GetDouble()).ToList();
        Assert.Equal(4, agentMedians.Count);
        Assert.InRange(p50Four, agentMedians.Min(), agentMedians.Max());
        // Across the two runs, only the same order of magnitude: four agent processes starting beside a service on a
        // shared 2-core machine slow each new connection (a loaded run measured 3.0x), which is the machine, not the merge.
        Assert.InRange(p50Four / p50One, 1 / 10.0, 10.0);
    }

    [Fact]
    public async Task AShardThatNoAgentTakesIsMissingAfterTheJoinTimeoutAndAnAgentForAShardAlreadyTakenIsRefused()
    {
        var service = shared.Service;
        // Long enough for the first agent's process to start on a busy machine; the second never comes.
        await using var gateway = await StartGatewayAsync(service, "--Agents:JoinTimeoutSeconds", "20");
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress };
        var id = (await http.StartRunAsync("""{"strategy": "initialized-client", "count": 20, "agents": 2}""")).GetProperty("id").GetString()!;

        var first = await CliProcess.RunAsync(AgentArguments(gateway, service, id, "0/2"));
        var again = await CliProcess.RunAsync(AgentArguments(gateway, service, id, "0/2"));
        var wrongCount = await CliProcess.RunAsync(AgentArguments(gateway, service, id, "0/3"));
        var run = await http.WaitUntilFinishedAsync($"/api/runs/{id}", Patience);

        Assert.True(first.ExitCode == 0, first.ToString());
        Assert.Equal(2, again.ExitCode);
        Assert.Contains($"shard 0/2 of run {id} is already taken by", again.Error);
        Assert.Equal(2, wrongCount.ExitCode);
        Assert.Contains($"run {id} is shared among 2 agents; --shard was 0/3.", wrongCount.Error);
        Assert.True(run.GetProperty("state").GetString() == "Partial", run.ToString());
        Assert.Contains("No agent took shard 1/2 within 20 s (Agents:JoinTimeoutSeconds)", run.GetProperty("error").GetString());
        Assert.Equal(10, run.GetProperty("stats").GetProperty("calls").GetInt64());
    }

    private async Task<AppProcess> StartGatewayAsync(AppProcess service, params string[] more) =>
        await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", service.Url, .. await GatewayHistoryAsync(), .. more]);

    private string[] AgentArguments(AppProcess gateway, AppProcess service, string id, string shard) =>
        // A generous silence window: five processes start at once on two busy cores, and this test is about the merge.
        ["--agent", "--run-id", id, "--shard", shard, "--target", service.Url, "--plain", "--silence-seconds", "30", .. AgentHistory(gateway)];

    private static async Task WaitAsync(Func<Task<bool>> condition, string what)
    {
        var deadline = DateTime.UtcNow + Patience;
        while (!await condition())
        {
            Assert.True(DateTime.UtcNow < deadline, $"waited in vain for {what}");
            await Task.Delay(50);
        }
    }
}

[Trait("Category", "Process")]
public sealed class SqliteDistributedRunTests(ITestOutputHelper output, ServiceFixture service) : DistributedRunTests(output, service), IClassFixture<ServiceFixture>
{
    protected override Task<string[]> GatewayHistoryAsync() => Task.FromResult<string[]>([]);

    protected override string[] AgentHistory(AppProcess gateway) => ["--history", gateway.HistoryPath!];

    protected override RunAgentStore OpenStore(AppProcess gateway) => new RunAgentStore(HistoryDatabase.Open(HistoryDatabase.Sqlite, gateway.HistoryPath!));
}

/// <summary>The same runs with the history, and so the agents' shards, in a real PostgreSQL server started for these tests.</summary>
[Trait("Category", "Process")]
public sealed class PostgresDistributedRunTests(ITestOutputHelper output, ServiceFixture service, PostgresServer postgres)
    : DistributedRunTests(output, service), IClassFixture<ServiceFixture>, IClassFixture<PostgresServer>
{
    private string? _connection;

    protected override async Task<string[]> GatewayHistoryAsync()
    {
        _connection = await postgres.CreateDatabaseAsync("agents_" + Guid.NewGuid().ToString("N")[..12]);
        return ["--History:Provider", "Postgres", "--ConnectionStrings:History", _connection];
    }

    protected override string[] AgentHistory(AppProcess gateway) => ["--history-provider", "Postgres", "--history", _connection!];

    protected override RunAgentStore OpenStore(AppProcess gateway) => new RunAgentStore(HistoryDatabase.Open(HistoryDatabase.Postgres, _connection!));
}
