using System.Data.Common;
using System.Globalization;
using ApiGateway.Runs;
using LoadEngine.Lessons;
using Npgsql;

namespace ApiGateway.History;

/// <summary>
/// The run history in one PostgreSQL database that several gateways share. A pooled data source hands each call a
/// connection of its own; saves are upserts, so gateways writing at once never refuse each other; the schema is created
/// or migrated at start under an advisory lock, so gateways that start together take turns. Times are kept to the
/// microsecond (timestamptz); the records' JSON as text, exactly as the gateway wrote it (jsonb would reorder keys and
/// reformat numbers; cast a column to jsonb to query it).
/// </summary>
public sealed class PostgresRunStore : IRunStore, IDisposable
{
    /// <summary>Npgsql waits 15 s for a server that does not answer; a gateway starting against a black-holed host gives up sooner.</summary>
    public const int DefaultConnectTimeoutSeconds = 5;

    private const int SchemaVersion = 2;
    // Any constant of our own: "GrpcHist". Gateways that start together create or migrate the schema one at a time.
    private const long SchemaLock = 0x4772_7063_4869_7374;

    // The same tables as SQLite's schema version 5 (version 2 adds what SQLite's 6 does). "saved" orders records that started at the same instant by their
    // latest save, as SQLite's rowid does after INSERT OR REPLACE: each upsert takes the next value.
    private const string Version1 = """
        CREATE TABLE IF NOT EXISTS runs (
            id uuid NOT NULL PRIMARY KEY,
            suite_id uuid NULL,
            strategy text NOT NULL,
            state text NOT NULL,
            started_at timestamptz NOT NULL,
            finished_at timestamptz NULL,
            plan_json text NOT NULL,
            stats_json text NULL,
            error text NULL,
            measured text NULL,
            series_json text NULL,
            verdict_json text NULL,
            experiment_id uuid NULL,
            saved bigserial NOT NULL);
        CREATE INDEX IF NOT EXISTS runs_by_started_at ON runs (started_at, saved);
        CREATE INDEX IF NOT EXISTS runs_by_strategy ON runs (strategy, started_at, saved);
        CREATE INDEX IF NOT EXISTS runs_by_suite ON runs (suite_id);
        CREATE TABLE IF NOT EXISTS suites (
            id uuid NOT NULL PRIMARY KEY,
            state text NOT NULL,
            started_at timestamptz NOT NULL,
            finished_at timestamptz NULL,
            plan_json text NOT NULL,
            strategies_json text NOT NULL,
            error text NULL,
            comparison_json text NULL,
            saved bigserial NOT NULL);
        CREATE INDEX IF NOT EXISTS suites_by_started_at ON suites (started_at, saved);
        CREATE TABLE IF NOT EXISTS experiments (
            id uuid NOT NULL PRIMARY KEY,
            lesson text NOT NULL,
            state text NOT NULL,
            started_at timestamptz NOT NULL,
            record_json text NOT NULL,
            saved bigserial NOT NULL);
        CREATE INDEX IF NOT EXISTS experiments_by_lesson ON experiments (lesson, started_at, saved);
        """;

    // Version 2 keeps a completed run's note (calls that failed to connect while the service kept answering), as SQLite's 6.
    private const string Version2 = "ALTER TABLE runs ADD COLUMN IF NOT EXISTS note text NULL;";

    // Migrations[n - 1] brings the database to version n; a later version appends its own.
    private static readonly string[] Migrations = [Version1, Version2];

    private static readonly ColumnFormat Format = new((row, i) => row.GetGuid(i), (row, i) => row.GetFieldValue<DateTimeOffset>(i));

    private readonly NpgsqlDataSource _dataSource;

    public PostgresRunStore(string connectionString)
    {
        var settings = new NpgsqlConnectionStringBuilder(connectionString);
        if (!new DbConnectionStringBuilder { ConnectionString = connectionString }.ContainsKey(nameof(settings.Timeout)))
        {
            settings.Timeout = DefaultConnectTimeoutSeconds;
        }

        // Rebuilt from the parts that say where, never from the whole string: it may hold a password.
        SafeConnectionString = new NpgsqlConnectionStringBuilder
        {
            Host = settings.Host,
            Port = settings.Port,
            Database = settings.Database,
            Username = settings.Username,
        }.ToString();
        Location = $"PostgreSQL database '{settings.Database ?? settings.Username ?? "postgres"}' on {settings.Host}:{settings.Port}";
        _dataSource = NpgsqlDataSource.Create(settings);
    }

