using System.Data.Common;
using HistoryStore;
using LoadEngine.Checkup;
using LoadEngine.Lessons;
using LoadEngine.Strategies;
using Microsoft.Data.Sqlite;
using Npgsql;
using static HistoryStore.HistoryDatabase;

namespace ApiGateway.History;

/// <summary>
/// The run history, in a SQLite file or a PostgreSQL database that several gateways share: the same tables and SQL on
/// both, with the little that differs (types, upserts, JSON edits, the order of saves) asked of the
/// <see cref="HistoryDatabase"/>. Each call takes a pooled connection of its own, so any number of threads may use it;
/// the schema is created or upgraded at start, one gateway at a time. Records' parts are JSON in the gateway's own shape
/// (<see cref="RunJson"/>), kept as text exactly as written; a plan's descriptor set is kept once by its name, apart from
/// the plans (<see cref="DescriptorSets"/>). It also names itself in words a user can act on, for start-up, GET /health
/// and error answers (the setting that chose it, never a password): /health checks that a SQLite file is still there
/// (SQLite goes on writing to a deleted file, and all of it is gone at the next start) and that its write lock can be
/// taken; a PostgreSQL database is asked a cheap SELECT 1.
/// </summary>
public sealed class RunStore(HistoryDatabase database) : IRunStore, IDisposable
{
    public const string InterruptedError = "The gateway stopped before this run finished.";

    // SQLite counts the schema's versions from the first gateway's; PostgreSQL came with SQLite's version 5 and counts from 1 there.
    private const int SchemaVersion = 9;
    private const int PostgresFirstVersion = 5;

    private const string RunColumns = "id, suite_id, strategy, state, started_at, finished_at, plan_json, stats_json, error, measured, series_json, verdict_json, experiment_id, note";

    // Lists leave each run's time series out (a 10-minute run has 600 points); GetAsync has it.
    private static readonly string ListedRunColumns = RunColumns.Replace("series_json", "NULL", StringComparison.Ordinal);

    private const string SuiteColumns = "id, state, started_at, finished_at, plan_json, strategies_json, error, comparison_json";

    private const string ExperimentColumns = "id, lesson, state, started_at, record_json";

    private const string CheckupColumns = "id, target, state, started_at, record_json";

    private const string SqliteKey = $"{HistoryOptions.Section}:{nameof(HistoryOptions.DatabasePath)}";

    private readonly DescriptorSets _sets = new(database);

    public HistoryDatabase Database => database;

    /// <summary>Where the history is, for sentences: the SQLite file's path, or the PostgreSQL database and its server.</summary>
    public string Location => database.Location;

    /// <summary>The setting that points at it, with its value as far as it is safe to show.</summary>
    public string Setting => database.Pick($"{SqliteKey} '{Location}'", $"{HistoryOptions.ConnectionStringKey} ({database.Connection})");

    /// <summary>What to do when it cannot be opened at start: one sentence naming the setting.</summary>
    public string StartRemedy => database.Pick(
        $"Point {SqliteKey} at a writable file.",
        $"Point {HistoryOptions.ConnectionStringKey} at a PostgreSQL server that is up and lets this user create tables in its database (or holds the history's tables already).");

    /// <summary>What to check when a write is refused: one sentence naming the setting.</summary>
    public string WriteRemedy => database.Pick(
        $"Check that {SqliteKey} points at a writable file with free space that no other process holds locked, then try again.",
        $"Check that the PostgreSQL server of {HistoryOptions.ConnectionStringKey} is up and takes this user's writes, then try again.");

