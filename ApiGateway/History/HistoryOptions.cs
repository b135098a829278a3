using System.ComponentModel.DataAnnotations;
using Npgsql;

namespace ApiGateway.History;

/// <summary>Where the run history lives. Section <c>History</c>, and for PostgreSQL the connection string <c>ConnectionStrings:History</c>.</summary>
public sealed class HistoryOptions : IValidatableObject
{
    public const string Section = "History";

    /// <summary>The standard ASP.NET Core place for it (env <c>ConnectionStrings__History</c>), so hosting tools that set connection strings find it.</summary>
    public const string ConnectionStringName = "History";

    public const string ConnectionStringKey = "ConnectionStrings:" + ConnectionStringName;

    /// <summary>
    /// <c>Sqlite</c> (one file beside the gateway) or <c>Postgres</c> (one database several gateways share). Text, not the enum,
    /// so that an unknown value is reported naming the values allowed; <see cref="Kind"/> is the parsed value.
    /// </summary>
    public string Provider { get; set; } = nameof(HistoryProvider.Sqlite);

    /// <summary>The SQLite file; a relative path is relative to the app's content root.</summary>
    [Required(ErrorMessage = "History:DatabasePath is required: the SQLite file that keeps the run history, e.g. data/history.db.")]
    public string DatabasePath { get; set; } = "data/history.db";

    /// <summary>
    /// How long one write waits for a lock another process holds. A run that cannot be stored as started is refused after
    /// this; a run that ended keeps its record in memory and its write is retried in the background.
    /// </summary>
    [Range(0.1, 60, ErrorMessage = "History:WriteWaitSeconds must be between 0.1 and 60: how long one history write waits for a lock another process holds.")]
    public double WriteWaitSeconds { get; set; } = 3;

    /// <summary>The PostgreSQL connection string, from <c>ConnectionStrings:History</c>; the binder leaves it alone (its setter is not public).</summary>
    public string? ConnectionString { get; internal set; }

    public HistoryProvider Kind =>
        Enum.GetValues<HistoryProvider>().FirstOrDefault(kind => string.Equals(kind.ToString(), Provider, StringComparison.OrdinalIgnoreCase));

    public IEnumerable<ValidationResult> Validate(ValidationContext validationContext)
    {
        // Enum.TryParse would take "1" or "Sqlite, Postgres"; only the names are allowed.
        if (!Enum.GetNames<HistoryProvider>().Contains(Provider, StringComparer.OrdinalIgnoreCase))
        {
            yield return new ValidationResult(
                $"History:Provider must be {string.Join(" or ", Enum.GetNames<HistoryProvider>())}; it was '{Provider}'.", [nameof(Provider)]);
        }
        else if (Kind == HistoryProvider.Postgres && PostgresProblem(ConnectionString) is { } problem)
        {
            yield return new ValidationResult(problem, [nameof(ConnectionString)]);
        }
    }

    // Npgsql's own parse errors name the keyword, never a value, so they cannot show a password.
    private static string? PostgresProblem(string? connectionString)
    {
        if (string.IsNullOrWhiteSpace(connectionString))
        {
            return $"{ConnectionStringKey} is required with History:Provider Postgres: the PostgreSQL connection string, e.g. " +
                "Host=db;Database=history;Username=gateway;Password=… (env ConnectionStrings__History).";
        }

        try
        {
            return string.IsNullOrWhiteSpace(new NpgsqlConnectionStringBuilder(connectionString).Host)
                ? $"{ConnectionStringKey} names no Host: the PostgreSQL server that keeps the run history."
                : null;
        }
        catch (ArgumentException unreadable)
        {
            return $"{ConnectionStringKey} is not a PostgreSQL connection string: {unreadable.Message}";
        }
    }
}

public enum HistoryProvider
{
    Sqlite,
    Postgres,
}
