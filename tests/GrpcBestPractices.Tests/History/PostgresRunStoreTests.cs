using System.Security.Cryptography;
using System.Text.Json.Nodes;
using HistoryStore;
using ApiGateway.History;
using ApiGateway.Runs;
using GrpcBestPractices.Tests.Fakes;
using GrpcBestPractices.Tests.Infrastructure;
using Npgsql;
using static GrpcBestPractices.Tests.History.StoredRecords;

namespace GrpcBestPractices.Tests.History;

/// <summary>
/// The run store contract on a real PostgreSQL server (one for the class, a fresh database per test), and what only a
/// shared database shows: gateways that start or write together, a newer schema, a server nobody listens on.
/// </summary>
[Trait("Category", "Process")]
public sealed class PostgresRunStoreTests(PostgresServer server) : RunStoreContract, IClassFixture<PostgresServer>
{
    private string _connectionString = string.Empty;

    public override async Task InitializeAsync() => _connectionString = await server.CreateDatabaseAsync("runs_" + Guid.NewGuid().ToString("N"));

    [Fact]
    public async Task GatewaysStartingTogetherOnAnEmptyDatabaseAllFindOneSchema()
    {
        var stores = Enumerable.Range(0, 4).Select(_ => Track(new RunStore(HistoryDatabase.OpenPostgres(_connectionString)))).ToArray();

        await Task.WhenAll(stores.Select(store => Task.Run(store.InitializeAsync)));

        var run = Run("client-wrapper", Noon);
        await stores[0].SaveAsync(run);
        Assert.All(await Task.WhenAll(stores.Select(store => store.GetAsync(run.Id))), loaded => Assert.Equal(run.Id, loaded?.Id));
        // One row per schema version, each written once.
        Assert.Equal("1,2,3,4,5", await ScalarAsync("SELECT string_agg(version::text, ',' ORDER BY version) FROM history_schema;"));
    }

    [Fact]
    public async Task TwoGatewaysSavingTheSameRunAtOnceNeverFailEachOther()
    {
        var (first, second) = (Track(new RunStore(HistoryDatabase.OpenPostgres(_connectionString))), Track(new RunStore(HistoryDatabase.OpenPostgres(_connectionString))));
        await first.InitializeAsync();
        var run = Run("client-wrapper", Noon);

        await Task.WhenAll(Enumerable.Range(0, 50).Select(i => Task.Run(() => (i % 2 == 0 ? first : second).SaveAsync(run with { Error = $"save {i}" }))));

        Assert.Equal(1, await second.CountAsync(null));
        Assert.StartsWith("save ", (await first.GetAsync(run.Id))?.Error);
    }

    [Fact]
    public async Task AGatewayDeletingTheLastRunOfASetWhileAnotherSavesOneNeverLeavesAPlanNamingAMissingSet()
    {
        var (first, second) = (Track(new RunStore(HistoryDatabase.OpenPostgres(_connectionString))), Track(new RunStore(HistoryDatabase.OpenPostgres(_connectionString))));
        await first.InitializeAsync();
        var plan = DescribedPlan("client-wrapper", [.. "a FileDescriptorSet"u8]);
        var last = Run("client-wrapper", Noon) with { Plan = plan };
        await first.SaveAsync(last);

        for (var round = 0; round < 50; round++)
        {
            // One gateway deletes the only run naming the set (its sweep finds the set unnamed) as the other stores a new one naming it.
            var next = Run("client-wrapper", Noon.AddMinutes(round)) with { Plan = plan };
            await Task.WhenAll(Task.Run(() => first.DeleteAsync(last.Id)), Task.Run(() => second.SaveAsync(next)));
            Assert.Equal(1L, await ScalarAsync($"SELECT COUNT(*) FROM descriptor_sets WHERE hash = '{plan.Described!.DescriptorSet}';"));
            last = next;
        }
    }

    [Fact]
    public async Task ADatabaseWithANewerSchemaIsRefusedAtStart()
    {
        await (await OpenStoreAsync()).CountAsync(null);
        await ScalarAsync("INSERT INTO history_schema (version) VALUES (6);");

        var refused = await Assert.ThrowsAsync<InvalidDataException>(() => Track(new RunStore(HistoryDatabase.OpenPostgres(_connectionString))).InitializeAsync());

        Assert.Equal("it holds history schema version 6, newer than this gateway's 5", refused.Message);
    }

