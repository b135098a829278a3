using LoadEngine.Lessons;

namespace ApiGateway.Runs;

/// <summary>A lesson experiment in progress: its record as the samples arrive, the run going now, and its followers.</summary>
public sealed class ActiveExperiment(LessonPlan plan, ExperimentRecord record, CancellationToken stopping)
    : ActiveRecordSequence<ExperimentRecord>(record.Id, record, stopping), IRunFollower
{
    public LessonPlan Plan { get; } = plan;

    public ExperimentStep? CurrentStep { get; internal set; }

    /// <summary>
    /// Events a follower may leave unread, the same as a run's: each record a step pushes holds every sample so far, and the
    /// final one all of them, so a lost event is made up by the next.
    /// </summary>
    public const int FollowerCapacity = LiveRun.FollowerCapacity;

    /// <summary>Each step's progress and each sample as it arrives, pushed to whoever follows the experiment.</summary>
    public Broadcast<ExperimentEvent> Events { get; } = new(FollowerCapacity);

    /// <summary>An arm's run: its progress passed on as the step's (a step's position in the sequence is its index).</summary>
    public async Task FollowAsync(RunRecord run, int position, int of, LiveRun live)
    {
        var step = CurrentStep = Plan.Schedule()[position - 1];
        await foreach (var progress in live.FollowAsync())
        {
            Events.Publish(new ExperimentProgress(step, run.Id, progress));
        }
    }

    protected override void Published(ExperimentRecord record) => Events.Publish(new ExperimentChanged(record));

    internal override void Ended() => Events.Complete();
}

/// <summary>Something an experiment's followers are told.</summary>
public abstract record ExperimentEvent;

/// <summary>Live progress of the step running now (its run's, when it is a run).</summary>
public sealed record ExperimentProgress(ExperimentStep Step, Guid? RunId, ProgressSnapshot? Progress) : ExperimentEvent;

/// <summary>A step ended: the record with its samples.</summary>
public sealed record ExperimentChanged(ExperimentRecord Record) : ExperimentEvent;