    /// <summary>Host, port, database and user of the connection string: what may be shown and logged.</summary>
    public string SafeConnectionString { get; }

    /// <summary>The database and its server, for sentences.</summary>
    public string Location { get; }

    /// <summary>Creates or migrates the schema, one gateway at a time; a database with a newer schema than this gateway's is refused.</summary>
    public async Task InitializeAsync()
    {
        await using var connection = await _dataSource.OpenConnectionAsync();
        await using var transaction = await connection.BeginTransactionAsync();
        // Held until the transaction ends: another gateway starting now waits here, then finds the schema made.
        await NonQueryAsync(connection, $"SELECT pg_advisory_xact_lock({SchemaLock});");
        // Only created when missing: once the schema is there, a user without CREATE rights on the schema can still start.
        var version = await ScalarAsync(connection, "SELECT to_regclass('history_schema') IS NOT NULL;") is true
            ? Convert.ToInt32(await ScalarAsync(connection, "SELECT COALESCE(MAX(version), 0) FROM history_schema;"), CultureInfo.InvariantCulture)
            : await CreateVersionTableAsync(connection);
        if (version > SchemaVersion)
        {
            throw new InvalidDataException($"it holds history schema version {version}, newer than this gateway's {SchemaVersion}");
        }

        for (var next = version + 1; next <= SchemaVersion; next++)
        {
            await NonQueryAsync(connection, Migrations[next - 1]);
            await NonQueryAsync(connection, $"INSERT INTO history_schema (version) VALUES ({next});");
        }

        await transaction.CommitAsync();
    }

    /// <summary>A cheap SELECT 1 within <paramref name="wait"/>: throws when the server cannot be reached or does not answer.</summary>
    public async Task ProbeAsync(TimeSpan wait, CancellationToken cancellationToken)
    {
        using var bounded = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        bounded.CancelAfter(wait);
        await using var connection = await _dataSource.OpenConnectionAsync(bounded.Token);
        await using var command = new NpgsqlCommand("SELECT 1;", connection);
        await command.ExecuteScalarAsync(bounded.Token);
    }

    public Task SaveAsync(RunRecord run, CancellationToken cancellationToken = default) =>
        ExecuteAsync(
            $"""
            INSERT INTO runs ({RunRows.RunColumns}) VALUES (@id, @suite_id, @strategy, @state, @started_at, @finished_at, @plan_json, @stats_json, @error, @measured, @series_json, @verdict_json, @experiment_id, @note)
            ON CONFLICT (id) DO UPDATE SET suite_id = EXCLUDED.suite_id, strategy = EXCLUDED.strategy, state = EXCLUDED.state, started_at = EXCLUDED.started_at,
                finished_at = EXCLUDED.finished_at, plan_json = EXCLUDED.plan_json, stats_json = EXCLUDED.stats_json, error = EXCLUDED.error, measured = EXCLUDED.measured,
                series_json = EXCLUDED.series_json, verdict_json = EXCLUDED.verdict_json, experiment_id = EXCLUDED.experiment_id, note = EXCLUDED.note,
                saved = EXCLUDED.saved;
            """,
            ("id", run.Id),
            ("suite_id", run.SuiteId),
            ("strategy", run.Plan.Strategy),
            ("state", run.State.ToString()),
            ("started_at", Utc(run.StartedAt)),
            ("finished_at", Utc(run.FinishedAt)),
            ("plan_json", RunRows.ToJson(run.Plan)),
            ("stats_json", run.Stats is null ? null : RunRows.ToJson(run.Stats)),
            ("error", run.Error),
            ("measured", run.Measured),
            ("series_json", run.Series is null ? null : RunRows.ToJson(run.Series)),
            ("verdict_json", run.Verdict is null ? null : RunRows.ToJson(run.Verdict)),
            ("experiment_id", run.ExperimentId),
            ("note", run.Note));

    public async Task<RunRecord?> GetAsync(Guid id, CancellationToken cancellationToken = default) =>
        (await QueryAsync($"SELECT {RunRows.RunColumns} FROM runs WHERE id = @id;", ReadRun, cancellationToken, ("id", id))).SingleOrDefault();

