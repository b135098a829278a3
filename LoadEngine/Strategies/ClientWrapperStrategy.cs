using LoadEngine.Clients;
using LoadEngine.Runs;

namespace LoadEngine.Strategies;

/// <summary>Calls through one channel kept for the app's life, with a new client (a call invoker) per call.</summary>
public sealed class ClientWrapperStrategy(ClientWrapper wrapper) : IChannelStrategy
{
    public static StrategyInfo Definition { get; } = new(
        "client-wrapper",
        "Performance",
        "count sequential unary calls through a wrapper that keeps one channel for the app's life and makes a new client per call.",
        "Reuse the channel: it holds the HTTP/2 connection. A client object is cheap, so making one per call costs nothing.",
        "https://learn.microsoft.com/aspnet/core/grpc/performance#reuse-grpc-channels",
        LoadKind.Sequential);

    public StrategyInfo Info => Definition;

    public string DescribeMeasurement() => "One long-lived channel (its connection already open after the first run); a new client object per call.";

    // What a generated client's constructor does with a channel: a new invoker on it.
    public ChannelLease Acquire() => new(wrapper.CreateInvoker());
}
