namespace GrpcBestPractices.Tests.Unit;

/// <summary>The one runner of runs in sequence that suites, comparisons, lesson experiments and the CLI share.</summary>
public sealed class RunSequenceTests
{
    [Fact]
    public async Task EachPlanRunsInTurnAndTheFollowerHearsItsProgressThenItsEnd()
    {
        var log = new List<string>();
        var sequence = new RunSequence(Start(log), new LoggingFollower(log));

        var runs = await sequence.RunAllAsync([Plan("a"), Plan("b")], CancellationToken.None);

        Assert.Equal(["a", "b"], runs.Select(run => run.Plan.Strategy));
        Assert.All(runs, run => Assert.Equal(RunState.Completed, run.State));
        Assert.Equal(["start a", "follow a 1/2", "progress a 7", "ended a 1/2 Completed", "start b", "follow b 2/2", "progress b 7", "ended b 2/2 Completed"], log);
    }

    [Fact]
    public async Task NoFurtherRunStartsOnceStopped()
    {
        using var stop = new CancellationTokenSource();
        var log = new List<string>();
        var sequence = new RunSequence(Start(log, stop.Cancel), new LoggingFollower(log));

        var runs = await sequence.RunAllAsync([Plan("a"), Plan("b"), Plan("c")], stop.Token);

        Assert.Equal(["a"], runs.Select(run => run.Plan.Strategy));
    }

    [Theory]
    [InlineData(false, 0)]
    [InlineData(true, 1)]
    public async Task AStopBeforeTheFirstRunStartsNoneUnlessTheFirstAlwaysRuns(bool firstAlways, int expected)
    {
        var log = new List<string>();
        var sequence = new RunSequence(Start(log), new LoggingFollower(log));

        var runs = await sequence.RunAllAsync([Plan("a"), Plan("b")], new CancellationToken(canceled: true), firstAlways);

        Assert.Equal(expected, runs.Count);
    }

    private static RunPlan Plan(string strategy) => new() { Strategy = strategy, Count = 1 };

    /// <summary>A host whose run shows one snapshot of 7 calls, then completes once its follower has seen it.</summary>
    private static Func<RunPlan, Task<StartedRun>> Start(List<string> log, Action? started = null) => plan =>
    {
        log.Add($"start {plan.Strategy}");
        started?.Invoke();
        var run = new RunRecord(Guid.NewGuid(), plan, RunState.Running, DateTimeOffset.UtcNow, null, null, null, null);
        var live = new LiveRun();
        live.Publish(new ProgressSnapshot(0, RunPhase.Measured, 1, 7, 7, 0, 1, 0, null, null));
        var completion = Task.Run(async () =>
        {
            await Followed.GetOrAdd(live, _ => new()).Task;
            live.Finish(live.Latest);
            return run with { State = RunState.Completed, FinishedAt = DateTimeOffset.UtcNow };
        });
        return Task.FromResult(new StartedRun(run, live, completion));
    };

    private static readonly System.Collections.Concurrent.ConcurrentDictionary<LiveRun, TaskCompletionSource> Followed = new();

    private sealed class LoggingFollower(List<string> log) : IRunFollower
    {
        public async Task FollowAsync(RunRecord run, int position, int of, LiveRun live)
        {
            log.Add($"follow {run.Plan.Strategy} {position}/{of}");
            await foreach (var progress in live.FollowAsync())
            {
                if (progress.Phase == RunPhase.Measured)
                {
                    log.Add($"progress {run.Plan.Strategy} {progress.Completed}");
                    Followed.GetOrAdd(live, _ => new()).TrySetResult();
                }
            }
        }

        public void Ended(RunRecord run, int position, int of) => log.Add($"ended {run.Plan.Strategy} {position}/{of} {run.State}");
    }
}
