using HistoryStore;
using Microsoft.Data.Sqlite;
using Npgsql;

namespace ApiGateway.History;

/// <summary>
/// The store behind the run history as start-up, GET /health and error answers see it: opened before the gateway listens,
/// probed cheaply, and named in words a user can act on (the setting that chose it, never a password). A SQLite file
/// beside the gateway has its folder made at start, and /health checks that the file is still there (SQLite goes on
/// writing to a deleted file, and all of it is gone at the next start) and that its write lock can be taken; a PostgreSQL
/// database that several gateways share is asked a cheap SELECT 1, and named by its server without its password.
/// </summary>
public sealed class HistoryBackend(RunStore store)
{
    private const string SqliteKey = $"{HistoryOptions.Section}:{nameof(HistoryOptions.DatabasePath)}";

    private HistoryDatabase Database => store.Database;

    /// <summary>Where the history is, for sentences: the SQLite file's path, or the PostgreSQL database and its server.</summary>
    public string Location => Database.Location;

    /// <summary>The setting that points at it, with its value as far as it is safe to show.</summary>
    public string Setting => Database.Pick($"{SqliteKey} '{Location}'", $"{HistoryOptions.ConnectionStringKey} ({Database.Connection})");

    /// <summary>What to do when it cannot be opened at start: one sentence naming the setting.</summary>
    public string StartRemedy => Database.Pick(
        $"Point {SqliteKey} at a writable file.",
        $"Point {HistoryOptions.ConnectionStringKey} at a PostgreSQL server that is up and lets this user create tables in its database (or holds the history's tables already).");

    /// <summary>What to check when a write is refused: one sentence naming the setting.</summary>
    public string WriteRemedy => Database.Pick(
        $"Check that {SqliteKey} points at a writable file with free space that no other process holds locked, then try again.",
        $"Check that the PostgreSQL server of {HistoryOptions.ConnectionStringKey} is up and takes this user's writes, then try again.");

    /// <summary>Creates or migrates the schema and proves it can be written; throws the driver's exception (a DbException) or an IOException when it cannot.</summary>
    public async Task InitializeAsync()
    {
        try
        {
            if (Database.SqliteFile is not null)
            {
                Directory.CreateDirectory(Path.GetDirectoryName(Location) ?? Location);
            }
        }
        catch (IOException cannot)
        {
            // .NET's own message ("The file '/x' already exists") does not say it was about the folder.
            throw new IOException($"its folder cannot be created ({cannot.Message.TrimEnd('.')})", cannot);
        }

        await store.InitializeAsync();
    }

    /// <summary>Why the history cannot take writes now (within <paramref name="wait"/>), or null when it can.</summary>
    public async Task<string?> ProbeAsync(TimeSpan wait, CancellationToken cancellationToken)
    {
        var sqlite = Database.SqliteFile is not null;
        if (sqlite && !File.Exists(Location))
        {
            return $"The history file {Location} is gone (its file or folder was deleted while the gateway ran): what is stored now is lost when " +
                "the gateway stops. Restart the gateway to create it again.";
        }

        try
        {
            await Database.ProbeAsync(wait, cancellationToken);
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
}
