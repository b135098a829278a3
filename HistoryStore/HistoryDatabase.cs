using System.Data.Common;
using System.Globalization;
using System.Text.Json;
using Microsoft.Data.Sqlite;

namespace HistoryStore;

/// <summary>
/// The database that keeps the run history and the agents' tables: one SQLite file on one machine, or PostgreSQL for a
/// team or a cluster. It hands out pooled connections and holds the little SQL that differs between the two (types,
/// upserts, the order of saves, JSON edits, the schema's lock and version, the health probe); the stores over it
/// write everything else once.
/// </summary>
public abstract class HistoryDatabase : IDisposable
{
    public const string Sqlite = "Sqlite";
    public const string Postgres = "Postgres";

    // Any constant of our own ("GrpcHist"): the key of the advisory lock that schema changes take in turn on PostgreSQL.
    private const long SchemaLock = 0x4772_7063_4869_7374;

    private readonly DbDataSource _source;

    private protected HistoryDatabase(DbDataSource source, string location, string connection)
    {
        _source = source;
        Location = location;
        Connection = connection;
    }

    /// <summary>Where it is, for sentences: the SQLite file's path, or the PostgreSQL database and its server.</summary>
    public string Location { get; }

    /// <summary>The connection as it may be shown and logged: the SQLite file, or PostgreSQL's host, port, database and user, never a password.</summary>
    public string Connection { get; }

    /// <summary>The database in words, without any password: for messages.</summary>
    public string Description => SqliteFile is null ? Location : $"the SQLite file {Location}";

    /// <summary>The SQLite file's full path; null for PostgreSQL.</summary>
    public virtual string? SqliteFile => null;

    /// <summary>The column type of an id: text in SQLite, uuid in PostgreSQL.</summary>
    public string IdType => Pick("TEXT", "uuid");

    /// <summary>The column type of a time: fixed-width UTC text in SQLite, timestamptz in PostgreSQL.</summary>
    public string TimeType => Pick("TEXT", "timestamptz");

    /// <summary>The column type of bytes: BLOB in SQLite, bytea in PostgreSQL.</summary>
    public string BytesType => Pick("BLOB", "bytea");

    /// <summary>What orders rows saved at the same start time, latest save last: SQLite's rowid, which INSERT OR REPLACE renews, or PostgreSQL's <c>saved</c> column.</summary>
    public string SaveOrder => Pick("rowid", "saved");

    /// <summary>
    /// The column definition that <see cref="SaveOrder"/> needs in a table (none in SQLite), with its leading comma: each
    /// PostgreSQL upsert takes the next value, as SQLite's rowid does after INSERT OR REPLACE.
    /// </summary>
    public string SaveOrderColumn => Pick(string.Empty, ",\n    saved bigserial NOT NULL");

    /// <summary>What an index on a start time adds to keep <see cref="SaveOrder"/> (nothing in SQLite, whose indexes hold the rowid), with its leading comma.</summary>
    public string SaveOrderIndex => Pick(string.Empty, ", saved");

    /// <summary>
    /// The database for a history provider: <see cref="Sqlite"/> with the file's path (or a connection string), or
    /// <see cref="Postgres"/> with an Npgsql connection string, waiting Npgsql's own 15 s to connect: an agent's, as four
    /// agents open it at once, on machines busy running load (the gateway meets them in its history's own database).
    /// </summary>
    public static HistoryDatabase Open(string provider, string connection) => provider switch
    {
        _ when string.Equals(provider, Sqlite, StringComparison.OrdinalIgnoreCase) => new SqliteHistoryDatabase(
            connection.Contains('=', StringComparison.Ordinal) ? new SqliteConnectionStringBuilder(connection) : new() { DataSource = connection }, writeWait: null),
        _ when string.Equals(provider, Postgres, StringComparison.OrdinalIgnoreCase) => new PostgresHistoryDatabase(connection, connectTimeoutSeconds: null),
        _ => throw new ArgumentException($"The history provider was '{provider}'; it is {Sqlite} or {Postgres}.", nameof(provider)),
    };

