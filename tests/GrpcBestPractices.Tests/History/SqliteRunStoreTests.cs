using System.Security.Cryptography;
using System.Text.Json.Nodes;
using HistoryStore;
using ApiGateway.History;
using ApiGateway.Runs;
using GrpcBestPractices.Tests.Fakes;
using GrpcBestPractices.Tests.Infrastructure;
using LoadEngine.Checkup;
using LoadEngine.Lessons;
using Microsoft.Data.Sqlite;
using static GrpcBestPractices.Tests.History.StoredRecords;

namespace GrpcBestPractices.Tests.History;

/// <summary>The run store contract on a real SQLite file in a fresh temp folder per test, and what only a file shows: its older schemas, and paths that cannot hold it.</summary>
public sealed class SqliteRunStoreTests : RunStoreContract
{
    private readonly TemporaryFolder _folder = new();

    private string DatabasePath => _folder.File("history.db");

    [Fact]
    public async Task AVersion2HistoryGainsComparisonsAndKeepsItsSuites()
    {
        var path = DatabasePath;
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

        var store = await OpenStoreAsync();

        Assert.Null((await store.GetSuiteAsync(suiteId))?.Comparison);
        Assert.Equal(["client-wrapper"], (await store.GetSuiteAsync(suiteId))?.Strategies);
        var comparison = Comparison(new ComparisonPlan(["grpc-h2-cleartext", "grpc-h2-tls"], 1), Noon);
        await store.SaveSuiteAsync(comparison);
        Assert.Equal([comparison.Id], (await store.ListComparisonsAsync(10, 0)).Select(suite => suite.Id));
    }

    [Fact]
    public async Task AVersion3HistoryKeepsItsRunsAndGainsLessonExperiments()
    {
        var path = DatabasePath;
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

        var store = await OpenStoreAsync();
        var experiment = new ExperimentRecord(Guid.NewGuid(), "streaming", RunState.Running, Noon, null, null, 3, []);
        var arm = Run("streaming-call", Noon) with { ExperimentId = experiment.Id };
        await store.SaveExperimentAsync(experiment);
        await store.SaveAsync(arm);
        await store.MarkInterruptedAsync();

        Assert.Null((await store.GetAsync(runId))?.ExperimentId);
        Assert.Equal(experiment.Id, (await store.GetAsync(arm.Id))?.ExperimentId);
        var interrupted = await store.GetExperimentAsync(experiment.Id);
        Assert.Equal((RunState.Failed, RunStore.InterruptedError), (interrupted?.State, interrupted?.Error));
        Assert.NotNull(interrupted?.FinishedAt);
        Assert.Equal([experiment.Id], (await store.ListExperimentsAsync("streaming", 10, 0)).Select(stored => stored.Id));
        Assert.Equal(0, await store.CountExperimentsAsync("keep-alive"));
    }

    [Fact]
    public async Task AVersion1HistoryGivesItsRunsTheLoadTheyRanUnderAndGainsEveryLaterColumn()
    {
        var (stream, wrapper, suiteId) = (Guid.NewGuid(), Guid.NewGuid(), Guid.NewGuid());
        // The version 1 tables, as the gateway before load models made them: plans without a load.
        await CreateOldFileAsync($"""
            CREATE TABLE runs (id TEXT NOT NULL PRIMARY KEY, suite_id TEXT NULL, strategy TEXT NOT NULL, state TEXT NOT NULL, started_at TEXT NOT NULL,
                finished_at TEXT NULL, plan_json TEXT NOT NULL, stats_json TEXT NULL, error TEXT NULL);
            CREATE TABLE suites (id TEXT NOT NULL PRIMARY KEY, state TEXT NOT NULL, started_at TEXT NOT NULL, finished_at TEXT NULL,
                plan_json TEXT NOT NULL, strategies_json TEXT NOT NULL, error TEXT NULL);
            INSERT INTO runs (id, strategy, state, started_at, plan_json) VALUES
                ('{stream:D}', 'streaming-call', 'Completed', '2026-11-22T12:00:00.0000000Z', '{PlanWithoutLoad("streaming-call")}'),
                ('{wrapper:D}', 'client-wrapper', 'Completed', '2026-11-22T12:01:00.0000000Z', '{PlanWithoutLoad("client-wrapper")}');
            INSERT INTO suites VALUES ('{suiteId:D}', 'Completed', '2026-11-22T12:00:00.0000000Z', NULL, '{PlanWithoutLoad("client-wrapper")}', '["client-wrapper"]', NULL);
            PRAGMA user_version = 1;
            """);

        var store = await OpenStoreAsync();

        Assert.Equal(LoadKind.Closed, (await store.GetAsync(stream))?.Plan.Load);
        Assert.Equal(LoadKind.Sequential, (await store.GetAsync(wrapper))?.Plan.Load);
        Assert.Contains("\"load\":\"closed\"", await ScalarAsync($"SELECT plan_json FROM runs WHERE id = '{stream:D}';") as string);
        Assert.Contains("\"load\":\"sequential\"", await ScalarAsync($"SELECT plan_json FROM suites WHERE id = '{suiteId:D}';") as string);
        await AssertCurrentAsync(store);
    }

