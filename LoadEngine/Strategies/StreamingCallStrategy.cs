using Grpc.Core;
using LoadEngine.Runs;
using Performance;

namespace LoadEngine.Strategies;

/// <summary>One bidirectional stream carries every request and every response; writing and reading overlap.</summary>
/// <param name="client">The wrapper's client in the app (see <see cref="StrategyList"/>): the stream runs on the long-lived channel.</param>
public sealed class StreamingCallStrategy(Monitor.MonitorClient client) : IStreamingStrategy
{
    public static StrategyInfo Definition { get; } = new(
        "streaming-call",
        "Performance",
        "one bidirectional stream carrying count requests and count responses.",
        "For many messages, one long-lived stream beats many unary calls: no per-call headers, no new HTTP/2 stream per message.",
        "https://learn.microsoft.com/aspnet/core/grpc/performance#streaming",
        LoadKind.Closed);

    public StrategyInfo Info => Definition;

    public string DescribeMeasurement() =>
        "One bidirectional stream on the long-lived channel. Each request is written with WriteAsync, which Grpc.Net.Client flushes at once " +
        "(it ignores WriteOptions.BufferHint), while the responses are read as they come; the service writes each answer as soon as it is made. " +
        "A message's latency runs from its write (or, under an arrival rate, from when it was due) to its answer, so it includes the wait behind messages written before it.";

    public AsyncDuplexStreamingCall<PerformanceStatusRequest, PerformanceStatusResponse> OpenStream(CallOptions options) =>
        client.GetManyPerformanceStats(options);
}
