namespace LoadEngine.Runs;

/// <summary>A run as its host started it: the record it started as, its live progress, and the record it will end as.</summary>
public sealed record StartedRun(RunRecord Record, LiveRun Live, Task<RunRecord> Completion);

/// <summary>Who watches a sequence's runs: each run's progress while it goes, then the run as it ended.</summary>
public interface IRunFollower
{
    /// <summary>Follows one run until the engine finishes it; <paramref name="position"/> of <paramref name="of"/> in its sequence.</summary>
    Task FollowAsync(RunRecord run, int position, int of, LiveRun live);

    /// <summary>The run as it ended, thresholds judged; a follower that only shows progress need not listen.</summary>
    void Ended(RunRecord run, int position, int of)
    {
    }
}

/// <summary>
/// Runs plans one after another, the same way for a suite, a protocol comparison, a lesson's arms and the CLI's command
/// line: <paramref name="start"/> starts one the way its host runs runs (a stored run in the gateway, in-process in the
/// CLI), the follower hears its progress and its end, and the run is returned as it ended, its thresholds already judged
/// where it ended (the engine's end of run, or the merge of a distributed run).
/// </summary>
public sealed class RunSequence(Func<RunPlan, Task<StartedRun>> start, IRunFollower follower)
{
    public async Task<RunRecord> RunAsync(RunPlan plan, int position, int of)
    {
        var run = await start(plan);
        await follower.FollowAsync(run.Record, position, of, run.Live);
        var ended = await run.Completion;
        follower.Ended(ended, position, of);
        return ended;
    }

    /// <summary>Each plan in turn; none starts once <paramref name="stop"/> is cancelled, except the first when <paramref name="firstAlways"/>.</summary>
    public async Task<IReadOnlyList<RunRecord>> RunAllAsync(IReadOnlyList<RunPlan> plans, CancellationToken stop, bool firstAlways = false)
    {
        var runs = new List<RunRecord>();
        while (runs.Count < plans.Count && (!stop.IsCancellationRequested || (firstAlways && runs.Count == 0)))
        {
            runs.Add(await RunAsync(plans[runs.Count], runs.Count + 1, plans.Count));
        }

        return runs;
    }
}
