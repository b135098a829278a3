using System.Data.Common;
using System.Globalization;
using ApiGateway.Runs;
using LoadEngine.Lessons;
using Microsoft.Data.Sqlite;

namespace ApiGateway.History;

/// <summary>
/// The run history in one SQLite file. Each call opens a pooled connection of its own, so any number of
/// threads may use the store at once; WAL and a busy timeout let their writes queue instead of failing.
/// </summary>
public sealed class SqliteRunStore : IRunStore, IDisposable
{
    public const string InterruptedError = "The gateway stopped before this run finished.";

    private const int SchemaVersion = 6;
    // Fixed-width UTC text sorts in time order and stays readable in the sqlite3 shell.
    private const string TimeFormat = "yyyy-MM-dd'T'HH:mm:ss.fffffff'Z'";

    private const string Schema = """
        CREATE TABLE IF NOT EXISTS runs (
            id TEXT NOT NULL PRIMARY KEY,
            suite_id TEXT NULL,
            strategy TEXT NOT NULL,
            state TEXT NOT NULL,
            started_at TEXT NOT NULL,
            finished_at TEXT NULL,
            plan_json TEXT NOT NULL,
            stats_json TEXT NULL,
            error TEXT NULL,
            measured TEXT NULL,
            series_json TEXT NULL,
            verdict_json TEXT NULL,
            experiment_id TEXT NULL,
            note TEXT NULL);
        CREATE INDEX IF NOT EXISTS runs_by_started_at ON runs (started_at);
        CREATE INDEX IF NOT EXISTS runs_by_strategy ON runs (strategy, started_at);
        CREATE INDEX IF NOT EXISTS runs_by_suite ON runs (suite_id);
        CREATE TABLE IF NOT EXISTS suites (
            id TEXT NOT NULL PRIMARY KEY,
            state TEXT NOT NULL,
            started_at TEXT NOT NULL,
            finished_at TEXT NULL,
            plan_json TEXT NOT NULL,
            strategies_json TEXT NOT NULL,
            error TEXT NULL,
            comparison_json TEXT NULL);
        CREATE INDEX IF NOT EXISTS suites_by_started_at ON suites (started_at);
        CREATE TABLE IF NOT EXISTS experiments (
            id TEXT NOT NULL PRIMARY KEY,
            lesson TEXT NOT NULL,
            state TEXT NOT NULL,
            started_at TEXT NOT NULL,
            record_json TEXT NOT NULL);
        CREATE INDEX IF NOT EXISTS experiments_by_lesson ON experiments (lesson, started_at);
        """;

    // Version 2 keeps each run's description, time series and verdict. Runs recorded before load models existed ran
    // the chapter's way: sequential, except the stream and the concurrency strategies, which ran all at once.
    private const string MigrationFromVersion1 = """
        ALTER TABLE runs ADD COLUMN measured TEXT NULL;
        ALTER TABLE runs ADD COLUMN series_json TEXT NULL;
        ALTER TABLE runs ADD COLUMN verdict_json TEXT NULL;
        UPDATE runs SET plan_json = json_set(plan_json, '$.load',
            CASE WHEN strategy IN ('streaming-call', 'single-connection', 'multiple-connections') THEN 'closed' ELSE 'sequential' END)
            WHERE json_extract(plan_json, '$.load') IS NULL;
        UPDATE suites SET plan_json = json_set(plan_json, '$.load', 'sequential') WHERE json_extract(plan_json, '$.load') IS NULL;
        """;

    // Version 3 keeps what makes a suite a protocol comparison (its contenders and repetitions); older suites are none.
    private const string MigrationFromVersion2 = "ALTER TABLE suites ADD COLUMN comparison_json TEXT NULL;";

    // Version 5 keeps the lesson experiments (their table the schema creates) and which experiment a run belongs to.
    private const string MigrationFromVersion4 = "ALTER TABLE runs ADD COLUMN experiment_id TEXT NULL;";

