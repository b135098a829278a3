using ApiGateway.Clients;
using Grpc.Core;
using Performance;

namespace ApiGateway.Strategies;

/// <summary>Sequential calls through one channel kept for the app's life, with a new client object per call.</summary>
public sealed class ClientWrapperStrategy(MonitorClientWrapper wrapper) : SequentialUnaryStrategy, IDescribedStrategy
{
    public static StrategyInfo Info { get; } = new(
        "client-wrapper",
        "Performance",
        "count sequential unary calls through a wrapper that keeps one channel for the app's life and makes a new client per call.",
        "Reuse the channel: it holds the HTTP/2 connection. A client object is cheap, so making one per call costs nothing.",
        "https://learn.microsoft.com/aspnet/core/grpc/performance#reuse-grpc-channels");

    public override string DescribeMeasurement() => "One long-lived channel (its connection already open after the first run); a new client object per call.";

    protected override Task<PerformanceStatusResponse> CallAsync(PerformanceStatusRequest request, CallOptions options) =>
        wrapper.CreateClient().GetPerformanceAsync(request, options).ResponseAsync;
}
