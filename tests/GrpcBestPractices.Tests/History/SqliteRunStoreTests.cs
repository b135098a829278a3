using System.Text.Json;
using ApiGateway.History;
using ApiGateway.Runs;
using GrpcBestPractices.Tests.Infrastructure;
using LoadEngine.Lessons;
using Microsoft.Data.Sqlite;

namespace GrpcBestPractices.Tests.History;

/// <summary>Each test gets its own real SQLite file in a fresh temp folder.</summary>
public sealed class SqliteRunStoreTests : IDisposable
{
    private static readonly DateTimeOffset Noon = new(2026, 11, 22, 12, 0, 0, TimeSpan.Zero);

    private readonly TemporaryFolder _folder = new();
    private readonly List<SqliteRunStore> _stores = [];

    [Fact]
    public async Task AFullRunWithStatsAndHistogramComesBackAsItWasSaved()
    {
        var store = await OpenStoreAsync();
        var run = Run("streaming-call", Noon.AddTicks(1234567), RunState.Completed, suiteId: Guid.NewGuid()) with
        {
            FinishedAt = Noon.AddSeconds(2).AddTicks(7),
            Stats = FullStats(),
        };

        await store.SaveAsync(run);
        var loaded = await store.GetAsync(run.Id);

        Assert.NotNull(loaded);
        Assert.Equal(Json(run), Json(loaded));
    }

    [Fact]
    public async Task AnUnknownIdIsNull()
    {
        var store = await OpenStoreAsync();

        Assert.Null(await store.GetAsync(Guid.NewGuid()));
        Assert.Null(await store.GetSuiteAsync(Guid.NewGuid()));
    }

    [Fact]
    public async Task SavingTheSameIdAgainReplacesTheRun()
    {
        var store = await OpenStoreAsync();
        var running = Run("client-wrapper", Noon);

        await store.SaveAsync(running);
        await store.SaveAsync(running with { State = RunState.Failed, FinishedAt = Noon.AddSeconds(1), Error = "Unavailable" });

        Assert.Equal(1, await store.CountAsync(null));
        var loaded = await store.GetAsync(running.Id);
        Assert.Equal(RunState.Failed, loaded?.State);
        Assert.Equal("Unavailable", loaded?.Error);
    }

    [Fact]
    public async Task ListIsNewestFirstByStartTimeWhateverTheOffsetItWasGivenIn()
    {
        var store = await OpenStoreAsync();
        // 11:00+02:00 is 09:00 UTC: older than 10:00 UTC although its clock reads later.
        var oldest = Run("client-wrapper", new DateTimeOffset(2026, 11, 22, 11, 0, 0, TimeSpan.FromHours(2)));
        var newest = Run("client-wrapper", new DateTimeOffset(2026, 11, 22, 11, 30, 0, TimeSpan.Zero));
        var middle = Run("streaming-call", new DateTimeOffset(2026, 11, 22, 10, 0, 0, TimeSpan.Zero));
        foreach (var run in new[] { middle, oldest, newest })
        {
            await store.SaveAsync(run);
        }

        var all = await store.ListAsync(null, 10, 0);

        Assert.Equal([newest.Id, middle.Id, oldest.Id], all.Select(r => r.Id));
    }

    [Fact]
    public async Task ListAndCountCanBeLimitedToOneStrategy()
    {
        var store = await OpenStoreAsync();
        await SaveRunsAsync(store, "client-wrapper", 3);
        await SaveRunsAsync(store, "streaming-call", 2);

        var streaming = await store.ListAsync("streaming-call", 10, 0);

        Assert.Equal(2, streaming.Count);
        Assert.All(streaming, run => Assert.Equal("streaming-call", run.Plan.Strategy));
        Assert.Equal(2, await store.CountAsync("streaming-call"));
        Assert.Equal(5, await store.CountAsync(null));
        Assert.Equal(0, await store.CountAsync("no-such-strategy"));
        Assert.Empty(await store.ListAsync("no-such-strategy", 10, 0));
    }

    [Fact]
    public async Task ListPagesWithLimitAndOffset()
    {
        var store = await OpenStoreAsync();
        var saved = await SaveRunsAsync(store, "client-wrapper", 7);
        var newestFirst = saved.OrderByDescending(r => r.StartedAt).Select(r => r.Id).ToArray();

        var first = await store.ListAsync(null, 3, 0);
        var second = await store.ListAsync(null, 3, 3);
        var last = await store.ListAsync(null, 3, 6);
        var beyond = await store.ListAsync(null, 3, 7);

        Assert.Equal(newestFirst[..3], first.Select(r => r.Id));
        Assert.Equal(newestFirst[3..6], second.Select(r => r.Id));
        Assert.Equal(newestFirst[6..], last.Select(r => r.Id));
        Assert.Empty(beyond);
        Assert.Equal(7, await store.CountAsync(null));
    }