    // Version 6 keeps a completed run's note (calls that failed to connect while the service kept answering).
    private const string MigrationFromVersion5 = "ALTER TABLE runs ADD COLUMN note TEXT NULL;";

    public static readonly TimeSpan DefaultWriteWait = TimeSpan.FromSeconds(10);

    // Guids and times are kept as text.
    private static readonly ColumnFormat Format = new((row, i) => Guid.Parse(row.GetString(i)), (row, i) => ReadTime(row.GetString(i)));

    private readonly string _connectionString;
    private readonly int _busyTimeoutMilliseconds;

    /// <param name="writeWait">How long a write waits for another writer's lock before it fails (SQLITE_BUSY).</param>
    public SqliteRunStore(string databasePath, TimeSpan? writeWait = null)
    {
        DatabasePath = databasePath;
        WriteWait = writeWait ?? DefaultWriteWait;
        _busyTimeoutMilliseconds = (int)Math.Ceiling(WriteWait.TotalMilliseconds);
        _connectionString = new SqliteConnectionStringBuilder
        {
            DataSource = databasePath,
            Mode = SqliteOpenMode.ReadWriteCreate,
            Pooling = true,
            // Microsoft.Data.Sqlite retries a busy command until this many seconds on top of SQLite's own busy wait
            // (30 s by default, which made a locked history hold a request 30.7 s); one bound for both.
            DefaultTimeout = Math.Max(1, (int)Math.Ceiling(WriteWait.TotalSeconds)),
        }.ToString();
    }

    public string DatabasePath { get; }

    public TimeSpan WriteWait { get; }

    /// <summary>Takes the write lock and lets it go, waiting at most <paramref name="wait"/>: throws when another process holds it or the file refuses writes.</summary>
    public async Task ProbeWritableAsync(TimeSpan wait)
    {
        await using var connection = await OpenAsync(CancellationToken.None);
        await NonQueryAsync(connection, $"PRAGMA busy_timeout = {(int)Math.Ceiling(wait.TotalMilliseconds)};");
        try
        {
            await using var begin = connection.CreateCommand();
            begin.CommandText = "BEGIN IMMEDIATE;";
            begin.CommandTimeout = Math.Max(1, (int)Math.Ceiling(wait.TotalSeconds));
            await begin.ExecuteNonQueryAsync();
            await NonQueryAsync(connection, "ROLLBACK;");
        }
        finally
        {
            // The connection goes back to the pool: give it back its writers' wait.
            await NonQueryAsync(connection, $"PRAGMA busy_timeout = {_busyTimeoutMilliseconds};");
        }
    }

    /// <summary>Creates or checks the schema and takes the write lock once, so a file this process cannot write fails here, at start.</summary>
    public async Task InitializeAsync()
    {
        await using var connection = await OpenAsync(CancellationToken.None);
        // The journal mode is kept in the file, and cannot change inside a transaction.
        var journal = Convert.ToString(await ScalarAsync(connection, "PRAGMA journal_mode = WAL;"), CultureInfo.InvariantCulture);
        if (!string.Equals(journal, "wal", StringComparison.OrdinalIgnoreCase))
        {
            throw new InvalidDataException($"SQLite could not switch it to WAL journal mode (it stayed '{journal}')");
        }

        // Microsoft.Data.Sqlite begins IMMEDIATE: the write lock, which a read-only file refuses even when the schema is already there.
        await using var transaction = await connection.BeginTransactionAsync();
        var version = Convert.ToInt32(await ScalarAsync(connection, "PRAGMA user_version;"), CultureInfo.InvariantCulture);
        if (version > SchemaVersion)
        {
            throw new InvalidDataException($"it holds history schema version {version}, newer than this gateway's {SchemaVersion}");
        }

        if (version == 1)
        {
            await NonQueryAsync(connection, MigrationFromVersion1);
        }

        if (version is 1 or 2)
        {
            await NonQueryAsync(connection, MigrationFromVersion2);
        }

        if (version is >= 1 and <= 4 && await TableExistsAsync(connection, "runs") && !await HasColumnAsync(connection, "runs", "experiment_id"))
        {
            await NonQueryAsync(connection, MigrationFromVersion4);
        }

        if (version is >= 1 and <= 5 && await TableExistsAsync(connection, "runs") && !await HasColumnAsync(connection, "runs", "note"))
        {
            await NonQueryAsync(connection, MigrationFromVersion5);
        }

        await NonQueryAsync(connection, Schema);
        // PRAGMA takes no parameters; the value is a constant of this class.
        await NonQueryAsync(connection, $"PRAGMA user_version = {SchemaVersion};");
        await transaction.CommitAsync();
    }

