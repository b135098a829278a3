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
/// once Kestrel has bound them: one line per listener, saying what it speaks.
/// </summary>
public sealed partial class ServiceListeners(ILogger<ServiceListeners> logger)
{
    private readonly List<(ListenerKind Kind, ListenAddress Address, ListenOptions Listen)> _bound = [];

    public static string Describe(ListenerKind kind) => kind switch
    {
        ListenerKind.H2c => "h2c (gRPC and REST over prior-knowledge HTTP/2)",
        ListenerKind.Http1 => "HTTP/1.1 (REST)",
        ListenerKind.Tls => "TLS (HTTP/1.1 and HTTP/2 by ALPN)",
        ListenerKind.Metrics => "metrics (Prometheus /metrics and /health over HTTP/1.1)",
        _ => throw new ArgumentOutOfRangeException(nameof(kind), kind, null),
    };

    public void Add(ListenerKind kind, ListenAddress address, ListenOptions listen)
    {
        lock (_bound)
        {
            _bound.Add((kind, address, listen));
        }
    }

    /// <summary>Whether <paramref name="listen"/> is the metrics listener's endpoint.</summary>
    public bool IsMetrics(ListenOptions listen)
    {
        lock (_bound)
        {
            return _bound.Exists(listener => listener.Kind == ListenerKind.Metrics && ReferenceEquals(listener.Listen, listen));
        }
    }

    /// <summary>The addresses as bound, in the order they were bound.</summary>
    public IReadOnlyList<(ListenerKind Kind, string Url)> Bound()
    {
        lock (_bound)
        {
            return [.. _bound.Select(listener => (listener.Kind, listener.Address.Bound(listener.Listen)))];
        }
    }

    public void Announce()
    {
        foreach (var (kind, url) in Bound())
        {
            ListeningFor(logger, Describe(kind), url);
        }
    }

    [LoggerMessage(Level = LogLevel.Information, Message = "Listening for {Listener} on {Address}")]
    private static partial void ListeningFor(ILogger logger, string listener, string address);
}

/// <summary>Announces the listeners once the server has bound them (Kestrel's own "Now listening on:" lines come first).</summary>
public sealed class ListenerAnnouncer(ServiceListeners listeners, IHostApplicationLifetime lifetime) : IHostedService
{
    public Task StartAsync(CancellationToken cancellationToken)
    {
        lifetime.ApplicationStarted.Register(listeners.Announce);
        return Task.CompletedTask;
    }

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
}
