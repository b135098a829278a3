namespace ApiGateway.Runs;

/// <summary>A run or suite in progress: its cancellation carries why it was stopped, so the record can say so.</summary>
public abstract class ActiveWork(CancellationToken stopping) : IDisposable
{
    private readonly CancellationTokenSource _cancellation = CancellationTokenSource.CreateLinkedTokenSource(stopping);
    private (RunState State, string Reason)? _stop;

    public CancellationToken Cancellation => _cancellation.Token;

    public (RunState State, string Reason)? StopReason => _stop;

    /// <summary>The first reason wins: a run the caller left is not later reported as timed out.</summary>
    public void Stop(RunState state, string reason)
    {
        lock (_cancellation)
        {
            _stop ??= (state, reason);
        }

        _cancellation.Cancel();
    }

    public void Dispose() => _cancellation.Dispose();
}

public sealed class ActiveRun(RunRecord record, CancellationToken stopping) : ActiveWork(stopping)
{
    public RunRecord Record { get; } = record;

    public Guid Id => Record.Id;

    public RunProgress Progress { get; } = new();

    public Task<RunResult> Completion { get; internal set; } = null!;
}

public sealed class ActiveSuite(SuiteRecord record, CancellationToken stopping) : ActiveWork(stopping)
{
    public SuiteRecord Record { get; } = record;

    public ActiveRun? Current { get; internal set; }

    public Task<SuiteRecord> Completion { get; internal set; } = null!;
}

/// <summary>A finished run as stored, and what only its immediate caller gets: the per-call statuses.</summary>
public sealed record RunResult(RunRecord Record, IReadOnlyList<PerformanceStatus> Statuses, string Measured, Grpc.Core.StatusCode? MostCommonError);

/// <summary>More runs were started than Runs:MaxRunsInFlight allows.</summary>
public sealed class TooManyRunsException(int limit, int retryAfterSeconds)
    : Exception($"{limit} run(s) are already in flight, the most Runs:MaxRunsInFlight allows.")
{
    public int Limit { get; } = limit;

    public int RetryAfterSeconds { get; } = retryAfterSeconds;
}

/// <summary>A run or suite ended but could not be written to the history.</summary>
public sealed class HistoryWriteException(string what, Exception inner)
    : Exception($"{what} finished but could not be stored in the history: {inner.Message}", inner);