    [Fact]
    public async Task DeleteRemovesARunOnceThenFindsNothingToDelete()
    {
        var store = await OpenStoreAsync();
        var kept = Run("client-wrapper", Noon);
        var deleted = Run("client-wrapper", Noon.AddMinutes(1));
        await store.SaveAsync(kept);
        await store.SaveAsync(deleted);

        Assert.True(await store.DeleteAsync(deleted.Id));
        Assert.False(await store.DeleteAsync(deleted.Id));

        Assert.Null(await store.GetAsync(deleted.Id));
        Assert.Equal([kept.Id], (await store.ListAsync(null, 10, 0)).Select(r => r.Id));
    }

    [Fact]
    public async Task ASuiteComesBackWithItsRunsInTheOrderTheyStarted()
    {
        var store = await OpenStoreAsync();
        var suite = new SuiteRecord(Guid.NewGuid(), Plan("client-wrapper"), ["client-wrapper", "streaming-call", "single-connection"], RunState.Completed, Noon, Noon.AddMinutes(3), null);
        var runs = suite.Strategies.Select((strategy, i) => Run(strategy, Noon.AddMinutes(i), RunState.Completed, suite.Id)).ToArray();
        // Saved out of order, and next to a run of no suite, so the order and the filter both have to come from the query.
        foreach (var run in runs.Reverse().Append(Run("client-wrapper", Noon.AddSeconds(30))))
        {
            await store.SaveAsync(run);
        }

        await store.SaveSuiteAsync(suite);

        Assert.Equal(Json(suite), Json(await store.GetSuiteAsync(suite.Id)));
        Assert.Equal(runs.Select(r => r.Id), (await store.ListSuiteRunsAsync(suite.Id)).Select(r => r.Id));
        Assert.Empty(await store.ListSuiteRunsAsync(Guid.NewGuid()));
    }

    [Fact]
    public async Task AComparisonKeepsItsContendersAndRepetitionsAndOnlyComparisonsAreListedNewestFirst()
    {
        var store = await OpenStoreAsync();
        var comparison = new ComparisonPlan(["grpc-h2-cleartext", "rest-stj-h1-cleartext"], 2);
        var older = Comparison(comparison, Noon);
        var newer = Comparison(comparison, Noon.AddMinutes(5));
        await store.SaveSuiteAsync(newer);
        await store.SaveSuiteAsync(older);
        await store.SaveSuiteAsync(new SuiteRecord(Guid.NewGuid(), Plan("client-wrapper"), ["client-wrapper"], RunState.Completed, Noon.AddMinutes(9), null, null));

        Assert.Equal(Json(newer), Json(await store.GetSuiteAsync(newer.Id)));
        Assert.Equal([newer.Id, older.Id], (await store.ListComparisonsAsync(10, 0)).Select(suite => suite.Id));
        Assert.Equal([older.Id], (await store.ListComparisonsAsync(10, 1)).Select(suite => suite.Id));
        Assert.Equal(2, await store.CountComparisonsAsync());
    }

    [Fact]
    public async Task AVersion2HistoryGainsComparisonsAndKeepsItsSuites()
    {
        var path = _folder.File("history.db");
        var suiteId = Guid.NewGuid();
        // The version 2 suites table, as the gateway before comparisons made it.
        await using (var connection = new SqliteConnection($"Data Source={path};Pooling=false"))
        {
            await connection.OpenAsync();
            await using var command = connection.CreateCommand();
            command.CommandText = $"""
                CREATE TABLE suites (id TEXT NOT NULL PRIMARY KEY, state TEXT NOT NULL, started_at TEXT NOT NULL, finished_at TEXT NULL,
                    plan_json TEXT NOT NULL, strategies_json TEXT NOT NULL, error TEXT NULL);
                INSERT INTO suites VALUES ('{suiteId:D}', 'Completed', '2026-11-22T12:00:00.0000000Z', NULL, '{Json(Plan("client-wrapper"))}', '["client-wrapper"]', NULL);
                PRAGMA user_version = 2;
                """;
            await command.ExecuteNonQueryAsync();
        }

        var store = await OpenStoreAsync(path);

        Assert.Null((await store.GetSuiteAsync(suiteId))?.Comparison);
        Assert.Equal(["client-wrapper"], (await store.GetSuiteAsync(suiteId))?.Strategies);
        var comparison = Comparison(new ComparisonPlan(["grpc-h2-cleartext", "grpc-h2-tls"], 1), Noon);
        await store.SaveSuiteAsync(comparison);
        Assert.Equal([comparison.Id], (await store.ListComparisonsAsync(10, 0)).Select(suite => suite.Id));
    }

