using ApiGateway.Clients;

namespace ApiGateway.Strategies;

/// <summary>Concurrent calls on a channel that may open more HTTP/2 connections when one is full, with keep-alive pings.</summary>
public sealed class MultipleConnectionsStrategy(MonitorChannelFactory channels) : ConcurrentUnaryStrategy(channels.CreateChannel(ManyConnections(channels))), IDescribedStrategy
{
    public static StrategyInfo Info { get; } = new(
        "multiple-connections",
        "Concurrency",
        "count concurrent unary calls with EnableMultipleHttp2Connections = true and keep-alive pings (delay 60 s, timeout 30 s, no idle timeout).",
        "When one connection's ~100 streams are busy, the client opens another instead of queueing; pings keep idle connections ready.",
        "https://learn.microsoft.com/aspnet/core/grpc/performance#connection-concurrency");

    public override string DescribeMeasurement() => "All calls at once on one long-lived channel that may open more HTTP/2 connections; keep-alive pings on.";

    private static SocketsHttpHandler ManyConnections(MonitorChannelFactory channels)
    {
        var handler = channels.CreateHandler();
        handler.EnableMultipleHttp2Connections = true;
        handler.KeepAlivePingDelay = TimeSpan.FromSeconds(60);
        handler.KeepAlivePingTimeout = TimeSpan.FromSeconds(30);
        handler.PooledConnectionIdleTimeout = Timeout.InfiniteTimeSpan;
        return handler;
    }
}
