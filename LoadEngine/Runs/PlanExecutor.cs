using LoadEngine.Calls;
using Microsoft.Extensions.DependencyInjection;

namespace LoadEngine.Runs;

/// <summary>One run of a plan, the same way for the gateway, the CLI and the warm-up: its calls made, the engine run over them.</summary>
public static class PlanExecutor
{
    /// <summary>
    /// Runs <paramref name="run"/>'s plan with <paramref name="engine"/>'s services (the engine of the target it calls) in a
    /// scope of its own, so a one-per-run strategy (the factory client's) is disposed with the run; until
    /// <paramref name="stop"/>, the caller's cancellation and time limit.
    /// </summary>
    public static async Task<RunRecord> ExecuteAsync(IServiceProvider engine, RunRecord run, LiveRun live, CancellationToken stop)
    {
        await using var scope = engine.CreateAsyncScope();
        using var calls = await scope.ServiceProvider.GetRequiredService<RunCallsFactory>().CreateAsync(run.Plan, stop);
        return await scope.ServiceProvider.GetRequiredService<RunEngine>().ExecuteAsync(calls, run, live, stop);
    }
}
