using Grpc.Core;
using Grpc.Net.Client;
using LoadEngine.Clients;
using LoadEngine.Runs;

namespace LoadEngine.Strategies;

/// <summary>
/// Calls on one long-lived channel whose handler decides how many HTTP/2 connections it may use: the chapter's
/// single-connection and multiple-connections strategies are this one recipe with two handler settings.
/// </summary>
public sealed class SharedChannelStrategy : IChannelStrategy, IDisposable
{
    public static StrategyInfo SingleConnection { get; } = new(
        "single-connection",
        "Concurrency",
        "count concurrent unary calls over one HTTP/2 connection (EnableMultipleHttp2Connections = false).",
        "One HTTP/2 connection carries about 100 concurrent streams (Kestrel's default limit); calls past that wait in a queue.",
        "https://learn.microsoft.com/aspnet/core/grpc/performance#connection-concurrency",
        LoadKind.Closed);

    public static StrategyInfo MultipleConnections { get; } = new(
        "multiple-connections",
        "Concurrency",
        "count concurrent unary calls with EnableMultipleHttp2Connections = true and keep-alive pings (delay 60 s, timeout 30 s, no idle timeout).",
        "When one connection's ~100 streams are busy, the client opens another instead of queueing; pings keep idle connections ready.",
        "https://learn.microsoft.com/aspnet/core/grpc/performance#connection-concurrency",
        LoadKind.Closed);

    private readonly GrpcChannel _channel;
    private readonly CallInvoker _invoker;
    private readonly string _measured;

    private SharedChannelStrategy(StrategyInfo info, ChannelFactory channels, GrpcChannel channel, string measured)
    {
        Info = info;
        _channel = channel;
        _invoker = channels.CreateInvoker(channel);
        _measured = measured;
    }

    public StrategyInfo Info { get; }

    // GrpcChannel turns multiple connections on by default, so "single" has to be said explicitly.
    public static SharedChannelStrategy OneConnection(ChannelFactory channels) => new(
        SingleConnection, channels, channels.CreateChannel(channels.CreateHandler(multipleConnections: false)),
        "One long-lived channel limited to a single HTTP/2 connection (EnableMultipleHttp2Connections = false).");

    public static SharedChannelStrategy ManyConnections(ChannelFactory channels)
    {
        var handler = channels.CreateHandler(multipleConnections: true);
        handler.KeepAlivePingDelay = TimeSpan.FromSeconds(60);
        handler.KeepAlivePingTimeout = TimeSpan.FromSeconds(30);
        return new(MultipleConnections, channels, channels.CreateChannel(handler),
            "One long-lived channel that may open more HTTP/2 connections when one is full (EnableMultipleHttp2Connections = true); keep-alive pings on.");
    }

    public string DescribeMeasurement() => _measured;

    public ChannelLease Acquire() => new(_invoker);

    public void Dispose() => _channel.Dispose();
}
