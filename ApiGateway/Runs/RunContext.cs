using System.Diagnostics;
using Grpc.Core;
using Performance;

namespace ApiGateway.Runs;

/// <summary>
/// What a strategy sees of a run: how many calls, how many at once, the requests to send, deadlines to
/// attach, and where outcomes go. Failed calls are counted by status and the run goes on, except when
/// the service is unreachable: then it stops, as no later call can succeed.
/// </summary>
public sealed class RunContext : IDisposable
{
    private readonly CancellationTokenSource _stop;
    private readonly string _clientName;
    private RpcException? _unreachable;

    public RunContext(RunPlan plan, int count, RunRecorder recorder, TimeSpan callTimeout, CancellationToken cancellation)
    {
        Plan = plan;
        Count = count;
        Recorder = recorder;
        CallTimeout = callTimeout;
        _clientName = plan.Strategy + " #";
        _stop = CancellationTokenSource.CreateLinkedTokenSource(cancellation);
    }

    public RunPlan Plan { get; }

    /// <summary>Calls in this phase (the warm-up phase has its own context).</summary>
    public int Count { get; }

    public int Concurrency => Math.Min(Plan.Concurrency, Count);

    public TimeSpan CallTimeout { get; }

    public RunRecorder Recorder { get; }

    /// <summary>Cancelled when the run is cancelled, times out, or the service turned out unreachable.</summary>
    public CancellationToken Cancellation => _stop.Token;

    public bool Stopped => _stop.IsCancellationRequested;

    public RpcException? Unreachable => Volatile.Read(ref _unreachable);

    public PerformanceStatusRequest CreateRequest(int index) => new()
    {
        ClientName = _clientName + (index + 1),
        DelayMs = Plan.DelayMs,
        PayloadBytes = Plan.PayloadBytes,
    };

    public CallOptions CreateCallOptions() => new(deadline: DateTime.UtcNow + CallTimeout, cancellationToken: _stop.Token);

    /// <summary>Sends one unary call and records its outcome; never throws for a failed call.</summary>
    public async Task CallAsync(int index, Func<PerformanceStatusRequest, CallOptions, Task<PerformanceStatusResponse>> call)
    {
        var request = CreateRequest(index);
        var start = Stopwatch.GetTimestamp();
        try
        {
            Recorder.RecordSuccess(index, start, await call(request, CreateCallOptions()));
        }
        catch (RpcException error)
        {
            Fail(error);
        }
    }

    public void Fail(RpcException error)
    {
        // Calls cut short because the run is stopping are not the service's failures.
        if (error.StatusCode == StatusCode.Cancelled && Stopped)
        {
            return;
        }

        Recorder.RecordFailure(error.StatusCode);
        if (error.StatusCode == StatusCode.Unavailable && Interlocked.CompareExchange(ref _unreachable, error, null) is null)
        {
            _stop.Cancel();
        }
    }

    public void Dispose() => _stop.Dispose();
}
