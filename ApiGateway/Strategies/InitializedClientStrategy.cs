using ApiGateway.Clients;
using Grpc.Core;
using Performance;

namespace ApiGateway.Strategies;

/// <summary>Sequential calls, each on a brand-new channel (so a new TCP connection and HTTP/2 handshake) disposed after the call.</summary>
public sealed class InitializedClientStrategy(MonitorChannelFactory channels) : SequentialUnaryStrategy, IDescribedStrategy
{
    public static StrategyInfo Info { get; } = new(
        "initialized-client",
        "Performance",
        "count sequential unary calls, each on a brand-new channel that is disposed after the call.",
        "A new channel per call pays a new connection and HTTP/2 handshake every time: this is what not reusing the channel costs.",
        "https://learn.microsoft.com/aspnet/core/grpc/performance#reuse-grpc-channels");

    public override string DescribeMeasurement() => "GrpcChannel.ForAddress with a new SocketsHttpHandler for every call, disposed after it: a new connection each time.";

    protected override async Task<PerformanceStatusResponse> CallAsync(PerformanceStatusRequest request, CallOptions options)
    {
        using var channel = channels.CreateChannel(channels.CreateHandler());
        return await new Monitor.MonitorClient(channel).GetPerformanceAsync(request, options);
    }
}