    private string Schema => $"""
        CREATE TABLE IF NOT EXISTS runs (
            id {database.IdType} NOT NULL PRIMARY KEY,
            suite_id {database.IdType} NULL,
            strategy TEXT NOT NULL,
            state TEXT NOT NULL,
            started_at {database.TimeType} NOT NULL,
            finished_at {database.TimeType} NULL,
            plan_json TEXT NOT NULL,
            stats_json TEXT NULL,
            error TEXT NULL,
            measured TEXT NULL,
            series_json TEXT NULL,
            verdict_json TEXT NULL,
            experiment_id {database.IdType} NULL,
            note TEXT NULL,
            {DescriptorSets.Column} TEXT NULL{database.SaveOrderColumn});
        CREATE INDEX IF NOT EXISTS runs_by_started_at ON runs (started_at{database.SaveOrderIndex});
        CREATE INDEX IF NOT EXISTS runs_by_strategy ON runs (strategy, started_at{database.SaveOrderIndex});
        CREATE INDEX IF NOT EXISTS runs_by_suite ON runs (suite_id);
        CREATE INDEX IF NOT EXISTS runs_by_descriptor_set ON runs ({DescriptorSets.Column}) WHERE {DescriptorSets.Column} IS NOT NULL;
        CREATE TABLE IF NOT EXISTS suites (
            id {database.IdType} NOT NULL PRIMARY KEY,
            state TEXT NOT NULL,
            started_at {database.TimeType} NOT NULL,
            finished_at {database.TimeType} NULL,
            plan_json TEXT NOT NULL,
            strategies_json TEXT NOT NULL,
            error TEXT NULL,
            comparison_json TEXT NULL,
            {DescriptorSets.Column} TEXT NULL{database.SaveOrderColumn});
        CREATE INDEX IF NOT EXISTS suites_by_started_at ON suites (started_at{database.SaveOrderIndex});
        CREATE INDEX IF NOT EXISTS suites_by_descriptor_set ON suites ({DescriptorSets.Column}) WHERE {DescriptorSets.Column} IS NOT NULL;
        CREATE TABLE IF NOT EXISTS experiments (
            id {database.IdType} NOT NULL PRIMARY KEY,
            lesson TEXT NOT NULL,
            state TEXT NOT NULL,
            started_at {database.TimeType} NOT NULL,
            record_json TEXT NOT NULL{database.SaveOrderColumn});
        CREATE INDEX IF NOT EXISTS experiments_by_lesson ON experiments (lesson, started_at{database.SaveOrderIndex});
        CREATE TABLE IF NOT EXISTS checkups (
            id {database.IdType} NOT NULL PRIMARY KEY,
            target TEXT NULL,
            state TEXT NOT NULL,
            started_at {database.TimeType} NOT NULL,
            record_json TEXT NOT NULL{database.SaveOrderColumn});
        CREATE INDEX IF NOT EXISTS checkups_by_started_at ON checkups (started_at{database.SaveOrderIndex});
        {_sets.Schema}
        """;

    /// <summary>Creates or upgrades the schema, taking the write lock, so a store this process cannot write fails here, at start; a newer schema than this gateway's is refused.</summary>
    public Task InitializeAsync() => database.ChangeSchemaAsync(async change =>
    {
        var current = database.Pick(SchemaVersion, SchemaVersion - PostgresFirstVersion + 1);
        var stored = await change.ReadVersionAsync();
        if (stored > current)
        {
            throw new InvalidDataException($"it holds history schema version {stored}, newer than this gateway's {current}");
        }

        if (stored < current)
        {
            if (stored > 0)
            {
                await UpgradeAsync(change, database.Pick(stored, stored + PostgresFirstVersion - 1));
            }

            await change.ExecuteAsync(Schema);
            if (stored > 0)
            {
                // Version 8 moves the sets older plans carry inline into the sets' table, which the schema has just made.
                await _sets.MoveInlineSetsAsync(change, "runs", "suites");
            }

            await change.WriteVersionAsync(stored, current);
        }
    });

    public Task SaveAsync(RunRecord run, CancellationToken cancellationToken = default) => WritePlanAsync(
        run.Plan,
        database.Upsert("runs", $"{RunColumns}, {DescriptorSets.Column}"),
        ("id", database.Id(run.Id)),
        ("suite_id", database.Id(run.SuiteId)),
        ("strategy", run.Plan.Strategy),
        ("state", run.State.ToString()),
        ("started_at", database.Time(run.StartedAt)),
        ("finished_at", database.Time(run.FinishedAt)),
        ("plan_json", ToJson(run.Plan)),
        ("stats_json", run.Stats is null ? null : ToJson(run.Stats)),
        ("error", run.Error),
        ("measured", run.Measured),
        ("series_json", run.Series is null ? null : ToJson(run.Series)),
        ("verdict_json", run.Verdict is null ? null : ToJson(run.Verdict)),
        ("experiment_id", database.Id(run.ExperimentId)),
        ("note", run.Note));

    public async Task<RunRecord?> GetAsync(Guid id, CancellationToken cancellationToken = default) =>
        (await database.QueryAsync($"SELECT {RunColumns} FROM runs WHERE id = @id;", ReadRun, cancellationToken, ("id", database.Id(id)))).SingleOrDefault();

    public Task<IReadOnlyList<RunRecord>> ListAsync(string? strategy, int limit, int offset, CancellationToken cancellationToken = default) =>
        NewestAsync($"SELECT {ListedRunColumns} FROM runs {StrategyFilter(strategy)}", ReadRun, limit, offset, cancellationToken, ("strategy", strategy));

