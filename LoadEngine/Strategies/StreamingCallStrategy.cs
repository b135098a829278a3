using LoadEngine.Clients;
using LoadEngine.Runs;

namespace LoadEngine.Strategies;

/// <summary>One bidirectional stream on the wrapper's long-lived channel carries every request and every response; writing and reading overlap.</summary>
public sealed class StreamingCallStrategy(ClientWrapper wrapper) : IChannelStrategy
{
    public static StrategyInfo Definition { get; } = new(
        "streaming-call",
        "Performance",
        "one bidirectional stream carrying count requests and count responses.",
        "For many messages, one long-lived stream beats many unary calls: no per-call headers, no new HTTP/2 stream per message.",
        "https://learn.microsoft.com/aspnet/core/grpc/performance#streaming",
        LoadKind.Closed,
        CallShape.OneStream);

    public StrategyInfo Info => Definition;

    public string DescribeMeasurement() =>
        "One bidirectional stream on the long-lived channel. Each request is written with WriteAsync, which Grpc.Net.Client flushes at once " +
        "(it ignores WriteOptions.BufferHint), while the responses are read as they come; the service writes each answer as soon as it is made. " +
        "A message's latency runs from its write (or, under an arrival rate, from when it was due) to its answer, so it includes the wait behind messages written before it.";

    public ChannelLease Acquire() => new(wrapper.CreateInvoker());
}