    public Task<IReadOnlyList<RunRecord>> ListAsync(string? strategy, int limit, int offset, CancellationToken cancellationToken = default) =>
        QueryAsync(
            $"SELECT {RunRows.ListedRunColumns} FROM runs {StrategyFilter(strategy)} ORDER BY started_at DESC, saved DESC LIMIT @limit OFFSET @offset;",
            ReadRun,
            cancellationToken,
            ("strategy", strategy),
            ("limit", limit),
            ("offset", offset));

    public async Task<int> CountAsync(string? strategy, CancellationToken cancellationToken = default) =>
        (await QueryAsync($"SELECT COUNT(*)::int FROM runs {StrategyFilter(strategy)};", row => row.GetInt32(0), cancellationToken, ("strategy", strategy))).Single();

    public Task<IReadOnlyList<RunRecord>> ListSuiteRunsAsync(Guid suiteId, CancellationToken cancellationToken = default) =>
        QueryAsync($"SELECT {RunRows.ListedRunColumns} FROM runs WHERE suite_id = @suite_id ORDER BY started_at, saved;", ReadRun, cancellationToken, ("suite_id", suiteId));

    public async Task<bool> DeleteAsync(Guid id, CancellationToken cancellationToken = default) =>
        await ExecuteAsync("DELETE FROM runs WHERE id = @id;", ("id", id)) > 0;

    public Task SaveSuiteAsync(SuiteRecord suite, CancellationToken cancellationToken = default) =>
        ExecuteAsync(
            $"""
            INSERT INTO suites ({RunRows.SuiteColumns}) VALUES (@id, @state, @started_at, @finished_at, @plan_json, @strategies_json, @error, @comparison_json)
            ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state, started_at = EXCLUDED.started_at, finished_at = EXCLUDED.finished_at, plan_json = EXCLUDED.plan_json,
                strategies_json = EXCLUDED.strategies_json, error = EXCLUDED.error, comparison_json = EXCLUDED.comparison_json, saved = EXCLUDED.saved;
            """,
            ("id", suite.Id),
            ("state", suite.State.ToString()),
            ("started_at", Utc(suite.StartedAt)),
            ("finished_at", Utc(suite.FinishedAt)),
            ("plan_json", RunRows.ToJson(suite.Plan)),
            ("strategies_json", RunRows.ToJson(suite.Strategies)),
            ("error", suite.Error),
            ("comparison_json", suite.Comparison is null ? null : RunRows.ToJson(suite.Comparison)));

    public async Task<SuiteRecord?> GetSuiteAsync(Guid id, CancellationToken cancellationToken = default) =>
        (await QueryAsync($"SELECT {RunRows.SuiteColumns} FROM suites WHERE id = @id;", ReadSuite, cancellationToken, ("id", id))).SingleOrDefault();

    public Task<IReadOnlyList<SuiteRecord>> ListComparisonsAsync(int limit, int offset, CancellationToken cancellationToken = default) =>
        QueryAsync(
            $"SELECT {RunRows.SuiteColumns} FROM suites WHERE comparison_json IS NOT NULL ORDER BY started_at DESC, saved DESC LIMIT @limit OFFSET @offset;",
            ReadSuite,
            cancellationToken,
            ("limit", limit),
            ("offset", offset));

    public async Task<int> CountComparisonsAsync(CancellationToken cancellationToken = default) =>
        (await QueryAsync("SELECT COUNT(*)::int FROM suites WHERE comparison_json IS NOT NULL;", row => row.GetInt32(0), cancellationToken)).Single();

    public Task SaveExperimentAsync(ExperimentRecord experiment, CancellationToken cancellationToken = default) =>
        ExecuteAsync(
            """
            INSERT INTO experiments (id, lesson, state, started_at, record_json) VALUES (@id, @lesson, @state, @started_at, @record_json)
            ON CONFLICT (id) DO UPDATE SET lesson = EXCLUDED.lesson, state = EXCLUDED.state, started_at = EXCLUDED.started_at, record_json = EXCLUDED.record_json,
                saved = EXCLUDED.saved;
            """,
            ("id", experiment.Id),
            ("lesson", experiment.Lesson),
            ("state", experiment.State.ToString()),
            ("started_at", Utc(experiment.StartedAt)),
            ("record_json", RunRows.ToJson(experiment)));