    public Task SaveAsync(RunRecord run, CancellationToken cancellationToken = default) =>
        ExecuteAsync(
            $"INSERT OR REPLACE INTO runs ({RunRows.RunColumns}) VALUES ($id, $suite_id, $strategy, $state, $started_at, $finished_at, $plan_json, $stats_json, $error, $measured, $series_json, $verdict_json, $experiment_id, $note);",
            ("$id", Text(run.Id)),
            ("$suite_id", run.SuiteId is { } suiteId ? Text(suiteId) : null),
            ("$strategy", run.Plan.Strategy),
            ("$state", run.State.ToString()),
            ("$started_at", Text(run.StartedAt)),
            ("$finished_at", run.FinishedAt is { } finished ? Text(finished) : null),
            ("$plan_json", RunRows.ToJson(run.Plan)),
            ("$stats_json", run.Stats is null ? null : RunRows.ToJson(run.Stats)),
            ("$error", run.Error),
            ("$measured", run.Measured),
            ("$series_json", run.Series is null ? null : RunRows.ToJson(run.Series)),
            ("$verdict_json", run.Verdict is null ? null : RunRows.ToJson(run.Verdict)),
            ("$experiment_id", run.ExperimentId is { } experimentId ? Text(experimentId) : null),
            ("$note", run.Note));

    public async Task<RunRecord?> GetAsync(Guid id, CancellationToken cancellationToken = default) =>
        (await QueryAsync($"SELECT {RunRows.RunColumns} FROM runs WHERE id = $id;", ReadRun, cancellationToken, ("$id", Text(id)))).SingleOrDefault();

    public Task<IReadOnlyList<RunRecord>> ListAsync(string? strategy, int limit, int offset, CancellationToken cancellationToken = default) =>
        QueryAsync(
            $"SELECT {RunRows.ListedRunColumns} FROM runs {StrategyFilter(strategy)} ORDER BY started_at DESC, rowid DESC LIMIT $limit OFFSET $offset;",
            ReadRun,
            cancellationToken,
            ("$strategy", strategy),
            ("$limit", limit),
            ("$offset", offset));

    public async Task<int> CountAsync(string? strategy, CancellationToken cancellationToken = default) =>
        (await QueryAsync($"SELECT COUNT(*) FROM runs {StrategyFilter(strategy)};", reader => reader.GetInt32(0), cancellationToken, ("$strategy", strategy))).Single();

    public Task<IReadOnlyList<RunRecord>> ListSuiteRunsAsync(Guid suiteId, CancellationToken cancellationToken = default) =>
        QueryAsync($"SELECT {RunRows.ListedRunColumns} FROM runs WHERE suite_id = $suite_id ORDER BY started_at, rowid;", ReadRun, cancellationToken, ("$suite_id", Text(suiteId)));

    public async Task<bool> DeleteAsync(Guid id, CancellationToken cancellationToken = default) =>
        await ExecuteAsync("DELETE FROM runs WHERE id = $id;", ("$id", Text(id))) > 0;

