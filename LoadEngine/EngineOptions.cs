namespace LoadEngine;

/// <summary>What the engine needs from its host (the gateway's configuration, or the CLI's options).</summary>
public sealed class EngineOptions
{
    /// <summary>The one service address every channel calls; nothing a request says can point a channel elsewhere.</summary>
    public Uri ServerUri { get; set; } = new("http://127.0.0.1:5000");

    /// <summary>A dead address fails within this instead of the operating system's own timeout.</summary>
    public TimeSpan ConnectTimeout { get; set; } = TimeSpan.FromSeconds(3);

    /// <summary>Deadline of each call, and the longest a stream with unanswered messages may stay silent.</summary>
    public TimeSpan CallTimeout { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>
    /// Most calls (or unanswered stream messages) in flight at once in one run. Under an arrival rate a call that is due
    /// while this many are in flight is dropped, and counted as dropped.
    /// </summary>
    public int MaxInFlight { get; set; } = 10_000;
}
