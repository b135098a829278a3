using Grpc.Core;
using LoadEngine.Runs;

namespace LoadEngine.Strategies;

/// <summary>
/// A way of making gRPC calls that one lesson is about: how the channel or client is made, reused or thrown away. It is a
/// recipe: it knows no contract (the target says what is called) and no clock (the engine times and records).
/// </summary>
public interface IChannelStrategy
{
    StrategyInfo Info { get; }

    /// <summary>One sentence on what exactly is measured, shown beside the figures.</summary>
    string DescribeMeasurement();

    /// <summary>What one call is made on; disposing the lease releases what only that call used (a channel made for it).</summary>
    ChannelLease Acquire();
}

/// <summary>The invoker one call is made on, and what it alone owns (a new channel, disposed after the call; null when the channel is kept).</summary>
public readonly struct ChannelLease(CallInvoker invoker, IDisposable? owned = null) : IDisposable
{
    public CallInvoker Invoker { get; } = invoker;

    public void Dispose() => owned?.Dispose();
}

/// <summary>How a strategy's calls reach the service: whole calls, or messages on one bidirectional stream.</summary>
public enum CallShape
{
    /// <summary>Each call is a call of the target's method, timed whole.</summary>
    Calls,

    /// <summary>Every call is a message on one bidirectional stream of a method of the same request and answer types.</summary>
    OneStream,
}

/// <summary>
/// Name and route segment, the group it belongs to, what it does, the lesson, the matching section of Microsoft's
/// guide, the load it runs under when a request names none (the chapter's way of running it), and its calls' shape.
/// </summary>
public sealed record StrategyInfo(string Name, string Group, string Summary, string Lesson, string Link, LoadKind DefaultLoad, CallShape Shape = CallShape.Calls)
{
    public string Route => $"/{Group}/{Name}/{{count}}";
}