    public Task<int> CountAsync(string? strategy, CancellationToken cancellationToken = default) =>
        CountRowsAsync($"FROM runs {StrategyFilter(strategy)}", cancellationToken, ("strategy", strategy));

    public Task<IReadOnlyList<RunRecord>> ListSuiteRunsAsync(Guid suiteId, CancellationToken cancellationToken = default) => database.QueryAsync(
        $"SELECT {ListedRunColumns} FROM runs WHERE suite_id = @suite_id ORDER BY started_at, {database.SaveOrder};", ReadRun, cancellationToken, ("suite_id", database.Id(suiteId)));

    /// <summary>Deletes the run, then every descriptor set that no stored plan names any more.</summary>
    public async Task<bool> DeleteAsync(Guid id, CancellationToken cancellationToken = default)
    {
        if (await WriteAsync("DELETE FROM runs WHERE id = @id;", ("id", database.Id(id))) == 0)
        {
            return false;
        }

        await _sets.SweepAsync();
        return true;
    }

    public Task SaveSuiteAsync(SuiteRecord suite, CancellationToken cancellationToken = default) => WritePlanAsync(
        suite.Plan,
        database.Upsert("suites", $"{SuiteColumns}, {DescriptorSets.Column}"),
        ("id", database.Id(suite.Id)),
        ("state", suite.State.ToString()),
        ("started_at", database.Time(suite.StartedAt)),
        ("finished_at", database.Time(suite.FinishedAt)),
        ("plan_json", ToJson(suite.Plan)),
        ("strategies_json", ToJson(suite.Strategies)),
        ("error", suite.Error),
        ("comparison_json", suite.Comparison is null ? null : ToJson(suite.Comparison)));

    public async Task<SuiteRecord?> GetSuiteAsync(Guid id, CancellationToken cancellationToken = default) =>
        (await database.QueryAsync($"SELECT {SuiteColumns} FROM suites WHERE id = @id;", ReadSuite, cancellationToken, ("id", database.Id(id)))).SingleOrDefault();

    public Task<IReadOnlyList<SuiteRecord>> ListComparisonsAsync(int limit, int offset, CancellationToken cancellationToken = default) =>
        NewestAsync($"SELECT {SuiteColumns} FROM suites WHERE comparison_json IS NOT NULL", ReadSuite, limit, offset, cancellationToken);

    public Task<int> CountComparisonsAsync(CancellationToken cancellationToken = default) =>
        CountRowsAsync("FROM suites WHERE comparison_json IS NOT NULL", cancellationToken);

    public Task SaveExperimentAsync(ExperimentRecord experiment, CancellationToken cancellationToken = default) => WriteAsync(
        database.Upsert("experiments", ExperimentColumns),
        ("id", database.Id(experiment.Id)),
        ("lesson", experiment.Lesson),
        ("state", experiment.State.ToString()),
        ("started_at", database.Time(experiment.StartedAt)),
        ("record_json", ToJson(experiment)));

    public async Task<ExperimentRecord?> GetExperimentAsync(Guid id, CancellationToken cancellationToken = default) =>
        (await database.QueryAsync("SELECT record_json, state FROM experiments WHERE id = @id;", ReadExperiment, cancellationToken, ("id", database.Id(id)))).SingleOrDefault();

    public Task<IReadOnlyList<ExperimentRecord>> ListExperimentsAsync(string lesson, int limit, int offset, CancellationToken cancellationToken = default) =>
        NewestAsync("SELECT record_json, state FROM experiments WHERE lesson = @lesson", ReadExperiment, limit, offset, cancellationToken, ("lesson", lesson));

    public Task<int> CountExperimentsAsync(string lesson, CancellationToken cancellationToken = default) =>
        CountRowsAsync("FROM experiments WHERE lesson = @lesson", cancellationToken, ("lesson", lesson));

    public Task SaveCheckupAsync(CheckupRecord checkup, CancellationToken cancellationToken = default) => WriteAsync(
        database.Upsert("checkups", CheckupColumns),
        ("id", database.Id(checkup.Id)),
        ("target", checkup.Target),
        ("state", checkup.State.ToString()),
        ("started_at", database.Time(checkup.StartedAt)),
        ("record_json", ToJson(checkup)));