    /// <summary>The SQLite file at <paramref name="path"/>, created when missing; a write waits up to <paramref name="writeWait"/> (10 s unless given) for another writer's lock.</summary>
    public static HistoryDatabase OpenSqlite(string path, TimeSpan? writeWait = null) => new SqliteHistoryDatabase(new SqliteConnectionStringBuilder { DataSource = path }, writeWait);

    /// <summary>The PostgreSQL database of <paramref name="connectionString"/>; unless it names a Timeout, a server that does not answer is given up after 5 s.</summary>
    public static HistoryDatabase OpenPostgres(string connectionString) => new PostgresHistoryDatabase(connectionString, PostgresHistoryDatabase.DefaultConnectTimeoutSeconds);

    /// <summary>The one of two values that belongs to this database: the SQL, types and versions that differ between the two.</summary>
    public abstract T Pick<T>(T sqlite, T postgres);

    /// <summary>Inserts the row or replaces the one with its <c>id</c>; each column takes the parameter of its name. The saved row counts as the latest saved.</summary>
    public string Upsert(string table, string columns)
    {
        var names = columns.Split(',', StringSplitOptions.TrimEntries);
        var values = string.Join(", ", names.Select(name => "@" + name));
        // SQLite's REPLACE deletes the old row and inserts a new one, with the next rowid; PostgreSQL's update takes the next SaveOrder.
        var updates = names.Where(name => name != "id").Append(SaveOrder).Select(name => $"{name} = EXCLUDED.{name}");
        return Pick(
            $"INSERT OR REPLACE INTO {table} ({columns}) VALUES ({values});",
            $"INSERT INTO {table} ({columns}) VALUES ({values}) ON CONFLICT (id) DO UPDATE SET {string.Join(", ", updates)};");
    }

    /// <summary>The JSON text of <paramref name="column"/> with each of <paramref name="fields"/> set to the value of its parameter.</summary>
    public string JsonSet(string column, params (string Field, string Parameter)[] fields) => Pick(
        $"json_set({column}, {string.Join(", ", fields.Select(field => $"'$.{field.Field}', @{field.Parameter}"))})",
        $"({column}::jsonb || jsonb_build_object({string.Join(", ", fields.Select(field => $"'{field.Field}', @{field.Parameter}"))}))::text");

    public abstract object Id(Guid id);

    public abstract Guid ReadId(DbDataReader row, int ordinal);

    public abstract object Time(DateTimeOffset time);

    public abstract DateTimeOffset ReadTime(DbDataReader row, int ordinal);

    public object? Id(Guid? id) => id is { } value ? Id(value) : null;

    public object? Time(DateTimeOffset? time) => time is { } value ? Time(value) : null;

    /// <summary>A record's part as the stores keep it: JSON text in the gateway's own shape (<see cref="RunJson"/>).</summary>
    public static string ToJson<T>(T value) => JsonSerializer.Serialize(value, RunJson.Options);

    public static T FromJson<T>(string json) =>
        JsonSerializer.Deserialize<T>(json, RunJson.Options) ?? throw new InvalidDataException($"The history holds a null {typeof(T).Name}.");

    /// <summary>Throws when the database cannot take a write within <paramref name="wait"/>: the SQLite file's lock is held or refused, or the PostgreSQL server does not answer.</summary>
    public abstract Task ProbeAsync(TimeSpan wait, CancellationToken cancellationToken);

    /// <summary>
    /// Changes the schema in one transaction, one process at a time (gateways and agents that start together take turns,
    /// whichever store each opens: both create the descriptor sets' table), so that each finds it made.
    /// </summary>
    public async Task ChangeSchemaAsync(Func<SchemaChange, Task> change, CancellationToken cancellationToken = default)
    {
        await using var connection = await OpenAsync(cancellationToken);
        await PrepareSchemaChangeAsync(connection, cancellationToken);
        await using var transaction = await connection.BeginTransactionAsync(cancellationToken);
        // SQLite: Microsoft.Data.Sqlite begins IMMEDIATE, the write lock, taken in turn, which a read-only file refuses even when
        // the schema is already there. PostgreSQL: an advisory lock held until the transaction ends, as CREATE TABLE IF NOT
        // EXISTS races with itself there (a duplicate key in pg_type).
        if (Pick<string?>(null, $"SELECT pg_advisory_xact_lock({SchemaLock});") is { } takeLock)
        {
            await NonQueryAsync(connection, transaction, takeLock, cancellationToken);
        }

        await change(new SchemaChange(this, connection, transaction));
        await transaction.CommitAsync(cancellationToken);
    }

