using ApiGateway.Runs;
using GrpcBestPractices.Tests.Fakes;
using LoadEngine;
using LoadEngine.Lessons;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>
/// Issue 20, item 2: every event stream keeps at most 64 unread events per viewer, whatever it is told and however many
/// viewers never read, so a stalled viewer costs a bounded amount of memory and the publisher never waits for one.
/// </summary>
public sealed class EventBufferTests
{
    private const int Capacity = 64;
    private const int Published = 5000;
    private const int Viewers = 200;

    [Fact]
    public async Task SuiteViewersThatNeverReadKeepAtMostTheirCapacityAndThenReadTheNewest()
    {
        var suite = new ActiveSuite(new SuiteRecord(Guid.NewGuid(), SampleRuns.Plan("all"), ["client-wrapper"], RunState.Running, SampleRuns.Started, null, null), [], CancellationToken.None);

        await AssertBoundedAsync(suite.Events, value => new SuiteRunProgress(Guid.Empty, "client-wrapper", 1, 1, Snapshot(value)), happened => ((SuiteRunProgress)happened).Progress.Completed);
    }

    [Fact]
    public async Task ExperimentViewersThatNeverReadKeepAtMostTheirCapacityAndThenReadTheNewest()
    {
        var engine = new EngineOptions { ServerUri = new Uri("http://127.0.0.1:5000") };
        Assert.True(LessonPlan.TryCreate(LessonList.Streaming, 1, PlanLimits.Defaults, engine, null, out var plan, out _));
        var experiment = new ActiveExperiment(plan, plan.NewRecord(), CancellationToken.None);

        await AssertBoundedAsync(experiment.Events, value => new ExperimentProgress(Step, null, Snapshot(value)), happened => ((ExperimentProgress)happened).Progress!.Completed);
    }

    [Fact]
    public async Task ARunViewerThatCatchesUpReadsTheLatestSnapshotThenAtMostItsCapacityEndingWithTheFinishedOne()
    {
        using var live = new LiveRun();
        await using var viewer = live.FollowAsync().GetAsyncEnumerator();
        Assert.True(await viewer.MoveNextAsync());

        for (var completed = 1; completed <= Published; completed++)
        {
            live.Publish(Snapshot(completed));
        }

        live.Finish(Snapshot(Published));
        var read = new List<ProgressSnapshot>();
        while (await viewer.MoveNextAsync())
        {
            read.Add(viewer.Current);
        }

        Assert.Equal(Capacity, read.Count);
        Assert.Equal(RunPhase.Finished, read[^1].Phase);
        Assert.Equal(Published, read[^1].Completed);
    }

    /// <summary>Many viewers that never read while the stream publishes: each keeps the newest values only, and the publisher never waited.</summary>
    private static async Task AssertBoundedAsync<T>(Broadcast<T> broadcast, Func<long, T> make, Func<T, long> number)
    {
        var viewers = Enumerable.Range(0, Viewers).Select(_ => broadcast.Follow()).ToList();

        for (var value = 1; value <= Published; value++)
        {
            broadcast.Publish(make(value));
        }

        broadcast.Complete();

        Assert.All(viewers, viewer => Assert.Equal(Capacity, viewer.Reader.Count));
        var kept = new List<long>();
        await foreach (var happened in viewers[0].Reader.ReadAllAsync())
        {
            kept.Add(number(happened));
        }

        Assert.Equal(Enumerable.Range(Published - Capacity + 1, Capacity).Select(value => (long)value), kept);
    }

    private static readonly ExperimentStep Step = new(1, 1, 1, null);

    private static ProgressSnapshot Snapshot(long completed) => new(0, RunPhase.Measured, Published, completed, completed, 0, completed, 0, null, null);
}
