using ApiGateway.Clients;

namespace ApiGateway.Strategies;

/// <summary>Concurrent calls over exactly one HTTP/2 connection: past the server's stream limit, calls queue.</summary>
public sealed class SingleConnectionStrategy(MonitorChannelFactory channels) : ConcurrentUnaryStrategy(channels.CreateChannel(OneConnection(channels))), IDescribedStrategy
{
    public static StrategyInfo Info { get; } = new(
        "single-connection",
        "Concurrency",
        "count concurrent unary calls over one HTTP/2 connection (EnableMultipleHttp2Connections = false).",
        "One HTTP/2 connection carries about 100 concurrent streams (Kestrel's default limit); calls past that wait in a queue.",
        "https://learn.microsoft.com/aspnet/core/grpc/performance#connection-concurrency");

    public override string DescribeMeasurement() => "All calls at once on one long-lived channel limited to a single HTTP/2 connection.";

    // GrpcChannel turns multiple connections on by default, so "single" has to be said explicitly.
    private static SocketsHttpHandler OneConnection(MonitorChannelFactory channels)
    {
        var handler = channels.CreateHandler();
        handler.EnableMultipleHttp2Connections = false;
        return handler;
    }
}