    /// <summary>A pooled connection of its own, ready for use.</summary>
    public virtual async Task<DbConnection> OpenAsync(CancellationToken cancellationToken) => await _source.OpenConnectionAsync(cancellationToken);

    /// <summary>Runs one command on a connection of its own; returns the rows it changed.</summary>
    public async Task<int> ExecuteAsync(string sql, CancellationToken cancellationToken, params (string Name, object? Value)[] parameters)
    {
        await using var connection = await OpenAsync(cancellationToken);
        return await NonQueryAsync(connection, null, sql, cancellationToken, parameters);
    }

    /// <summary>Runs one command of several statements in one transaction on a connection of its own: all of them or none.</summary>
    public async Task<int> ExecuteAtomicallyAsync(string sql, CancellationToken cancellationToken, params (string Name, object? Value)[] parameters)
    {
        await using var connection = await OpenAsync(cancellationToken);
        await using var transaction = await connection.BeginTransactionAsync(cancellationToken);
        var changed = await NonQueryAsync(connection, transaction, sql, cancellationToken, parameters);
        await transaction.CommitAsync(cancellationToken);
        return changed;
    }

    /// <summary>Runs the query on a connection of its own and reads every row it returns.</summary>
    public async Task<IReadOnlyList<T>> QueryAsync<T>(string sql, Func<DbDataReader, T> read, CancellationToken cancellationToken, params (string Name, object? Value)[] parameters)
    {
        await using var connection = await OpenAsync(cancellationToken);
        return await ReadAllAsync(connection, null, sql, read, cancellationToken, parameters);
    }

    /// <summary>Every row the query returns, each as <paramref name="read"/> makes it.</summary>
    public static async Task<IReadOnlyList<T>> ReadAllAsync<T>(
        DbConnection connection, DbTransaction? transaction, string sql, Func<DbDataReader, T> read, CancellationToken cancellationToken = default, params (string Name, object? Value)[] parameters)
    {
        await using var command = Command(connection, transaction, sql, parameters);
        await using var reader = await command.ExecuteReaderAsync(cancellationToken);
        var rows = new List<T>();
        while (await reader.ReadAsync(cancellationToken))
        {
            rows.Add(read(reader));
        }

        return rows;
    }

    /// <summary>A command whose parameters are named without a prefix, as <c>@name</c> in the SQL of both databases.</summary>
    public static DbCommand Command(DbConnection connection, DbTransaction? transaction, string sql, params (string Name, object? Value)[] parameters)
    {
        var command = connection.CreateCommand();
        command.CommandText = sql;
        command.Transaction = transaction;
        foreach (var (name, value) in parameters)
        {
            var parameter = command.CreateParameter();
            parameter.ParameterName = name;
            parameter.Value = value ?? DBNull.Value;
            command.Parameters.Add(parameter);
        }

        return command;
    }

    public static async Task<object?> ScalarAsync(DbConnection connection, DbTransaction? transaction, string sql, CancellationToken cancellationToken = default)
    {
        await using var command = Command(connection, transaction, sql);
        return await command.ExecuteScalarAsync(cancellationToken);
    }

    /// <summary>Runs the command; returns the rows it changed.</summary>
    public static async Task<int> NonQueryAsync(
        DbConnection connection, DbTransaction? transaction, string sql, CancellationToken cancellationToken = default, params (string Name, object? Value)[] parameters)
    {
        await using var command = Command(connection, transaction, sql, parameters);
        return await command.ExecuteNonQueryAsync(cancellationToken);
    }

    public void Dispose()
    {
        GC.SuppressFinalize(this);
        Close();
        _source.Dispose();
    }

