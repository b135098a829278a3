using System.ComponentModel.DataAnnotations;

namespace ApiGateway.History;

/// <summary>Where the run history lives. Section <c>History</c>.</summary>
public sealed class HistoryOptions
{
    public const string Section = "History";

    /// <summary>The SQLite file; a relative path is relative to the app's content root.</summary>
    [Required(ErrorMessage = "History:DatabasePath is required: the SQLite file that keeps the run history, e.g. data/history.db.")]
    public string DatabasePath { get; set; } = "data/history.db";

    public string GetFullPath(string contentRootPath) => Path.GetFullPath(DatabasePath, contentRootPath);
}