    public Task SaveSuiteAsync(SuiteRecord suite, CancellationToken cancellationToken = default) =>
        ExecuteAsync(
            $"INSERT OR REPLACE INTO suites ({RunRows.SuiteColumns}) VALUES ($id, $state, $started_at, $finished_at, $plan_json, $strategies_json, $error, $comparison_json);",
            ("$id", Text(suite.Id)),
            ("$state", suite.State.ToString()),
            ("$started_at", Text(suite.StartedAt)),
            ("$finished_at", suite.FinishedAt is { } finished ? Text(finished) : null),
            ("$plan_json", RunRows.ToJson(suite.Plan)),
            ("$strategies_json", RunRows.ToJson(suite.Strategies)),
            ("$error", suite.Error),
            ("$comparison_json", suite.Comparison is null ? null : RunRows.ToJson(suite.Comparison)));

    public async Task<SuiteRecord?> GetSuiteAsync(Guid id, CancellationToken cancellationToken = default) =>
        (await QueryAsync($"SELECT {RunRows.SuiteColumns} FROM suites WHERE id = $id;", ReadSuite, cancellationToken, ("$id", Text(id)))).SingleOrDefault();

    public Task<IReadOnlyList<SuiteRecord>> ListComparisonsAsync(int limit, int offset, CancellationToken cancellationToken = default) =>
        QueryAsync(
            $"SELECT {RunRows.SuiteColumns} FROM suites WHERE comparison_json IS NOT NULL ORDER BY started_at DESC, rowid DESC LIMIT $limit OFFSET $offset;",
            ReadSuite,
            cancellationToken,
            ("$limit", limit),
            ("$offset", offset));

    public async Task<int> CountComparisonsAsync(CancellationToken cancellationToken = default) =>
        (await QueryAsync("SELECT COUNT(*) FROM suites WHERE comparison_json IS NOT NULL;", reader => reader.GetInt32(0), cancellationToken)).Single();

    public Task SaveExperimentAsync(ExperimentRecord experiment, CancellationToken cancellationToken = default) =>
        ExecuteAsync(
            "INSERT OR REPLACE INTO experiments (id, lesson, state, started_at, record_json) VALUES ($id, $lesson, $state, $started_at, $record_json);",
            ("$id", Text(experiment.Id)),
            ("$lesson", experiment.Lesson),
            ("$state", experiment.State.ToString()),
            ("$started_at", Text(experiment.StartedAt)),
            ("$record_json", RunRows.ToJson(experiment)));

    public async Task<ExperimentRecord?> GetExperimentAsync(Guid id, CancellationToken cancellationToken = default) =>
        (await QueryAsync("SELECT record_json, state FROM experiments WHERE id = $id;", RunRows.ReadExperiment, cancellationToken, ("$id", Text(id)))).SingleOrDefault();

    public Task<IReadOnlyList<ExperimentRecord>> ListExperimentsAsync(string lesson, int limit, int offset, CancellationToken cancellationToken = default) =>
        QueryAsync(
            "SELECT record_json, state FROM experiments WHERE lesson = $lesson ORDER BY started_at DESC, rowid DESC LIMIT $limit OFFSET $offset;",
            RunRows.ReadExperiment,
            cancellationToken,
            ("$lesson", lesson),
            ("$limit", limit),
            ("$offset", offset));

    public async Task<int> CountExperimentsAsync(string lesson, CancellationToken cancellationToken = default) =>
        (await QueryAsync("SELECT COUNT(*) FROM experiments WHERE lesson = $lesson;", reader => reader.GetInt32(0), cancellationToken, ("$lesson", lesson))).Single();

    /// <summary>Returns how many runs, suites and experiments together were marked.</summary>
    public Task<int> MarkInterruptedAsync(CancellationToken cancellationToken = default) =>
        ExecuteAsync(
            """
            UPDATE runs SET state = $failed, error = $error, finished_at = $now WHERE state = $running;
            UPDATE suites SET state = $failed, error = $error, finished_at = $now WHERE state = $running;
            UPDATE experiments SET state = $failed,
                record_json = json_set(record_json, '$.state', $failed, '$.error', $error, '$.finishedAt', $now) WHERE state = $running;
            """,
            ("$failed", nameof(RunState.Failed)),
            ("$running", nameof(RunState.Running)),
            ("$error", InterruptedError),
            ("$now", Text(DateTimeOffset.UtcNow)));