    [Theory]
    [InlineData(4, false)]
    [InlineData(4, true)]
    [InlineData(5, true)]
    public async Task AVersion4Or5HistoryKeepsItsRunsAndGainsTheLaterColumns(int version, bool hasExperimentId)
    {
        var runId = Guid.NewGuid();
        // Version 4 as released, or as written during version 5's development (with experiment_id); version 5 before notes.
        var experimentId = hasExperimentId ? ", experiment_id TEXT NULL" : string.Empty;
        await CreateOldFileAsync($"""
            CREATE TABLE runs (id TEXT NOT NULL PRIMARY KEY, suite_id TEXT NULL, strategy TEXT NOT NULL, state TEXT NOT NULL, started_at TEXT NOT NULL,
                finished_at TEXT NULL, plan_json TEXT NOT NULL, stats_json TEXT NULL, error TEXT NULL, measured TEXT NULL, series_json TEXT NULL, verdict_json TEXT NULL{experimentId});
            CREATE TABLE suites (id TEXT NOT NULL PRIMARY KEY, state TEXT NOT NULL, started_at TEXT NOT NULL, finished_at TEXT NULL,
                plan_json TEXT NOT NULL, strategies_json TEXT NOT NULL, error TEXT NULL, comparison_json TEXT NULL);
            CREATE TABLE experiments (id TEXT NOT NULL PRIMARY KEY, lesson TEXT NOT NULL, state TEXT NOT NULL, started_at TEXT NOT NULL, record_json TEXT NOT NULL);
            INSERT INTO runs (id, strategy, state, started_at, plan_json, measured) VALUES ('{runId:D}', 'client-wrapper', 'Completed', '2026-11-22T12:00:00.0000000Z', '{Json(Plan("client-wrapper"))}', 'as measured');
            PRAGMA user_version = {version};
            """);

        var store = await OpenStoreAsync();

        var kept = await store.GetAsync(runId);
        Assert.Equal(("as measured", null, null), (kept?.Measured, kept?.ExperimentId, kept?.Note));
        await AssertCurrentAsync(store);
    }

    [Fact]
    public async Task AVersion6HistoryMovesTheDescriptorsItsPlansCarryInlineIntoDescriptorSets()
    {
        var runId = Guid.NewGuid();
        var inline = JsonNode.Parse(Json(Plan("client-wrapper").Calling("inventory.Stock/Get", target: "inventory")))!.AsObject();
        inline["descriptors"] = Convert.ToBase64String([.. "a FileDescriptorSet"u8]);
        // The version 6 tables, as the gateway before descriptor sets were kept apart made them: a plan of a target's method carried its set.
        await CreateOldFileAsync($"""
            CREATE TABLE runs (id TEXT NOT NULL PRIMARY KEY, suite_id TEXT NULL, strategy TEXT NOT NULL, state TEXT NOT NULL, started_at TEXT NOT NULL,
                finished_at TEXT NULL, plan_json TEXT NOT NULL, stats_json TEXT NULL, error TEXT NULL, measured TEXT NULL, series_json TEXT NULL, verdict_json TEXT NULL,
                experiment_id TEXT NULL, note TEXT NULL);
            CREATE TABLE suites (id TEXT NOT NULL PRIMARY KEY, state TEXT NOT NULL, started_at TEXT NOT NULL, finished_at TEXT NULL,
                plan_json TEXT NOT NULL, strategies_json TEXT NOT NULL, error TEXT NULL, comparison_json TEXT NULL);
            CREATE TABLE experiments (id TEXT NOT NULL PRIMARY KEY, lesson TEXT NOT NULL, state TEXT NOT NULL, started_at TEXT NOT NULL, record_json TEXT NOT NULL);
            INSERT INTO runs (id, strategy, state, started_at, plan_json, note) VALUES ('{runId:D}', 'client-wrapper', 'Completed', '2026-11-22T12:00:00.0000000Z', '{inline.ToJsonString()}', 'as noted');
            PRAGMA user_version = 6;
            """);

        var store = await OpenStoreAsync();

        var kept = await store.GetAsync(runId);
        var hash = Convert.ToHexString(SHA256.HashData("a FileDescriptorSet"u8));
        Assert.Equal(("inventory.Stock/Get", "as noted", null, hash), (kept?.Plan.Described?.Call, kept?.Note, kept?.Plan.Described?.Descriptors, kept?.Plan.Described?.DescriptorSet));
        Assert.Equal((hash, hash, 0L), (
            await ScalarAsync($"SELECT descriptor_set FROM runs WHERE id = '{runId:D}';"),
            await ScalarAsync("SELECT hash FROM descriptor_sets;"),
            await ScalarAsync($"SELECT COUNT(*) FROM runs WHERE plan_json LIKE '%\"descriptors\"%';")));
        Assert.Equal("a FileDescriptorSet"u8.ToArray(), (byte[]?)await ScalarAsync("SELECT bytes FROM descriptor_sets;"));
        var described = Run("client-wrapper", Noon) with { Plan = DescribedPlan("client-wrapper", [.. "a FileDescriptorSet"u8]) };
        await store.SaveAsync(described);
        Assert.Equal(described.Plan.Described!.DescriptorSet, await ScalarAsync($"SELECT hash FROM descriptor_sets;"));
        Assert.Equal(described.Plan.Described!.DescriptorSet, await ScalarAsync($"SELECT descriptor_set FROM runs WHERE id = '{described.Id:D}';"));
        await AssertCurrentAsync(store);
    }

