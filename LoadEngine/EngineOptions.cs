namespace LoadEngine;

/// <summary>What the engine needs from its host (the gateway's configuration, or the CLI's options).</summary>
public sealed class EngineOptions
{
    /// <summary>The one service address every channel calls; nothing a request says can point a channel elsewhere.</summary>
    public Uri ServerUri { get; set; } = new("http://127.0.0.1:5000");

    /// <summary>How every channel connects to <see cref="ServerUri"/>: TLS trust, client certificate, :authority, metadata, compression.</summary>
    public Clients.TargetConnection Connection { get; set; } = new();

    /// <summary>A dead address fails within this instead of the operating system's own timeout.</summary>
    public TimeSpan ConnectTimeout { get; set; } = TimeSpan.FromSeconds(3);

    /// <summary>Deadline of each call, and the longest a stream with unanswered messages may stay silent.</summary>
    public TimeSpan CallTimeout { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>
    /// The longest a run waits while calls (or stream messages) are in flight and none ends, answered or failed, before it
    /// gives up on the service as hung and fails; a plan's requested delay, and a workload call's many service calls, extend it.
    /// </summary>
    public TimeSpan SilenceTimeout { get; set; } = TimeSpan.FromSeconds(5);

    /// <summary>
    /// How long, after a run's calls have succeeded, calls whose connections time out or are reset may go on with none
    /// succeeding before the service counts as gone. Longer than the silence window: a connection storm overflows the
    /// service's accept queue, and on a 2-core machine measured 5–14 s without a success while the service kept answering.
    /// A refused connection (nothing listens) ends the run after the silence window.
    /// </summary>
    public TimeSpan ConnectFailureWindow { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>Calls in a row that may miss their deadline before the run gives up on the service and fails (0: never).</summary>
    public int MaxConsecutiveTimeouts { get; set; } = 10;

    /// <summary>
    /// Most calls (or unanswered stream messages) in flight at once in one run. Under an arrival rate a call that is due
    /// while this many are in flight is dropped, and counted as dropped.
    /// </summary>
    public int MaxInFlight { get; set; } = 10_000;

    /// <summary>The service's cleartext HTTP/1.1 listener (REST over HTTP/1.1); null when none is configured.</summary>
    public Uri? Http1Uri { get; set; }

    /// <summary>The service's TLS listener (HTTP/1.1 and HTTP/2 by ALPN); null when none is configured.</summary>
    public Uri? TlsUri { get; set; }

    /// <summary>The service's certificate (PEM): the only one a TLS contender trusts.</summary>
    public string? TrustedCertificatePath { get; set; }

    /// <summary>What the host calls those settings, so a sentence about a missing one names it as the user sets it.</summary>
    public Protocols.ListenerSettingNames SettingNames { get; set; } = Protocols.ListenerSettingNames.Gateway;

    /// <summary>
    /// Whether <paramref name="text"/> can be <see cref="ServerUri"/>: an absolute http:// or https:// address with no path
    /// or query (a gRPC method's path is the client's to add). The gateway's ServerUrl and the CLI's --target both obey it.
    /// </summary>
    public static bool TryServiceAddress(string? text, out Uri address)
    {
        address = null!;
        if (!Uri.TryCreate(text, UriKind.Absolute, out var uri) || (uri.Scheme != Uri.UriSchemeHttp && uri.Scheme != Uri.UriSchemeHttps)
            || uri.AbsolutePath != "/" || !string.IsNullOrEmpty(uri.Query))
        {
            return false;
        }

        address = uri;
        return true;
    }

    /// <summary>Whether <paramref name="text"/> can be <see cref="Http1Uri"/> (<paramref name="scheme"/> http) or <see cref="TlsUri"/> (https): a service address of that scheme.</summary>
    public static bool TryListenerAddress(string? text, string scheme, out Uri address) =>
        TryServiceAddress(text, out address) && address.Scheme == scheme;
}
