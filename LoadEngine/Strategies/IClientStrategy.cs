using Grpc.Core;
using LoadEngine.Protocols;
using LoadEngine.Runs;
using Performance;

namespace LoadEngine.Strategies;

/// <summary>
/// A way of calling the service that one lesson is about: how the channel or client is made, and what one call is.
/// It is a recipe: the engine owns the loop, the clock and the recording, so no strategy can time itself wrong.
/// </summary>
public interface IClientStrategy
{
    StrategyInfo Info { get; }

    /// <summary>One sentence on what exactly is measured, shown beside the figures.</summary>
    string DescribeMeasurement();
}

/// <summary>A strategy whose calls are unary calls.</summary>
public interface IUnaryStrategy : IClientStrategy
{
    /// <summary>One call, made the way this strategy makes calls. Failures are the RpcException the client throws.</summary>
    Task<PerformanceStatusResponse> CallAsync(PerformanceStatusRequest request, CallOptions options);
}

/// <summary>A strategy whose calls are messages on one bidirectional stream.</summary>
public interface IStreamingStrategy : IClientStrategy
{
    AsyncDuplexStreamingCall<PerformanceStatusRequest, PerformanceStatusResponse> OpenStream(CallOptions options);
}

/// <summary>
/// A strategy whose calls are any async call (a workload's, on one of the service's APIs): the engine loops, times and
/// records them as it does unary calls, and measures what the calls put on the wire.
/// </summary>
public interface IWorkloadStrategy : IClientStrategy
{
    /// <summary>One call; a failure, a wrong answer included, is the RpcException it throws.</summary>
    Task CallAsync(long index, CallOptions options);

    /// <summary>Counts the bytes on every connection this strategy's channels or HttpClients open.</summary>
    WireCounter Wire { get; }

    /// <summary>Which of the service's request counters its calls land in (GET /diagnostics, "protocols").</summary>
    string ServiceApi { get; }

    /// <summary>Service calls one of its calls makes (a bulk read's pages): its deadline is that many call timeouts.</summary>
    int ServiceCallsPerCall { get; }
}

/// <summary>
/// Name and route segment, the group it belongs to, what it does, the lesson, the matching section of Microsoft's
/// guide, and the load it runs under when a request names none (the chapter's way of running it).
/// </summary>
public sealed record StrategyInfo(string Name, string Group, string Summary, string Lesson, string Link, LoadKind DefaultLoad)
{
    public string Route => $"/{Group}/{Name}/{{count}}";
}