    [Fact]
    public async Task AVersion3HistoryKeepsItsRunsAndGainsLessonExperiments()
    {
        var path = _folder.File("history.db");
        var runId = Guid.NewGuid();
        // The version 3 runs table, as the gateway before the lesson experiments made it.
        await using (var connection = new SqliteConnection($"Data Source={path};Pooling=false"))
        {
            await connection.OpenAsync();
            await using var command = connection.CreateCommand();
            command.CommandText = $"""
                CREATE TABLE runs (id TEXT NOT NULL PRIMARY KEY, suite_id TEXT NULL, strategy TEXT NOT NULL, state TEXT NOT NULL, started_at TEXT NOT NULL,
                    finished_at TEXT NULL, plan_json TEXT NOT NULL, stats_json TEXT NULL, error TEXT NULL, measured TEXT NULL, series_json TEXT NULL, verdict_json TEXT NULL);
                INSERT INTO runs (id, strategy, state, started_at, plan_json) VALUES ('{runId:D}', 'client-wrapper', 'Completed', '2026-11-22T12:00:00.0000000Z', '{Json(Plan("client-wrapper"))}');
                PRAGMA user_version = 3;
                """;
            await command.ExecuteNonQueryAsync();
        }

        var store = await OpenStoreAsync(path);
        var experiment = new ExperimentRecord(Guid.NewGuid(), "streaming", RunState.Running, Noon, null, null, 3, []);
        var arm = Run("streaming-call", Noon) with { ExperimentId = experiment.Id };
        await store.SaveExperimentAsync(experiment);
        await store.SaveAsync(arm);
        await store.MarkInterruptedAsync();

        Assert.Null((await store.GetAsync(runId))?.ExperimentId);
        Assert.Equal(experiment.Id, (await store.GetAsync(arm.Id))?.ExperimentId);
        var interrupted = await store.GetExperimentAsync(experiment.Id);
        Assert.Equal((RunState.Failed, SqliteRunStore.InterruptedError), (interrupted?.State, interrupted?.Error));
        Assert.NotNull(interrupted?.FinishedAt);
        Assert.Equal([experiment.Id], (await store.ListExperimentsAsync("streaming", 10, 0)).Select(stored => stored.Id));
        Assert.Equal(0, await store.CountExperimentsAsync("keep-alive"));
    }

    [Fact]
    public async Task RunsSurviveANewStoreOnTheSameFile()
    {
        var path = _folder.File("history.db");
        var before = await OpenStoreAsync(path);
        var run = Run("client-wrapper", Noon, RunState.Completed) with { Stats = FullStats() };
        await before.SaveAsync(run);
        // What a gateway stop does: every connection closed.
        before.Dispose();

        var after = await OpenStoreAsync(path);

        Assert.Equal(Json(run), Json(await after.GetAsync(run.Id)));
        Assert.Equal(1, await after.CountAsync(null));
    }

    [Fact]
    public async Task MarkInterruptedFailsWhatWasStillRunningAndLeavesTheRestAlone()
    {
        var store = await OpenStoreAsync();
        var running = Run("client-wrapper", Noon);
        var completed = Run("client-wrapper", Noon, RunState.Completed) with { FinishedAt = Noon.AddSeconds(1), Stats = FullStats() };
        var runningSuite = new SuiteRecord(Guid.NewGuid(), Plan("client-wrapper"), ["client-wrapper"], RunState.Running, Noon, null, null);
        await store.SaveAsync(running);
        await store.SaveAsync(completed);
        await store.SaveSuiteAsync(runningSuite);
        var before = DateTimeOffset.UtcNow;

        Assert.Equal(2, await store.MarkInterruptedAsync());

        var interrupted = await store.GetAsync(running.Id);
        Assert.Equal(RunState.Failed, interrupted?.State);
        Assert.Equal("The gateway stopped before this run finished.", interrupted?.Error);
        Assert.InRange(interrupted?.FinishedAt ?? default, before, DateTimeOffset.UtcNow);
        var suite = await store.GetSuiteAsync(runningSuite.Id);
        Assert.Equal(RunState.Failed, suite?.State);
        Assert.Equal("The gateway stopped before this run finished.", suite?.Error);
        Assert.NotNull(suite?.FinishedAt);
        Assert.Equal(Json(completed), Json(await store.GetAsync(completed.Id)));
        Assert.Equal(0, await store.MarkInterruptedAsync());
    }

