using Microsoft.AspNetCore.Server.Kestrel.Core;

namespace PerformanceService.Listeners;

/// <summary>The service's kinds of listener, each with the line it is announced by.</summary>
public enum ListenerKind
{
    H2c,
    Http1,
    Tls,
    Metrics,
}

/// <summary>
/// What Kestrel was told to bind, kept so the real addresses (the ports the system gave for port 0) can be announced
/// once Kestrel has bound them (its own "Now listening on:" lines come first): one line per listener, saying what it speaks.
/// </summary>
public sealed partial class ServiceListeners
{
    private readonly List<(ListenerKind Kind, ListenAddress Address, ListenOptions Listen)> _bound = [];
    private readonly ILogger<ServiceListeners> _logger;

    // Kestrel asks for this while it reads its options, before the app has started.
    public ServiceListeners(ILogger<ServiceListeners> logger, IHostApplicationLifetime lifetime)
    {
        _logger = logger;
        lifetime.ApplicationStarted.Register(Announce);
    }

    public void Add(ListenerKind kind, ListenAddress address, ListenOptions listen)
    {
        lock (_bound)
        {
            _bound.Add((kind, address, listen));
        }
    }

    private void Announce()
    {
        lock (_bound)
        {
            foreach (var (kind, address, listen) in _bound)
            {
                ListeningFor(_logger, Describe(kind), address.Bound(listen));
            }
        }
    }

    private static string Describe(ListenerKind kind) => kind switch
    {
        ListenerKind.H2c => "h2c (gRPC and REST over prior-knowledge HTTP/2)",
        ListenerKind.Http1 => "HTTP/1.1 (REST)",
        ListenerKind.Tls => "TLS (HTTP/1.1 and HTTP/2 by ALPN)",
        ListenerKind.Metrics => "metrics (Prometheus /metrics and /health over HTTP/1.1)",
        _ => throw new ArgumentOutOfRangeException(nameof(kind), kind, null),
    };

    [LoggerMessage(Level = LogLevel.Information, Message = "Listening for {Listener} on {Address}")]
    private static partial void ListeningFor(ILogger logger, string listener, string address);
}
