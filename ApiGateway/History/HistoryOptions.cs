using System.ComponentModel.DataAnnotations;

namespace ApiGateway.History;

/// <summary>Where the run history lives. Section <c>History</c>.</summary>
public sealed class HistoryOptions
{
    public const string Section = "History";

    /// <summary>The SQLite file; a relative path is relative to the app's content root.</summary>
    [Required(ErrorMessage = "History:DatabasePath is required: the SQLite file that keeps the run history, e.g. data/history.db.")]
    public string DatabasePath { get; set; } = "data/history.db";

    /// <summary>
    /// How long one write waits for a lock another process holds. A run that cannot be stored as started is refused after
    /// this; a run that ended keeps its record in memory and its write is retried in the background.
    /// </summary>
    [Range(0.1, 60, ErrorMessage = "History:WriteWaitSeconds must be between 0.1 and 60: how long one history write waits for a lock another process holds.")]
    public double WriteWaitSeconds { get; set; } = 3;

    public string GetFullPath(string contentRootPath) => Path.GetFullPath(DatabasePath, contentRootPath);
}