    [Fact]
    public async Task TwoHundredConcurrentSavesAreAllStored()
    {
        var store = await OpenStoreAsync();
        var runs = Enumerable.Range(0, 200).Select(i => Run("single-connection", Noon.AddMilliseconds(i), RunState.Completed) with { Stats = FullStats() }).ToArray();

        await Task.WhenAll(runs.Select(run => Task.Run(() => store.SaveAsync(run))));

        Assert.Equal(200, await store.CountAsync(null));
        var listed = await store.ListAsync(null, 500, 0);
        Assert.Equal(runs.Select(r => r.Id).Order(), listed.Select(r => r.Id).Order());
    }

    [Fact]
    public async Task ACallerWhoCancelsDoesNotCancelTheWrite()
    {
        var store = await OpenStoreAsync();
        var run = Run("client-wrapper", Noon, RunState.Cancelled);

        await store.SaveAsync(run, new CancellationToken(canceled: true));

        Assert.NotNull(await store.GetAsync(run.Id));
    }

    [Fact]
    public async Task APathInsideARegularFileFailsClearly()
    {
        var file = _folder.File("not-a-folder");
        await File.WriteAllTextAsync(file, "plain text");

        var failure = await Assert.ThrowsAsync<SqliteException>(() => OpenStoreAsync(Path.Combine(file, "history.db")));

        Assert.Contains("unable to open database file", failure.Message);
    }

    [Fact]
    public async Task AFileThatIsNotADatabaseFailsClearly()
    {
        var path = _folder.File("history.db");
        await File.WriteAllTextAsync(path, new string('x', 4096));

        var failure = await Assert.ThrowsAsync<SqliteException>(() => OpenStoreAsync(path));

        Assert.Contains("file is not a database", failure.Message);
    }

    public void Dispose()
    {
        foreach (var store in _stores)
        {
            store.Dispose();
        }

        _folder.Dispose();
    }

    private async Task<SqliteRunStore> OpenStoreAsync(string? path = null)
    {
        var store = new SqliteRunStore(path ?? _folder.File("history.db"));
        _stores.Add(store);
        await store.InitializeAsync();
        return store;
    }

    private static async Task<RunRecord[]> SaveRunsAsync(SqliteRunStore store, string strategy, int count)
    {
        // Saved out of time order, so the order has to come from the query.
        var runs = Enumerable.Range(0, count).Select(i => Run(strategy, Noon.AddMinutes(i % 2 == 0 ? i : -i))).ToArray();
        foreach (var run in runs)
        {
            await store.SaveAsync(run);
        }

        return runs;
    }

    private static RunPlan Plan(string strategy) => new() { Strategy = strategy, Count = 1000, Concurrency = 100, Warmup = 10, PayloadBytes = 100, IncludeStatuses = true };

    private static RunRecord Run(string strategy, DateTimeOffset startedAt, RunState state = RunState.Running, Guid? suiteId = null) =>
        new(Guid.NewGuid(), Plan(strategy), state, startedAt, null, null, null, suiteId);

    private static SuiteRecord Comparison(ComparisonPlan comparison, DateTimeOffset startedAt) =>
        new(Guid.NewGuid(), Plan(comparison.Contenders[0]) with { Workload = "small-ints" }, [.. comparison.Schedule().Select(step => step.Contender)], RunState.Completed, startedAt, startedAt.AddMinutes(1), null)
        {
            Comparison = comparison,
        };

    private static RunStats FullStats() => new(
        WallTimeMs: 144.9,
        ThroughputPerSecond: 6901.3,
        Calls: 1000,
        Succeeded: 999,
        Failed: 1,
        FirstCallMs: 12.25,
        Latency: new LatencySummary(0.08, 0.14, 0.02, 0.13, 0.17, 0.31, 0.9, 1.7),
        Histogram: [new HistogramBin(0, 0.1, 120), new HistogramBin(0.1, 0.2, 860), new HistogramBin(0.2, 1.7, 19)],
        StatusCounts: new Dictionary<string, long> { ["OK"] = 999, ["Unavailable"] = 1 },
        ConnectionsUsed: 1,
        AllocatedBytesPerCall: 2345.5,
        Service: new ServiceLoad(3.1, 7.5, 84.4, 12),
        WarmupCalls: 10,
        WarmupMs: 5.5);

    // The records hold lists, which compare by reference; their JSON compares every value.
    private static string Json<T>(T value) => JsonSerializer.Serialize(value, RunJson.Options);
}