    [Fact]
    public async Task AVersion1DatabaseKeepsItsRunsAndGainsNotesAndDescriptorSets()
    {
        var runId = Guid.NewGuid();
        var inlineId = Guid.NewGuid();
        var inline = JsonNode.Parse(Json(Plan("client-wrapper").Calling("inventory.Stock/Get", target: "inventory")))!.AsObject();
        inline["descriptors"] = Convert.ToBase64String([.. "an inline FileDescriptorSet"u8]);
        // The version 1 tables, as the gateway before notes made them.
        await ScalarAsync($"""
            CREATE TABLE history_schema (version integer NOT NULL PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
            INSERT INTO history_schema (version) VALUES (1);
            CREATE TABLE runs (id uuid NOT NULL PRIMARY KEY, suite_id uuid NULL, strategy text NOT NULL, state text NOT NULL, started_at timestamptz NOT NULL,
                finished_at timestamptz NULL, plan_json text NOT NULL, stats_json text NULL, error text NULL, measured text NULL, series_json text NULL,
                verdict_json text NULL, experiment_id uuid NULL, saved bigserial NOT NULL);
            CREATE TABLE suites (id uuid NOT NULL PRIMARY KEY, state text NOT NULL, started_at timestamptz NOT NULL, finished_at timestamptz NULL, plan_json text NOT NULL,
                strategies_json text NOT NULL, error text NULL, comparison_json text NULL, saved bigserial NOT NULL);
            CREATE TABLE experiments (id uuid NOT NULL PRIMARY KEY, lesson text NOT NULL, state text NOT NULL, started_at timestamptz NOT NULL, record_json text NOT NULL,
                saved bigserial NOT NULL);
            INSERT INTO runs (id, strategy, state, started_at, plan_json, measured) VALUES ('{runId:D}', 'client-wrapper', 'Completed', '2026-11-22T12:00:00Z', '{Json(Plan("client-wrapper"))}', 'as measured'),
                ('{inlineId:D}', 'client-wrapper', 'Completed', '2026-11-22T12:00:00Z', '{inline.ToJsonString()}', 'carried its set');
            """);

        var store = await OpenStoreAsync();

        var kept = await store.GetAsync(runId);
        Assert.Equal(("as measured", Noon, null), (kept?.Measured, kept?.StartedAt, kept?.Note));
        // A plan that carried its set inline names it now, and the set is kept once in its table.
        var hash = Convert.ToHexString(SHA256.HashData("an inline FileDescriptorSet"u8));
        Assert.Equal(hash, (await store.GetAsync(inlineId))?.Plan.Described?.DescriptorSet);
        Assert.Equal((hash, 0L), (await ScalarAsync($"SELECT descriptor_set FROM runs WHERE id = '{inlineId:D}';"),
            await ScalarAsync("SELECT COUNT(*) FROM runs WHERE plan_json LIKE '%\"descriptors\"%';")));
        Assert.Equal("an inline FileDescriptorSet"u8.ToArray(), (byte[]?)await ScalarAsync($"SELECT bytes FROM descriptor_sets WHERE hash = '{hash}';"));
        var noted = Run("client-wrapper", Noon, RunState.Completed) with { Note = "3 of 100 calls failed to connect." };
        await store.SaveAsync(noted);
        Assert.Equal(noted.Note, (await store.GetAsync(noted.Id))?.Note);
        var described = Run("client-wrapper", Noon) with { Plan = DescribedPlan("client-wrapper", [.. "a FileDescriptorSet"u8]) };
        await store.SaveAsync(described);
        Assert.Equal(described.Plan.Described!.DescriptorSet, await ScalarAsync($"SELECT descriptor_set FROM runs WHERE id = '{described.Id:D}';"));
        Assert.Equal("1,2,3,4,5", await ScalarAsync("SELECT string_agg(version::text, ',' ORDER BY version) FROM history_schema;"));
    }

    [Fact]
    public void TheConnectionStringShownNamesTheServerAndNeverThePassword()
    {
        var backend = Track(new RunStore(HistoryDatabase.OpenPostgres(_connectionString)));

        Assert.DoesNotContain(server.Password, backend.Setting + backend.Location);
        Assert.Equal($"ConnectionStrings:History (Host=127.0.0.1;Port={server.Port};Database={new NpgsqlConnectionStringBuilder(_connectionString).Database};Username=postgres)", backend.Setting);
    }

    [Fact]
    public async Task AServerNobodyListensOnIsReportedAsUnreachableWithoutItsPassword()
    {
        var port = Ports.Unused();
        var backend = Track(new RunStore(HistoryDatabase.OpenPostgres($"Host=127.0.0.1;Port={port};Database=history;Username=gateway;Password={server.Password}")));

        var problem = await backend.ProbeAsync(TimeSpan.FromSeconds(5), CancellationToken.None);

        Assert.Equal($"The history PostgreSQL database 'history' on 127.0.0.1:{port} cannot be reached: Failed to connect to 127.0.0.1:{port} (Connection refused).", problem);
        var refused = await Assert.ThrowsAnyAsync<NpgsqlException>(backend.InitializeAsync);
        Assert.DoesNotContain(server.Password, refused.ToString());
    }

    protected override HistoryDatabase OpenDatabase() => HistoryDatabase.OpenPostgres(_connectionString);

    // Version 4 had every table of today's but the checkups'.
    protected override Task MakeOlderThanCheckupsAsync() => ScalarAsync("DROP TABLE checkups; DELETE FROM history_schema WHERE version = 5;");

    private RunStore Track(RunStore store)
    {
        Stores.Add(store);
        return store;
    }

    private async Task<object?> ScalarAsync(string sql)
    {
        await using var connection = new NpgsqlConnection(_connectionString + ";Pooling=false");
        await connection.OpenAsync();
        await using var command = new NpgsqlCommand(sql, connection);
        return await command.ExecuteScalarAsync();
    }
}
