using System.Data.Common;
using System.Globalization;
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
    public abstract string IdType { get; }

    /// <summary>The column type of a time: fixed-width UTC text in SQLite, timestamptz in PostgreSQL.</summary>
    public abstract string TimeType { get; }

    /// <summary>The column type of bytes: BLOB in SQLite, bytea in PostgreSQL.</summary>
    public abstract string BytesType { get; }

    /// <summary>What orders rows saved at the same start time, latest save last: SQLite's rowid, which INSERT OR REPLACE renews, or PostgreSQL's <c>saved</c> column.</summary>
    public abstract string SaveOrder { get; }

    /// <summary>The column definition that <see cref="SaveOrder"/> needs in a table (none in SQLite), with its leading comma.</summary>
    public abstract string SaveOrderColumn { get; }

    /// <summary>What an index on a start time adds to keep <see cref="SaveOrder"/> (nothing in SQLite, whose indexes hold the rowid), with its leading comma.</summary>
    public abstract string SaveOrderIndex { get; }

    /// <summary>
    /// The database for a history provider: <see cref="Sqlite"/> with the file's path (or a connection string), or
    /// <see cref="Postgres"/> with an Npgsql connection string, waiting Npgsql's own 15 s to connect: the agents' tables,
    /// which four agents and a gateway open at once, on machines busy running load.
    /// </summary>
    public static HistoryDatabase Open(string provider, string connection) => provider switch
    {
        _ when string.Equals(provider, Sqlite, StringComparison.OrdinalIgnoreCase) => connection.Contains('=', StringComparison.Ordinal)
            ? new SqliteHistoryDatabase(new SqliteConnectionStringBuilder(connection), writeWait: null)
            : OpenSqlite(connection),
        _ when string.Equals(provider, Postgres, StringComparison.OrdinalIgnoreCase) => new PostgresHistoryDatabase(connection, connectTimeoutSeconds: null),
        _ => throw new ArgumentException($"The history provider was '{provider}'; it is {Sqlite} or {Postgres}.", nameof(provider)),
    };

    /// <summary>The SQLite file at <paramref name="path"/>, created when missing; a write waits up to <paramref name="writeWait"/> (10 s unless given) for another writer's lock.</summary>
    public static HistoryDatabase OpenSqlite(string path, TimeSpan? writeWait = null) => new SqliteHistoryDatabase(new SqliteConnectionStringBuilder { DataSource = path }, writeWait);

    /// <summary>The PostgreSQL database of <paramref name="connectionString"/>; unless it names a Timeout, a server that does not answer is given up after 5 s.</summary>
    public static HistoryDatabase OpenPostgres(string connectionString) => new PostgresHistoryDatabase(connectionString, PostgresHistoryDatabase.DefaultConnectTimeoutSeconds);

    /// <summary>The one of two values that belongs to this database: what a store keeps apart per database (its schema's upgrades).</summary>
    public abstract T Pick<T>(T sqlite, T postgres);

    /// <summary>Inserts the row or replaces the one with its <c>id</c>; each column takes the parameter of its name. The saved row counts as the latest saved.</summary>
    public abstract string Upsert(string table, string columns);

    /// <summary>The JSON text of <paramref name="column"/> with each of <paramref name="fields"/> set to the value of its parameter.</summary>
    public abstract string JsonSet(string column, params (string Field, string Parameter)[] fields);

    public abstract object Id(Guid id);

    public abstract Guid ReadId(DbDataReader row, int ordinal);

    public abstract object Time(DateTimeOffset time);

    public abstract DateTimeOffset ReadTime(DbDataReader row, int ordinal);

    public object? Id(Guid? id) => id is { } value ? Id(value) : null;

    public object? Time(DateTimeOffset? time) => time is { } value ? Time(value) : null;

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
        await LockSchemaAsync(connection, transaction, SchemaLock, cancellationToken);
        await change(new SchemaChange(this, connection, transaction));
        await transaction.CommitAsync(cancellationToken);
    }

    /// <summary>A pooled connection of its own, ready for use.</summary>
    public virtual async Task<DbConnection> OpenAsync(CancellationToken cancellationToken) => await _source.OpenConnectionAsync(cancellationToken);

    /// <summary>Runs one command on a connection of its own; returns the rows it changed.</summary>
    public async Task<int> ExecuteAsync(string sql, CancellationToken cancellationToken, params (string Name, object? Value)[] parameters)
    {
        await using var connection = await OpenAsync(cancellationToken);
        await using var command = Command(connection, null, sql, parameters);
        return await command.ExecuteNonQueryAsync(cancellationToken);
    }

    /// <summary>Runs one command of several statements in one transaction on a connection of its own: all of them or none.</summary>
    public async Task<int> ExecuteAtomicallyAsync(string sql, CancellationToken cancellationToken, params (string Name, object? Value)[] parameters)
    {
        await using var connection = await OpenAsync(cancellationToken);
        await using var transaction = await connection.BeginTransactionAsync(cancellationToken);
        await using var command = Command(connection, transaction, sql, parameters);
        var changed = await command.ExecuteNonQueryAsync(cancellationToken);
        await transaction.CommitAsync(cancellationToken);
        return changed;
    }

    /// <summary>Runs the query on a connection of its own and reads every row it returns.</summary>
    public async Task<IReadOnlyList<T>> QueryAsync<T>(string sql, Func<DbDataReader, T> read, CancellationToken cancellationToken, params (string Name, object? Value)[] parameters)
    {
        await using var connection = await OpenAsync(cancellationToken);
        await using var command = Command(connection, null, sql, parameters);
        return await ReadAllAsync(command, read, cancellationToken);
    }

    /// <summary>Every row the command returns, each as <paramref name="read"/> makes it.</summary>
    public static async Task<IReadOnlyList<T>> ReadAllAsync<T>(DbCommand command, Func<DbDataReader, T> read, CancellationToken cancellationToken = default)
    {
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

    public static async Task NonQueryAsync(DbConnection connection, DbTransaction? transaction, string sql, CancellationToken cancellationToken = default)
    {
        await using var command = Command(connection, transaction, sql);
        await command.ExecuteNonQueryAsync(cancellationToken);
    }

    public void Dispose()
    {
        GC.SuppressFinalize(this);
        Close();
        _source.Dispose();
    }

    /// <summary>The history's schema version, 0 for a database that holds none yet.</summary>
    internal abstract Task<int> ReadSchemaVersionAsync(DbConnection connection, DbTransaction transaction);

    /// <summary>Records that the schema went from version <paramref name="from"/> to <paramref name="to"/>.</summary>
    internal abstract Task WriteSchemaVersionAsync(DbConnection connection, DbTransaction transaction, int from, int to);

    /// <summary>
    /// Adds the column where its table is there without it. Only then: ALTER TABLE needs the table's owner in PostgreSQL
    /// (agents open the schema at every start), and a SQLite file written during a version's development may have the column already.
    /// </summary>
    internal async Task AddColumnAsync(DbConnection connection, DbTransaction transaction, string table, string column, string type)
    {
        if (await IsAsync(connection, transaction, $"{TableExists(table)} AND NOT {ColumnExists(table, column)}"))
        {
            await NonQueryAsync(connection, transaction, $"ALTER TABLE {table} ADD COLUMN {column} {type};");
        }
    }

    /// <summary>Whether the table is there with the column.</summary>
    internal Task<bool> HasColumnAsync(DbConnection connection, DbTransaction transaction, string table, string column) =>
        IsAsync(connection, transaction, ColumnExists(table, column));

    /// <summary>A condition, in SQL, that holds when the table is there.</summary>
    private protected abstract string TableExists(string table);

    /// <summary>A condition, in SQL, that holds when the table is there with the column.</summary>
    private protected abstract string ColumnExists(string table, string column);

    /// <summary>What must happen outside the schema's transaction.</summary>
    private protected virtual Task PrepareSchemaChangeAsync(DbConnection connection, CancellationToken cancellationToken) => Task.CompletedTask;

    private protected abstract Task LockSchemaAsync(DbConnection connection, DbTransaction transaction, long lockKey, CancellationToken cancellationToken);

    /// <summary>Closes the pooled connections.</summary>
    private protected virtual void Close()
    {
    }

    private static async Task<bool> IsAsync(DbConnection connection, DbTransaction transaction, string condition) =>
        Convert.ToBoolean(await ScalarAsync(connection, transaction, $"SELECT {condition};"), CultureInfo.InvariantCulture);
}