    [Fact]
    public async Task APathInsideARegularFileFailsClearly()
    {
        var file = _folder.File("not-a-folder");
        await File.WriteAllTextAsync(file, "plain text");

        var failure = await Assert.ThrowsAsync<SqliteException>(() => InitializeAsync(Path.Combine(file, "history.db")));

        Assert.Contains("unable to open database file", failure.Message);
    }

    [Fact]
    public async Task AFileThatIsNotADatabaseFailsClearly()
    {
        var path = DatabasePath;
        await File.WriteAllTextAsync(path, new string('x', 4096));

        var failure = await Assert.ThrowsAsync<SqliteException>(() => InitializeAsync(path));

        Assert.Contains("file is not a database", failure.Message);
    }

    public override async Task DisposeAsync()
    {
        await base.DisposeAsync();
        _folder.Dispose();
    }

    protected override HistoryDatabase OpenDatabase() => HistoryDatabase.OpenSqlite(DatabasePath);

    // Version 8 had every table of today's but the checkups'.
    protected override Task MakeOlderThanCheckupsAsync() => CreateOldFileAsync("DROP TABLE checkups; PRAGMA user_version = 8;");

    private static string PlanWithoutLoad(string strategy)
    {
        var plan = JsonNode.Parse(Json(Plan(strategy)))!.AsObject();
        plan.Remove("load");
        return plan.ToJsonString();
    }

    private async Task CreateOldFileAsync(string sql)
    {
        await using var connection = new SqliteConnection($"Data Source={DatabasePath};Pooling=false");
        await connection.OpenAsync();
        await using var command = connection.CreateCommand();
        command.CommandText = sql;
        await command.ExecuteNonQueryAsync();
    }

    private async Task<object?> ScalarAsync(string sql)
    {
        await using var connection = new SqliteConnection($"Data Source={DatabasePath};Pooling=false");
        await connection.OpenAsync();
        await using var command = connection.CreateCommand();
        command.CommandText = sql;
        return await command.ExecuteScalarAsync();
    }

    /// <summary>The file is at the current schema version, and a run with every column comes back whole.</summary>
    private async Task AssertCurrentAsync(IRunStore store)
    {
        Assert.Equal(9L, await ScalarAsync("PRAGMA user_version;"));
        var run = Run("streaming-call", Noon, RunState.Completed, Guid.NewGuid()) with
        {
            Stats = FullStats(),
            Measured = "100 sequential calls",
            ExperimentId = Guid.NewGuid(),
            Note = "3 of 100 calls failed to connect.",
        };
        await store.SaveAsync(run);
        Assert.Equal(Json(run), Json(await store.GetAsync(run.Id)));
        var experiment = new ExperimentRecord(Guid.NewGuid(), "streaming", RunState.Running, Noon, null, null, 3, []);
        await store.SaveExperimentAsync(experiment);
        Assert.Equal(1, await store.CountExperimentsAsync("streaming"));
        var checkup = new CheckupRecord(Guid.NewGuid(), RunState.Running, Noon, null, null, "http://127.0.0.1:50051", "performance.Monitor/GetPerformance", 120, 1);
        await store.SaveCheckupAsync(checkup);
        Assert.Equal(Json(checkup), Json(await store.GetCheckupAsync(checkup.Id)));
    }

    private static async Task InitializeAsync(string path)
    {
        using var store = new RunStore(HistoryDatabase.OpenSqlite(path));
        await store.InitializeAsync();
    }
}
