using Grpc.Core;
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
/// Name and route segment, the group it belongs to, what it does, the lesson, the matching section of Microsoft's
/// guide, and the load it runs under when a request names none (the chapter's way of running it).
/// </summary>
public sealed record StrategyInfo(string Name, string Group, string Summary, string Lesson, string Link, LoadKind DefaultLoad)
{
    public string Route => $"/{Group}/{Name}/{{count}}";
}
