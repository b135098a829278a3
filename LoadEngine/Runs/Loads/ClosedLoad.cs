using LoadEngine.Calls;

namespace LoadEngine.Runs;

/// <summary>Sequential (one worker) and closed loads: each worker starts its next call when its last one ended.</summary>
internal static class ClosedLoad
{
    public static Task RunAsync(Phase phase, ICallSource calls, int workers)
    {
        var tasks = new Task[Math.Max(1, Math.Min(workers, phase.Count ?? workers))];
        for (var worker = 0; worker < tasks.Length; worker++)
        {
            tasks[worker] = WorkAsync();
        }

        return Task.WhenAll(tasks);

        async Task WorkAsync()
        {
            while (phase.TryTakeNext(out var index))
            {
                await phase.CallAsync(calls, index, dueAt: 0);
            }
        }
    }
}
