using LoadEngine.Clients;
using LoadEngine.Runs;

namespace LoadEngine.Strategies;

/// <summary>Each call on a brand-new channel (so a new TCP connection and HTTP/2 handshake), disposed after the call.</summary>
public sealed class ChannelPerCallStrategy(ChannelFactory channels) : IChannelStrategy
{
    public static StrategyInfo Definition { get; } = new(
        "initialized-client",
        "Performance",
        "count sequential unary calls, each on a brand-new channel that is disposed after the call.",
        "A new channel per call pays a new connection and HTTP/2 handshake every time: this is what not reusing the channel costs.",
        "https://learn.microsoft.com/aspnet/core/grpc/performance#reuse-grpc-channels",
        LoadKind.Sequential);

    public StrategyInfo Info => Definition;

    public string DescribeMeasurement() => "GrpcChannel.ForAddress with a new SocketsHttpHandler for every call, disposed after it: a new connection each time.";

    public ChannelLease Acquire()
    {
        var channel = channels.CreateChannel(channels.CreateHandler());
        return new(channels.CreateInvoker(channel), channel);
    }
}
