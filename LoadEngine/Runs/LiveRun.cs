using System.Runtime.CompilerServices;
using System.Text.Json.Serialization;

namespace LoadEngine.Runs;

[JsonConverter(typeof(JsonStringEnumConverter<RunPhase>))]
public enum RunPhase
{
    Starting,
    Warmup,
    Measured,
    Finished,
}

/// <summary>
/// A moment of a running run, as the live view shows it: rolling figures cover the last tick only. <see cref="Total"/>
/// is the phase's call count (0 when only time bounds it; then <see cref="DurationMs"/> says how long it lasts).
/// </summary>
public sealed record ProgressSnapshot(
    long Sequence,
    RunPhase Phase,
    int Total,
    long Completed,
    long Succeeded,
    long Failed,
    double ElapsedMs,
    double CurrentThroughputPerSecond,
    double? RollingP50Ms,
    double? RollingP99Ms)
{
    public double? DurationMs { get; init; }

    /// <summary>Arrival-rate loads: sends that went out late so far.</summary>
    public long? Late { get; init; }

    /// <summary>Arrival-rate loads: calls that could not be started at all so far.</summary>
    public long? Dropped { get; init; }
}

/// <summary>
/// The live side of one run: the engine pushes a snapshot every tick to whoever follows, and, when the plan asked for
/// them, leaves each answer here for the caller (on disk: see <see cref="StatusSpool"/>). Disposing it deletes them.
/// </summary>
public sealed class LiveRun : IDisposable
{
    /// <summary>
    /// Snapshots a follower may leave unread: 6.4 s of ticks. A lost one is outdated by the next, and the run's end reaches
    /// a follower as the stored run, not through this buffer.
    /// </summary>
    public const int FollowerCapacity = 64;

    private readonly Broadcast<ProgressSnapshot> _broadcast = new(FollowerCapacity);
    private readonly TaskCompletionSource _finished = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private ProgressSnapshot _latest = new(0, RunPhase.Starting, 0, 0, 0, 0, 0, 0, null, null);
    private long _sequence;
    private int _finishing;

    public ProgressSnapshot Latest => Volatile.Read(ref _latest);

    public Task Finished => _finished.Task;

    /// <summary>The answers the run kept, when its plan asked for them (<see cref="RunPlan.IncludeStatuses"/>): the target's own spool.</summary>
    public Calls.IAnswerSpool? Answers { get; private set; }

    public void Dispose() => Answers?.Dispose();

    /// <summary>The latest snapshot at once, then each new one as the engine publishes it, until the run has finished.</summary>
    public async IAsyncEnumerable<ProgressSnapshot> FollowAsync([EnumeratorCancellation] CancellationToken cancellation = default)
    {
        using var follower = _broadcast.Follow();
        var sent = Latest;
        yield return sent;
        await foreach (var snapshot in follower.Reader.ReadAllAsync(cancellation))
        {
            if (snapshot.Sequence > sent.Sequence)
            {
                sent = snapshot;
                yield return snapshot;
            }
        }
    }

    /// <summary>Where the measured phase keeps its answers, when the plan asked for them; the caller reads them from <see cref="Answers"/>.</summary>
    internal Calls.IAnswerSpool? KeepAnswers(Calls.IAnswerSpool? answers) => Answers = answers;

    /// <summary>Pushes a snapshot to every follower: the engine every tick, and the gateway for a run its agents make.</summary>
    public void Publish(ProgressSnapshot snapshot)
    {
        var numbered = snapshot with { Sequence = Interlocked.Increment(ref _sequence) };
        Volatile.Write(ref _latest, numbered);
        _broadcast.Publish(numbered);
    }

    /// <summary>Publishes the last snapshot as Finished and ends every follower; only the first call does anything.</summary>
    public void Finish(ProgressSnapshot last)
    {
        if (_finished.Task.IsCompleted || Interlocked.Exchange(ref _finishing, 1) == 1)
        {
            return;
        }

        Publish(last with { Phase = RunPhase.Finished });
        _broadcast.Complete();
        _finished.TrySetResult();
    }
}