    /// <summary>Closes the pooled connections, which checkpoints the WAL into the file.</summary>
    public void Dispose()
    {
        using var connection = new SqliteConnection(_connectionString);
        SqliteConnection.ClearPool(connection);
    }

    private async Task<SqliteConnection> OpenAsync(CancellationToken cancellationToken)
    {
        var connection = new SqliteConnection(_connectionString);
        try
        {
            await connection.OpenAsync(cancellationToken);
            // Per connection: many threads write at once, and a writer should wait for the lock, not fail with SQLITE_BUSY.
            await NonQueryAsync(connection, $"PRAGMA busy_timeout = {_busyTimeoutMilliseconds};");
            return connection;
        }
        catch
        {
            await connection.DisposeAsync();
            throw;
        }
    }

    private static async Task<object?> ScalarAsync(SqliteConnection connection, string sql)
    {
        await using var command = connection.CreateCommand();
        command.CommandText = sql;
        return await command.ExecuteScalarAsync();
    }

    // A file written by version 4 of this gateway during its development may already have the column.
    private static async Task<bool> HasColumnAsync(SqliteConnection connection, string table, string column) =>
        Convert.ToInt64(await ScalarAsync(connection, $"SELECT COUNT(*) FROM pragma_table_info('{table}') WHERE name = '{column}';"), CultureInfo.InvariantCulture) > 0;

    private static async Task<bool> TableExistsAsync(SqliteConnection connection, string table) =>
        Convert.ToInt64(await ScalarAsync(connection, $"SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = '{table}';"), CultureInfo.InvariantCulture) > 0;

    private static async Task NonQueryAsync(SqliteConnection connection, string sql)
    {
        await using var command = connection.CreateCommand();
        command.CommandText = sql;
        await command.ExecuteNonQueryAsync();
    }

    // Writes take no token: a run is stored even when the caller who started it has gone.
    private async Task<int> ExecuteAsync(string sql, params (string Name, object? Value)[] parameters)
    {
        await using var connection = await OpenAsync(CancellationToken.None);
        await using var command = CreateCommand(connection, sql, parameters);
        return await command.ExecuteNonQueryAsync(CancellationToken.None);
    }

    private async Task<IReadOnlyList<T>> QueryAsync<T>(string sql, Func<DbDataReader, T> read, CancellationToken cancellationToken, params (string Name, object? Value)[] parameters)
    {
        await using var connection = await OpenAsync(cancellationToken);
        await using var command = CreateCommand(connection, sql, parameters);
        return await RunRows.ReadAllAsync(command, read, cancellationToken);
    }

    private static SqliteCommand CreateCommand(SqliteConnection connection, string sql, (string Name, object? Value)[] parameters)
    {
        var command = connection.CreateCommand();
        command.CommandText = sql;
        foreach (var (name, value) in parameters)
        {
            command.Parameters.AddWithValue(name, value ?? DBNull.Value);
        }

        return command;
    }

    private static string StrategyFilter(string? strategy) => strategy is null ? string.Empty : "WHERE strategy = $strategy";

    private static RunRecord ReadRun(DbDataReader row) => RunRows.ReadRun(row, Format);

    private static SuiteRecord ReadSuite(DbDataReader row) => RunRows.ReadSuite(row, Format);

    // Guids go in as text: Microsoft.Data.Sqlite would otherwise bind them as 16-byte blobs.
    private static string Text(Guid id) => id.ToString("D");

    private static string Text(DateTimeOffset time) => time.UtcDateTime.ToString(TimeFormat, CultureInfo.InvariantCulture);

    private static DateTimeOffset ReadTime(string text) =>
        DateTimeOffset.ParseExact(text, TimeFormat, CultureInfo.InvariantCulture, DateTimeStyles.AssumeUniversal | DateTimeStyles.AdjustToUniversal);
}
