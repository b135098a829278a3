using System.Data.Common;
using System.Globalization;
using Npgsql;

namespace HistoryStore;

/// <summary>
/// The history in one PostgreSQL database that several gateways and agents share, through Npgsql's pooled data source.
/// Saves are upserts, so writers never refuse each other; schema changes take an advisory lock in turn. Ids are uuid,
/// times timestamptz (to the microsecond); records' JSON stays text, exactly as written (jsonb would reorder keys and
/// reformat numbers; cast a column to jsonb to query it).
/// </summary>
internal sealed class PostgresHistoryDatabase : HistoryDatabase
{
    /// <summary>Npgsql waits 15 s for a server that does not answer; a gateway starting against a black-holed host gives up sooner.</summary>
    public const int DefaultConnectTimeoutSeconds = 5;

    public PostgresHistoryDatabase(string connectionString, int? connectTimeoutSeconds)
        : this(Settings(connectionString, connectTimeoutSeconds))
    {
    }

    private PostgresHistoryDatabase(NpgsqlConnectionStringBuilder settings)
        : base(
            NpgsqlDataSource.Create(settings),
            $"PostgreSQL database '{settings.Database ?? settings.Username ?? "postgres"}' on {settings.Host}:{settings.Port}",
            // Rebuilt from the parts that say where, never from the whole string: it may hold a password.
            new NpgsqlConnectionStringBuilder { Host = settings.Host, Port = settings.Port, Database = settings.Database, Username = settings.Username }.ToString())
    {
    }

    public override string IdType => "uuid";

    public override string TimeType => "timestamptz";

    public override string BytesType => "bytea";

    public override string SaveOrder => "saved";

    // Each upsert takes the next value (see Upsert), as SQLite's rowid does after INSERT OR REPLACE.
    public override string SaveOrderColumn => ",\n    saved bigserial NOT NULL";

    public override string SaveOrderIndex => ", saved";

    public override T Pick<T>(T sqlite, T postgres) => postgres;

    public override string Upsert(string table, string columns)
    {
        var names = columns.Split(',', StringSplitOptions.TrimEntries);
        var updates = names.Where(name => name != "id").Append(SaveOrder).Select(name => $"{name} = EXCLUDED.{name}");
        return $"INSERT INTO {table} ({columns}) VALUES ({string.Join(", ", names.Select(name => "@" + name))}) ON CONFLICT (id) DO UPDATE SET {string.Join(", ", updates)};";
    }

    public override string JsonSet(string column, params (string Field, string Parameter)[] fields) =>
        $"({column}::jsonb || jsonb_build_object({string.Join(", ", fields.Select(field => $"'{field.Field}', @{field.Parameter}"))}))::text";

    public override object Id(Guid id) => id;

    public override Guid ReadId(DbDataReader row, int ordinal) => row.GetGuid(ordinal);

    // Npgsql writes a timestamptz from a DateTimeOffset only at offset zero.
    public override object Time(DateTimeOffset time) => time.ToUniversalTime();

    public override DateTimeOffset ReadTime(DbDataReader row, int ordinal) => row.GetFieldValue<DateTimeOffset>(ordinal);

    /// <summary>A cheap SELECT 1 within <paramref name="wait"/>: throws when the server cannot be reached or does not answer.</summary>
    public override async Task ProbeAsync(TimeSpan wait, CancellationToken cancellationToken)
    {
        using var bounded = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        bounded.CancelAfter(wait);
        await using var connection = await OpenAsync(bounded.Token);
        await ScalarAsync(connection, null, "SELECT 1;", bounded.Token);
    }

    // Only created when missing: once the schema is there, a user without CREATE rights on the schema can still start.
    internal override async Task<int> ReadSchemaVersionAsync(DbConnection connection, DbTransaction transaction)
    {
        if (await ScalarAsync(connection, transaction, "SELECT to_regclass('history_schema') IS NOT NULL;") is true)
        {
            return Convert.ToInt32(await ScalarAsync(connection, transaction, "SELECT COALESCE(MAX(version), 0) FROM history_schema;"), CultureInfo.InvariantCulture);
        }

        await NonQueryAsync(connection, transaction, "CREATE TABLE IF NOT EXISTS history_schema (version integer NOT NULL PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());");
        return 0;
    }

    // One row per version the database went through.
    internal override Task WriteSchemaVersionAsync(DbConnection connection, DbTransaction transaction, int from, int to) =>
        NonQueryAsync(connection, transaction, $"INSERT INTO history_schema (version) SELECT generate_series({from + 1}, {to});");

    private protected override string TableExists(string table) => $"to_regclass('{table}') IS NOT NULL";

    // The table as the search path finds it, as every statement does.
    private protected override string ColumnExists(string table, string column) =>
        $"EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('{table}') AND attname = '{column}' AND attnum > 0 AND NOT attisdropped)";

    // Held until the transaction ends: CREATE TABLE IF NOT EXISTS races with itself on PostgreSQL (a duplicate key in pg_type).
    private protected override Task LockSchemaAsync(DbConnection connection, DbTransaction transaction, long lockKey, CancellationToken cancellationToken) =>
        NonQueryAsync(connection, transaction, $"SELECT pg_advisory_xact_lock({lockKey});", cancellationToken);

    private static NpgsqlConnectionStringBuilder Settings(string connectionString, int? connectTimeoutSeconds)
    {
        var settings = new NpgsqlConnectionStringBuilder(connectionString);
        if (connectTimeoutSeconds is { } timeout && !new DbConnectionStringBuilder { ConnectionString = connectionString }.ContainsKey(nameof(settings.Timeout)))
        {
            settings.Timeout = timeout;
        }

        return settings;
    }
}
