using System.Data.Common;
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

    public override T Pick<T>(T sqlite, T postgres) => postgres;

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