    /// <summary>Whether the table is there with the column.</summary>
    internal Task<bool> HasColumnAsync(DbConnection connection, DbTransaction transaction, string table, string column) =>
        IsAsync(connection, transaction, ColumnExists(table, column));

    /// <summary>A condition, in SQL, that holds when the table is there (in PostgreSQL, as the search path finds it, as every statement does).</summary>
    internal string TableExists(string table) => Pick($"EXISTS (SELECT 1 FROM pragma_table_info('{table}'))", $"to_regclass('{table}') IS NOT NULL");

    /// <summary>A condition, in SQL, that holds when the table is there with the column.</summary>
    internal string ColumnExists(string table, string column) => Pick(
        $"EXISTS (SELECT 1 FROM pragma_table_info('{table}') WHERE name = '{column}')",
        $"EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('{table}') AND attname = '{column}' AND attnum > 0 AND NOT attisdropped)");

    /// <summary>What must happen outside the schema's transaction.</summary>
    private protected virtual Task PrepareSchemaChangeAsync(DbConnection connection, CancellationToken cancellationToken) => Task.CompletedTask;

    /// <summary>Closes the pooled connections.</summary>
    private protected virtual void Close()
    {
    }

    internal static async Task<bool> IsAsync(DbConnection connection, DbTransaction transaction, string condition) =>
        Convert.ToBoolean(await ScalarAsync(connection, transaction, $"SELECT {condition};"), CultureInfo.InvariantCulture);
}

/// <summary>A schema change in progress: its statements run in the change's transaction.</summary>
public sealed class SchemaChange(HistoryDatabase database, DbConnection connection, DbTransaction transaction)
{
    /// <summary>
    /// The history's schema version, 0 for a database that holds none yet: SQLite's user_version, or the latest row of
    /// PostgreSQL's history_schema, a table only created when missing (once the schema is there, a user without CREATE
    /// rights on the schema can still start).
    /// </summary>
    public async Task<int> ReadVersionAsync()
    {
        if (database.SqliteFile is null && !await HistoryDatabase.IsAsync(connection, transaction, database.TableExists("history_schema")))
        {
            await ExecuteAsync("CREATE TABLE IF NOT EXISTS history_schema (version integer NOT NULL PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());");
            return 0;
        }

        var version = database.Pick("PRAGMA user_version;", "SELECT COALESCE(MAX(version), 0) FROM history_schema;");
        return Convert.ToInt32(await HistoryDatabase.ScalarAsync(connection, transaction, version), CultureInfo.InvariantCulture);
    }

    /// <summary>
    /// Records that the schema went from version <paramref name="from"/> to <paramref name="to"/>: in SQLite's
    /// user_version (PRAGMA takes no parameters; the version is a number), or as one row per version PostgreSQL's database went through.
    /// </summary>
    public Task WriteVersionAsync(int from, int to) =>
        ExecuteAsync(database.Pick($"PRAGMA user_version = {to};", $"INSERT INTO history_schema (version) SELECT generate_series({from + 1}, {to});"));

    /// <summary>
    /// Adds the column where its table is there without it. Only then: ALTER TABLE needs the table's owner in PostgreSQL
    /// (agents open the schema at every start), and a SQLite file written during a version's development may have the column already.
    /// </summary>
    public async Task AddColumnAsync(string table, string column, string type)
    {
        if (await HistoryDatabase.IsAsync(connection, transaction, $"{database.TableExists(table)} AND NOT {database.ColumnExists(table, column)}"))
        {
            await ExecuteAsync($"ALTER TABLE {table} ADD COLUMN {column} {type};");
        }
    }

    /// <summary>Runs <paramref name="sql"/> with its parameters, in the change's transaction.</summary>
    public Task ExecuteAsync(string sql, params (string Name, object? Value)[] parameters) => HistoryDatabase.NonQueryAsync(connection, transaction, sql, default, parameters);

    /// <summary>Every row <paramref name="sql"/> selects, each as <paramref name="read"/> makes it, in the change's transaction.</summary>
    public Task<IReadOnlyList<T>> QueryAsync<T>(string sql, Func<DbDataReader, T> read) => HistoryDatabase.ReadAllAsync(connection, transaction, sql, read);
}
