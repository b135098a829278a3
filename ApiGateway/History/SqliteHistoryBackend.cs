using Microsoft.Data.Sqlite;

namespace ApiGateway.History;

/// <summary>
/// The history in one SQLite file beside the gateway: its folder is made at start, and /health checks that the file is
/// still there (SQLite goes on writing to a deleted file, and all of it is gone at the next start) and that its write lock can be taken.
/// </summary>
public sealed class SqliteHistoryBackend(RunStore sqlite) : IHistoryBackend
{
    private const string Key = $"{HistoryOptions.Section}:{nameof(HistoryOptions.DatabasePath)}";

    public IRunStore Store => sqlite;

    public string Location => sqlite.Database.Location;

    public string Setting => $"{Key} '{sqlite.Database.Location}'";

    public string StartRemedy => $"Point {Key} at a writable file.";

    public string WriteRemedy => $"Check that {Key} points at a writable file with free space that no other process holds locked, then try again.";

    public async Task InitializeAsync()
    {
        CreateFolderOf(sqlite.Database.Location);
        await sqlite.InitializeAsync();
    }

    public async Task<string?> ProbeAsync(TimeSpan wait, CancellationToken cancellationToken)
    {
        var path = sqlite.Database.Location;
        if (!File.Exists(path))
        {
            return $"The history file {path} is gone (its file or folder was deleted while the gateway ran): what is stored now is lost when " +
                "the gateway stops. Restart the gateway to create it again.";
        }

        try
        {
            await sqlite.Database.ProbeAsync(wait, cancellationToken);
            return null;
        }
        catch (Exception refused) when (refused is SqliteException or IOException or UnauthorizedAccessException)
        {
            return $"The history {path} cannot be written: {refused.Message}";
        }
    }

    private static void CreateFolderOf(string databasePath)
    {
        try
        {
            Directory.CreateDirectory(Path.GetDirectoryName(databasePath) ?? databasePath);
        }
        catch (IOException cannot)
        {
            // .NET's own message ("The file '/x' already exists") does not say it was about the folder.
            throw new IOException($"its folder cannot be created ({cannot.Message.TrimEnd('.')})", cannot);
        }
    }
}
