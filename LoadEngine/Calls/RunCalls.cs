using Grpc.Core;
using LoadEngine.Runs;
using LoadEngine.Strategies;

namespace LoadEngine.Calls;

/// <summary>
/// What one run calls, as the engine sees it: made from a strategy (how channels and clients are made) and a target (the
/// method, where its requests come from, what its answers must be), or from a workload's contender. The engine knows no
/// contract: it asks for a call, or a stream of messages, and times and records what happens (NBomber's step, which
/// returns a Response the engine never looks into).
/// </summary>
public interface IRunCalls : IDisposable
{
    StrategyInfo Info { get; }

    /// <summary>One sentence on what exactly is measured, shown beside the figures.</summary>
    string DescribeMeasurement();

    /// <summary>Where the run keeps each answer when its plan asks for them (the chapter routes'); null when it keeps none.</summary>
    IAnswerSpool? KeepAnswers(RunPlan plan) => null;

    // A strategy's calls own nothing: its channel outlives the run, and a channel made for one call goes with that call.
    void IDisposable.Dispose()
    {
    }
}

/// <summary>Runs whose calls are whole calls of any kind: each is timed from its start (or when it was due) to its end.</summary>
public interface ICallSource : IRunCalls
{
    /// <summary>
    /// One call, made the way this run makes calls. A call that does not succeed throws: an <see cref="RpcException"/> from
    /// gRPC, or a <see cref="CallFailedException"/> (a wrong answer, a REST failure), counted under its status.
    /// </summary>
    Task CallAsync(CallContext context);

    /// <summary>Service calls one call makes (a bulk read's pages): its deadline and silence window are that many of the engine's.</summary>
    int ServiceCallsPerCall => 1;
}

/// <summary>Runs whose calls are messages on one bidirectional stream, each timed from its write to its answer.</summary>
public interface IStreamSource : IRunCalls
{
    /// <summary>Opens the stream; disposing it aborts the call.</summary>
    IMessageStream Open(StreamContext context);
}

/// <summary>One bidirectional stream: request messages by index, answers in order.</summary>
public interface IMessageStream : IDisposable
{
    /// <summary>Writes the request message of call <paramref name="index"/>.</summary>
    Task WriteAsync(long index);

    /// <summary>Says that no more messages will be written.</summary>
    Task CompleteAsync();

    /// <summary>Waits for the next answer; false when the stream has ended.</summary>
    Task<bool> MoveNextAsync(CancellationToken cancellation);

    /// <summary>
    /// Checks the answer <see cref="MoveNextAsync"/> gave as the answer to call <paramref name="index"/> (the oldest
    /// unanswered message); throws a <see cref="CallFailedException"/> when it is not what that message asked for.
    /// </summary>
    void CheckAnswer(long index);
}

/// <summary>A run that measures what its calls put on the wire, and which of the service's counters they land in.</summary>
public interface IWireMeasured
{
    Protocols.WireCounter Wire { get; }

    /// <summary>Which of the service's request counters its calls land in (GET /diagnostics, "protocols").</summary>
    string ServiceApi { get; }
}

/// <summary>Where a run keeps the answers a caller asked for; disposing it deletes them.</summary>
public interface IAnswerSpool : IDisposable;

/// <summary>One call as the engine starts it: which call of the phase, its deadline and cancellation, and where its observations go.</summary>
public readonly record struct CallContext(long Index, RunPhase Phase, CallOptions Options, RunObservations Observations);

/// <summary>A stream as the engine opens it: its cancellation, and where its answers' observations go.</summary>
public readonly record struct StreamContext(RunPhase Phase, CallOptions Options, RunObservations Observations);
