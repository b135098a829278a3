using LoadEngine.Calls;

namespace LoadEngine.Runs;

/// <summary>
/// The one place a load model meets the engine (NBomber keeps one scheduler per load simulation): which driver starts
/// a phase's calls, and for arrival-rate loads when each is due. A new load is a line here and, if no driver fits, its driver.
/// </summary>
internal static class LoadDrivers
{
    /// <summary>When each call of an arrival-rate load is due; null for loads whose calls start when earlier ones end.</summary>
    public static ArrivalSchedule? Schedule(RunPlan plan, int? count, double? durationSeconds) => plan.Load switch
    {
        LoadKind.Open => ArrivalSchedule.Constant(plan.Rate ?? 0, durationSeconds ?? (count ?? 0) / (plan.Rate ?? 1)),
        LoadKind.Ramping => ArrivalSchedule.Ramping(plan.Rate ?? 0, plan.Stages ?? [], durationSeconds),
        _ => null,
    };

    /// <summary>Runs the phase's calls under its plan's load: whole calls, or messages on one stream.</summary>
    public static Task RunAsync(Phase phase, IRunCalls calls) => (calls, phase.Plan.Load) switch
    {
        (ICallSource each, LoadKind.Sequential) => ClosedLoad.RunAsync(phase, each, workers: 1),
        (ICallSource each, LoadKind.Closed) => ClosedLoad.RunAsync(phase, each, phase.Plan.Concurrency),
        (ICallSource each, LoadKind.Open or LoadKind.Ramping) => new ArrivalLoad(phase, each).RunAsync(),
        (IStreamSource stream, LoadKind.Sequential) => StreamLoad.RunAsync(phase, stream, window: 1),
        (IStreamSource stream, LoadKind.Closed) => StreamLoad.RunAsync(phase, stream, phase.Plan.Concurrency),
        (IStreamSource stream, LoadKind.Open or LoadKind.Ramping) => StreamLoad.RunAsync(phase, stream, phase.MaxInFlight),
        _ => throw new InvalidOperationException($"{calls.Info.Name} has no driver for the {phase.Plan.Load} load."),
    };
}
