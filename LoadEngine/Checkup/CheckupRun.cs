using LoadEngine.Lessons;
using LoadEngine.Runs;

namespace LoadEngine.Checkup;

/// <summary>
/// Runs a checkup's measurements one after another within its budget, as a lesson's experiment runs its steps: each run
/// through <paramref name="runs"/> (stored in the gateway, in-process in the CLI), the record told after every step.
/// </summary>
public static class CheckupRun
{
    /// <param name="changed">Told the record each time a step ends, its items judged so far, so followers see the checkup grow.</param>
    public static Task<CheckupRecord> RunAsync(
        CheckupPlan plan, CheckupRecord record, RunSequence runs, IServiceProvider services, Action<CheckupRecord> changed, CancellationToken cancellation) =>
        throw new NotSupportedException("being written");
}
