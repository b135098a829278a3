using System.Data.Common;
using System.Globalization;
using Microsoft.Data.Sqlite;

namespace HistoryStore;

/// <summary>
/// The history in one SQLite file that every thread of the gateway, and agents on the same machine, write at once: WAL
/// and a busy timeout let their writes queue for the lock instead of failing. Ids and times are kept as text.
/// </summary>
internal sealed class SqliteHistoryDatabase : HistoryDatabase
{
    private static readonly TimeSpan DefaultWriteWait = TimeSpan.FromSeconds(10);

    // Fixed-width UTC text sorts in time order and stays readable in the sqlite3 shell.
    private const string TimeFormat = "yyyy-MM-dd'T'HH:mm:ss.fffffff'Z'";

    private readonly string _connectionString;
    private readonly int _busyTimeoutMilliseconds;

    public SqliteHistoryDatabase(SqliteConnectionStringBuilder builder, TimeSpan? writeWait)
        : base(SqliteFactory.Instance.CreateDataSource(Settings(builder, writeWait ?? DefaultWriteWait)), builder.DataSource, builder.DataSource)
    {
        _connectionString = builder.ToString();
        _busyTimeoutMilliseconds = Milliseconds(writeWait ?? DefaultWriteWait);
        SqliteFile = Path.GetFullPath(builder.DataSource);
    }

    public override string? SqliteFile { get; }

    public override T Pick<T>(T sqlite, T postgres) => sqlite;

    // Guids go in as text: Microsoft.Data.Sqlite would otherwise bind them as 16-byte blobs.
    public override object Id(Guid id) => id.ToString("D", CultureInfo.InvariantCulture);

    public override Guid ReadId(DbDataReader row, int ordinal) => Guid.Parse(row.GetString(ordinal));

    public override object Time(DateTimeOffset time) => time.UtcDateTime.ToString(TimeFormat, CultureInfo.InvariantCulture);

    public override DateTimeOffset ReadTime(DbDataReader row, int ordinal) =>
        DateTimeOffset.ParseExact(row.GetString(ordinal), TimeFormat, CultureInfo.InvariantCulture, DateTimeStyles.AssumeUniversal | DateTimeStyles.AdjustToUniversal);

    // Per connection: many threads write at once, and a writer should wait for the lock, not fail with SQLITE_BUSY.
    public override async Task<DbConnection> OpenAsync(CancellationToken cancellationToken)
    {
        var connection = await base.OpenAsync(cancellationToken);
        try
        {
            await NonQueryAsync(connection, null, $"PRAGMA busy_timeout = {_busyTimeoutMilliseconds};", cancellationToken);
            return connection;
        }
        catch
        {
            await connection.DisposeAsync();
            throw;
        }
    }

    /// <summary>Takes the write lock and lets it go: throws when another process holds it longer than <paramref name="wait"/> or the file refuses writes.</summary>
    public override async Task ProbeAsync(TimeSpan wait, CancellationToken cancellationToken)
    {
        await using var connection = await OpenAsync(CancellationToken.None);
        await NonQueryAsync(connection, null, $"PRAGMA busy_timeout = {Milliseconds(wait)};");
        try
        {
            await using var begin = Command(connection, null, "BEGIN IMMEDIATE;");
            begin.CommandTimeout = Seconds(wait);
            await begin.ExecuteNonQueryAsync(CancellationToken.None);
            await NonQueryAsync(connection, null, "ROLLBACK;");
        }
        finally
        {
            // The connection goes back to the pool: give it back its writers' wait.
            await NonQueryAsync(connection, null, $"PRAGMA busy_timeout = {_busyTimeoutMilliseconds};");
        }
    }

    // The journal mode is kept in the file, and cannot change inside a transaction.
    private protected override async Task PrepareSchemaChangeAsync(DbConnection connection, CancellationToken cancellationToken)
    {
        var journal = Convert.ToString(await ScalarAsync(connection, null, "PRAGMA journal_mode = WAL;", cancellationToken), CultureInfo.InvariantCulture);
        if (!string.Equals(journal, "wal", StringComparison.OrdinalIgnoreCase))
        {
            throw new InvalidDataException($"SQLite could not switch it to WAL journal mode (it stayed '{journal}')");
        }
    }

    /// <summary>Closing the pooled connections checkpoints the WAL into the file.</summary>
    private protected override void Close()
    {
        using var connection = new SqliteConnection(_connectionString);
        SqliteConnection.ClearPool(connection);
    }

    private static string Settings(SqliteConnectionStringBuilder builder, TimeSpan writeWait)
    {
        builder.Mode = SqliteOpenMode.ReadWriteCreate;
        builder.Pooling = true;
        // Microsoft.Data.Sqlite retries a busy command until this many seconds on top of SQLite's own busy wait
        // (30 s by default, which made a locked history hold a request 30.7 s); one bound for both.
        builder.DefaultTimeout = Seconds(writeWait);
        return builder.ToString();
    }

    private static int Milliseconds(TimeSpan wait) => (int)Math.Ceiling(wait.TotalMilliseconds);

    private static int Seconds(TimeSpan wait) => Math.Max(1, (int)Math.Ceiling(wait.TotalSeconds));
}
