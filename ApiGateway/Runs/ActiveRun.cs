namespace ApiGateway.Runs;

/// <summary>A run or suite in progress: its cancellation carries why it was stopped, so the record can say so.</summary>
public abstract class ActiveWork(CancellationToken stopping) : IDisposable
{
    private readonly CancellationTokenSource _cancellation = CancellationTokenSource.CreateLinkedTokenSource(stopping);

    public CancellationToken Cancellation => _cancellation.Token;

    public (RunState State, string Reason)? StopReason { get; private set; }

    /// <summary>The first reason wins: a run the caller left is not later reported as timed out.</summary>
    public void Stop(RunState state, string reason)
    {
        lock (_cancellation)
        {
            StopReason ??= (state, reason);
        }

        _cancellation.Cancel();
    }

    public void Dispose() => _cancellation.Dispose();
}

public sealed class ActiveRun(RunRecord record, CancellationToken stopping) : ActiveWork(stopping)
{
    public RunRecord Record { get; } = record;

    public Guid Id => Record.Id;

    /// <summary>Progress pushed by the engine, and the answers when the plan kept them.</summary>
    public LiveRun Live { get; } = new();

    /// <summary>The run as stored when it ended.</summary>
    public Task<RunRecord> Completion { get; internal set; } = null!;
}

/// <summary>A suite or experiment: runs one after another (<see cref="RunSequence"/>), the one going now its current run.</summary>
public abstract class ActiveSequence(CancellationToken stopping) : ActiveWork(stopping)
{
    public ActiveRun? Current { get; internal set; }
}

public sealed class ActiveSuite(SuiteRecord record, IReadOnlyList<RunPlan> plans, CancellationToken stopping) : ActiveSequence(stopping), IRunFollower
{
    public SuiteRecord Record { get; } = record;

    /// <summary>Each strategy's plan: the request's settings under that strategy's own load unless the request named one.</summary>
    public IReadOnlyList<RunPlan> Plans { get; } = plans;

    /// <summary>
    /// Events a follower may leave unread, the same as a run's: a run's end is read again from the history when the suite
    /// ends, so a follower that lost it still gets every run before the final.
    /// </summary>
    public const int FollowerCapacity = LiveRun.FollowerCapacity;

    /// <summary>What happens in the suite, pushed to whoever follows it: each run's progress, and each run as it ends.</summary>
    public Broadcast<SuiteEvent> Events { get; } = new(FollowerCapacity);

    public Task<SuiteRecord> Completion { get; internal set; } = null!;

    public async Task FollowAsync(RunRecord run, int position, int of, LiveRun live)
    {
        await foreach (var progress in live.FollowAsync())
        {
            Events.Publish(new SuiteRunProgress(run.Id, run.Plan.Strategy, position, of, progress));
        }
    }

    public void Ended(RunRecord run, int position, int of) => Events.Publish(new SuiteRunEnded(run));
}

/// <summary>Something a suite's followers are told.</summary>
public abstract record SuiteEvent;

/// <summary>Live progress of the suite's current run.</summary>
public sealed record SuiteRunProgress(Guid RunId, string Strategy, int Index, int Of, ProgressSnapshot Progress) : SuiteEvent;

/// <summary>A run of the suite ended, and is stored.</summary>
public sealed record SuiteRunEnded(RunRecord Run) : SuiteEvent;

/// <summary>A run, suite or experiment could not be written to the history as started, so it was not started.</summary>
public sealed class HistoryWriteException(string what, Exception inner)
    : Exception($"{what} was not started: the run history could not be written ({inner.Message.TrimEnd('.')}).", inner);