    public async Task<ExperimentRecord?> GetExperimentAsync(Guid id, CancellationToken cancellationToken = default) =>
        (await QueryAsync("SELECT record_json, state FROM experiments WHERE id = @id;", RunRows.ReadExperiment, cancellationToken, ("id", id))).SingleOrDefault();

    public Task<IReadOnlyList<ExperimentRecord>> ListExperimentsAsync(string lesson, int limit, int offset, CancellationToken cancellationToken = default) =>
        QueryAsync(
            "SELECT record_json, state FROM experiments WHERE lesson = @lesson ORDER BY started_at DESC, saved DESC LIMIT @limit OFFSET @offset;",
            RunRows.ReadExperiment,
            cancellationToken,
            ("lesson", lesson),
            ("limit", limit),
            ("offset", offset));

    public async Task<int> CountExperimentsAsync(string lesson, CancellationToken cancellationToken = default) =>
        (await QueryAsync("SELECT COUNT(*)::int FROM experiments WHERE lesson = @lesson;", row => row.GetInt32(0), cancellationToken, ("lesson", lesson))).Single();

    /// <summary>Returns how many runs, suites and experiments together were marked.</summary>
    public Task<int> MarkInterruptedAsync(CancellationToken cancellationToken = default) =>
        ExecuteAsync(
            """
            UPDATE runs SET state = @failed, error = @error, finished_at = @now WHERE state = @running;
            UPDATE suites SET state = @failed, error = @error, finished_at = @now WHERE state = @running;
            UPDATE experiments SET state = @failed,
                record_json = (record_json::jsonb || jsonb_build_object('state', @failed, 'error', @error, 'finishedAt', @now))::text WHERE state = @running;
            """,
            ("failed", nameof(RunState.Failed)),
            ("running", nameof(RunState.Running)),
            ("error", SqliteRunStore.InterruptedError),
            ("now", DateTimeOffset.UtcNow));

    /// <summary>Closes the pooled connections.</summary>
    public void Dispose() => _dataSource.Dispose();

    private static async Task<int> CreateVersionTableAsync(NpgsqlConnection connection)
    {
        await NonQueryAsync(connection, "CREATE TABLE IF NOT EXISTS history_schema (version integer NOT NULL PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());");
        return 0;
    }

    private static async Task<object?> ScalarAsync(NpgsqlConnection connection, string sql)
    {
        await using var command = new NpgsqlCommand(sql, connection);
        return await command.ExecuteScalarAsync();
    }

    private static async Task NonQueryAsync(NpgsqlConnection connection, string sql)
    {
        await using var command = new NpgsqlCommand(sql, connection);
        await command.ExecuteNonQueryAsync();
    }

    // Writes take no token: a run is stored even when the caller who started it has gone.
    private async Task<int> ExecuteAsync(string sql, params (string Name, object? Value)[] parameters)
    {
        await using var command = CreateCommand(sql, parameters);
        return await command.ExecuteNonQueryAsync(CancellationToken.None);
    }

    private async Task<IReadOnlyList<T>> QueryAsync<T>(string sql, Func<DbDataReader, T> read, CancellationToken cancellationToken, params (string Name, object? Value)[] parameters)
    {
        await using var command = CreateCommand(sql, parameters);
        return await RunRows.ReadAllAsync(command, read, cancellationToken);
    }

    // A data source's command takes a pooled connection for itself and gives it back when disposed.
    private NpgsqlCommand CreateCommand(string sql, (string Name, object? Value)[] parameters)
    {
        var command = _dataSource.CreateCommand(sql);
        foreach (var (name, value) in parameters)
        {
            command.Parameters.AddWithValue(name, value ?? DBNull.Value);
        }

        return command;
    }

    private static string StrategyFilter(string? strategy) => strategy is null ? string.Empty : "WHERE strategy = @strategy";

    // Npgsql writes a timestamptz from a DateTimeOffset only at offset zero.
    private static DateTimeOffset Utc(DateTimeOffset time) => time.ToUniversalTime();

    private static DateTimeOffset? Utc(DateTimeOffset? time) => time?.ToUniversalTime();

    private static RunRecord ReadRun(DbDataReader row) => RunRows.ReadRun(row, Format);

    private static SuiteRecord ReadSuite(DbDataReader row) => RunRows.ReadSuite(row, Format);
}