    public async Task<CheckupRecord?> GetCheckupAsync(Guid id, CancellationToken cancellationToken = default) =>
        (await database.QueryAsync("SELECT record_json, state FROM checkups WHERE id = @id;", ReadCheckup, cancellationToken, ("id", database.Id(id)))).SingleOrDefault();

    public Task<IReadOnlyList<CheckupRecord>> ListCheckupsAsync(int limit, int offset, CancellationToken cancellationToken = default) =>
        NewestAsync("SELECT record_json, state FROM checkups", ReadCheckup, limit, offset, cancellationToken);

    public Task<int> CountCheckupsAsync(CancellationToken cancellationToken = default) => CountRowsAsync("FROM checkups", cancellationToken);

    /// <summary>At start: runs, suites, experiments and checkups still marked Running were cut off by a stop; marks them Failed and returns how many.</summary>
    public Task<int> MarkInterruptedAsync(CancellationToken cancellationToken = default) => WriteAsync(
        $"""
        UPDATE runs SET state = @failed, error = @error, finished_at = @now WHERE state = @running;
        UPDATE suites SET state = @failed, error = @error, finished_at = @now WHERE state = @running;
        UPDATE experiments SET state = @failed, record_json = {database.JsonSet("record_json", ("state", "failed"), ("error", "error"), ("finishedAt", "now"))} WHERE state = @running;
        UPDATE checkups SET state = @failed, record_json = {database.JsonSet("record_json", ("state", "failed"), ("error", "error"), ("finishedAt", "now"))} WHERE state = @running;
        """,
        ("failed", nameof(RunState.Failed)),
        ("running", nameof(RunState.Running)),
        ("error", InterruptedError),
        ("now", database.Time(DateTimeOffset.UtcNow)));

    /// <summary>Why the history cannot take writes now (within <paramref name="wait"/>), or null when it can.</summary>
    public async Task<string?> ProbeAsync(TimeSpan wait, CancellationToken cancellationToken)
    {
        var sqlite = database.SqliteFile is not null;
        if (sqlite && !File.Exists(Location))
        {
            return $"The history file {Location} is gone (its file or folder was deleted while the gateway ran): what is stored now is lost when " +
                "the gateway stops. Restart the gateway to create it again.";
        }

        try
        {
            await database.ProbeAsync(wait, cancellationToken);
            return null;
        }
        catch (Exception refused) when (sqlite && refused is SqliteException or IOException or UnauthorizedAccessException)
        {
            return $"The history {Location} cannot be written: {refused.Message}";
        }
        catch (OperationCanceledException) when (!sqlite && !cancellationToken.IsCancellationRequested)
        {
            return $"The history {Location} did not answer SELECT 1 within {wait.TotalSeconds:0.#} s.";
        }
        catch (Exception refused) when (!sqlite && refused is NpgsqlException or TimeoutException)
        {
            return $"The history {Location} cannot be reached: {HistorySetup.OneLine(refused)}.";
        }
    }

    /// <summary>Closes the pooled connections (SQLite checkpoints its WAL into the file).</summary>
    public void Dispose() => database.Dispose();

    /// <summary>Brings a database of schema version <paramref name="from"/> (as SQLite counts) to the tables that <see cref="Schema"/> then completes.</summary>
    private async Task UpgradeAsync(SchemaChange change, int from)
    {
        // Version 2 keeps each run's description, time series and verdict; runs recorded before load models existed ran
        // each strategy under its default load, suites sequentially. Only SQLite has histories that old.
        if (from < 2)
        {
            foreach (var column in new[] { "measured", "series_json", "verdict_json" })
            {
                await change.AddColumnAsync("runs", column, "TEXT NULL");
            }

            var defaultLoads = string.Join(" ", StrategyList.All.Select(strategy => $"WHEN '{strategy.Info.Name}' THEN '{RunPlanRules.Name(strategy.Info.DefaultLoad)}'"));
            await change.ExecuteAsync($"""
                UPDATE runs SET plan_json = json_set(plan_json, '$.load', CASE strategy {defaultLoads} ELSE '{RunPlanRules.Name(LoadKind.Sequential)}' END)
                    WHERE json_extract(plan_json, '$.load') IS NULL;
                UPDATE suites SET plan_json = json_set(plan_json, '$.load', '{RunPlanRules.Name(LoadKind.Sequential)}') WHERE json_extract(plan_json, '$.load') IS NULL;
                """);
        }

        // Version 3 keeps what makes a suite a protocol comparison; version 4 the lesson experiments (a table of their
        // own), 5 which experiment a run belongs to, 6 a completed run's note (calls that failed to connect while the service kept answering).
        if (from < 3)
        {
            await change.AddColumnAsync("suites", "comparison_json", "TEXT NULL");
        }

        if (from < 5)
        {
            await change.AddColumnAsync("runs", "experiment_id", $"{database.IdType} NULL");
        }

        if (from < 6)
        {
            await change.AddColumnAsync("runs", "note", "TEXT NULL");
        }

        // Version 7 keeps each descriptor set once (a table of its own) and names it beside each plan; version 8 moves the
        // sets that older plans carried inline (base64 in plan_json) there too, once the schema has made the table.
        if (from < 7)
        {
            foreach (var table in new[] { "runs", "suites" })
            {
                await change.AddColumnAsync(table, DescriptorSets.Column, "TEXT NULL");
            }
        }

        // Version 9 keeps the checkups: a table of their own, which the schema makes, so nothing older changes.
    }

