namespace LoadTest.Output;

/// <summary>
/// Shows each run while it goes, from the snapshots the engine pushes (<see cref="LiveRun.FollowAsync"/>). This one shows
/// nothing (--quiet): the summary says how the runs ended.
/// </summary>
public class ProgressDisplay : IRunFollower
{
    /// <summary>Runs <paramref name="work"/> while the display is up (a live display draws for as long as it runs).</summary>
    public virtual Task<T> ShowAsync<T>(Func<Task<T>> work) => work();

    /// <summary>Follows one run until the engine finishes it; <paramref name="position"/> of <paramref name="of"/> in a suite.</summary>
    public virtual Task FollowAsync(RunRecord run, int position, int of, LiveRun live) => Task.CompletedTask;

    /// <summary>The run as it ended.</summary>
    public virtual void Ended(RunRecord run, int position, int of)
    {
    }
}

/// <summary>
/// For CI logs and anything else that is not a terminal: no ANSI, a line when a run starts and ends, and a progress line
/// at most once a second between them.
/// </summary>
public sealed class PlainProgress(TextWriter output, TimeProvider clock) : ProgressDisplay
{
    public static readonly TimeSpan Interval = TimeSpan.FromSeconds(1);

    public override async Task FollowAsync(RunRecord run, int position, int of, LiveRun live)
    {
        var label = Figures.Label(run.Plan.Strategy, position, of);
        output.WriteLine($"{label}: {Figures.Describe(run.Plan)}");
        var last = clock.GetTimestamp();
        await foreach (var snapshot in live.FollowAsync())
        {
            if (snapshot.Phase is RunPhase.Starting or RunPhase.Finished || clock.GetElapsedTime(last) < Interval)
            {
                continue;
            }

            last = clock.GetTimestamp();
            output.WriteLine($"{label}: {Figures.Progress(snapshot)}");
        }
    }

    public override void Ended(RunRecord run, int position, int of) =>
        output.WriteLine($"{Figures.Label(run.Plan.Strategy, position, of)}: {Figures.Outcome(run)}");
}
