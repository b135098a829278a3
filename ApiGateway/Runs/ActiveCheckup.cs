using LoadEngine.Checkup;

namespace ApiGateway.Runs;

/// <summary>A checkup in progress: its record as each measurement ends, the run going now, and its followers.</summary>
public sealed class ActiveCheckup(CheckupPlan plan, CheckupRecord record, CancellationToken stopping)
    : ActiveRecordSequence<CheckupRecord>(record.Id, record, stopping), IRunFollower
{
    public CheckupPlan Plan { get; } = plan;

    /// <summary>
    /// Records a follower may leave unread, the same as a run's events: each record holds every item judged so far, and
    /// the final one all of them, so a lost record is made up by the next.
    /// </summary>
    public const int FollowerCapacity = LiveRun.FollowerCapacity;

    /// <summary>The record each time a measurement ends, pushed to whoever follows the checkup.</summary>
    public Broadcast<CheckupRecord> Events { get; } = new(FollowerCapacity);

    /// <summary>A measurement's run: its progress is its own (GET /api/runs/{id}/events); the checkup's record says which step it is.</summary>
    public Task FollowAsync(RunRecord run, int position, int of, LiveRun live) => Task.CompletedTask;

    protected override void Published(CheckupRecord record) => Events.Publish(record);

    internal override void Ended() => Events.Complete();
}