/// <summary>A schema change in progress: its statements run in the change's transaction.</summary>
public sealed class SchemaChange(HistoryDatabase database, DbConnection connection, DbTransaction transaction)
{

    /// <inheritdoc cref="HistoryDatabase.ReadSchemaVersionAsync"/>
    public Task<int> ReadVersionAsync() => database.ReadSchemaVersionAsync(connection, transaction);

    /// <inheritdoc cref="HistoryDatabase.WriteSchemaVersionAsync"/>
    public Task WriteVersionAsync(int from, int to) => database.WriteSchemaVersionAsync(connection, transaction, from, to);

    /// <inheritdoc cref="HistoryDatabase.AddColumnAsync"/>
    public Task AddColumnAsync(string table, string column, string type) => database.AddColumnAsync(connection, transaction, table, column, type);

    /// <summary>Runs <paramref name="sql"/> with its parameters, in the change's transaction.</summary>
    public async Task ExecuteAsync(string sql, params (string Name, object? Value)[] parameters)
    {
        await using var command = HistoryDatabase.Command(connection, transaction, sql, parameters);
        await command.ExecuteNonQueryAsync();
    }

    /// <summary>Every row <paramref name="sql"/> selects, each as <paramref name="read"/> makes it, in the change's transaction.</summary>
    public async Task<IReadOnlyList<T>> QueryAsync<T>(string sql, Func<DbDataReader, T> read)
    {
        await using var command = HistoryDatabase.Command(connection, transaction, sql);
        return await HistoryDatabase.ReadAllAsync(command, read);
    }
}