    // Writes take no token: a run is stored even when the caller who started it has gone.
    private Task<int> WriteAsync(string sql, params (string Name, object? Value)[] parameters) => database.ExecuteAsync(sql, CancellationToken.None, parameters);

    private Task<int> WritePlanAsync(RunPlan plan, string sql, params (string Name, object? Value)[] parameters) => _sets.WriteAsync(plan, sql, CancellationToken.None, parameters);

    // Newest first; of rows that started at the same time, the latest saved first.
    private Task<IReadOnlyList<T>> NewestAsync<T>(
        string query, Func<DbDataReader, T> read, int limit, int offset, CancellationToken cancellationToken, params (string Name, object? Value)[] parameters) =>
        database.QueryAsync($"{query} ORDER BY started_at DESC, {database.SaveOrder} DESC LIMIT @limit OFFSET @offset;", read, cancellationToken, [.. parameters, ("limit", limit), ("offset", offset)]);

    // COUNT(*) is a bigint in PostgreSQL.
    private async Task<int> CountRowsAsync(string from, CancellationToken cancellationToken, params (string Name, object? Value)[] parameters) =>
        (int)(await database.QueryAsync($"SELECT COUNT(*) {from};", row => row.GetInt64(0), cancellationToken, parameters)).Single();

    private static string StrategyFilter(string? strategy) => strategy is null ? string.Empty : "WHERE strategy = @strategy";

    private RunRecord ReadRun(DbDataReader row) => new(
        Id: database.ReadId(row, 0),
        SuiteId: row.IsDBNull(1) ? null : database.ReadId(row, 1),
        State: Enum.Parse<RunState>(row.GetString(3)),
        StartedAt: database.ReadTime(row, 4),
        FinishedAt: row.IsDBNull(5) ? null : database.ReadTime(row, 5),
        Plan: FromJson<RunPlan>(row.GetString(6)),
        Stats: row.IsDBNull(7) ? null : FromJson<RunStats>(row.GetString(7)),
        Error: row.IsDBNull(8) ? null : row.GetString(8))
    {
        Measured = row.IsDBNull(9) ? null : row.GetString(9),
        Series = row.IsDBNull(10) ? null : FromJson<TimeSeries>(row.GetString(10)),
        Verdict = row.IsDBNull(11) ? null : FromJson<Verdict>(row.GetString(11)),
        ExperimentId = row.IsDBNull(12) ? null : database.ReadId(row, 12),
        Note = row.IsDBNull(13) ? null : row.GetString(13),
    };

    private SuiteRecord ReadSuite(DbDataReader row) => new(
        Id: database.ReadId(row, 0),
        State: Enum.Parse<RunState>(row.GetString(1)),
        StartedAt: database.ReadTime(row, 2),
        FinishedAt: row.IsDBNull(3) ? null : database.ReadTime(row, 3),
        Plan: FromJson<RunPlan>(row.GetString(4)),
        Strategies: FromJson<string[]>(row.GetString(5)),
        Error: row.IsDBNull(6) ? null : row.GetString(6))
    {
        Comparison = row.IsDBNull(7) ? null : FromJson<ComparisonPlan>(row.GetString(7)),
    };

    // The state column is the truth: a record cut off by a stop is marked there (and in its JSON) at the next start.
    private static ExperimentRecord ReadExperiment(DbDataReader row) =>
        FromJson<ExperimentRecord>(row.GetString(0)) with { State = Enum.Parse<RunState>(row.GetString(1)) };

    private static CheckupRecord ReadCheckup(DbDataReader row) =>
        FromJson<CheckupRecord>(row.GetString(0)) with { State = Enum.Parse<RunState>(row.GetString(1)) };
}
