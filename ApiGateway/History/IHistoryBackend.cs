namespace ApiGateway.History;

/// <summary>
/// The store behind the run history as start-up, GET /health and error answers see it: opened before the gateway listens,
/// probed cheaply, and named in words a user can act on (the setting that chose it, never a password).
/// </summary>
public interface IHistoryBackend
{
    /// <summary>The runs, suites and experiments it keeps.</summary>
    IRunStore Store { get; }

    /// <summary>Where the history is, for sentences: the SQLite file's path, or the PostgreSQL database and its server.</summary>
    string Location { get; }

    /// <summary>The setting that points at it, with its value as far as it is safe to show.</summary>
    string Setting { get; }

    /// <summary>What to do when it cannot be opened at start: one sentence naming the setting.</summary>
    string StartRemedy { get; }

    /// <summary>What to check when a write is refused: one sentence naming the setting.</summary>
    string WriteRemedy { get; }

    /// <summary>Creates or migrates the schema and proves it can be written; throws the driver's exception (a DbException) or an IOException when it cannot.</summary>
    Task InitializeAsync();

    /// <summary>Why the history cannot take writes now (within <paramref name="wait"/>), or null when it can.</summary>
    Task<string?> ProbeAsync(TimeSpan wait, CancellationToken cancellationToken);
}
