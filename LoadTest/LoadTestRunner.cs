using LoadEngine;
using LoadEngine.Strategies;
using LoadEngine.Thresholds;
using LoadTest.Output;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace LoadTest;

/// <summary>
/// Runs the plans one after another with the gateway's engine, in this process: a DI scope per run (so a one-per-run
/// strategy is disposed with it), each run stopped at the time limit as the gateway stops it, and none started once interrupted.
/// </summary>
public sealed partial class LoadTestRunner(IServiceProvider services, ILogger<LoadTestRunner> logger)
{
    /// <summary>The engine, every strategy and the logging the settings ask for; the engine calls <see cref="LoadTestSettings.Target"/> only.</summary>
    public static ServiceProvider BuildServices(LoadTestSettings settings)
    {
        var services = new ServiceCollection();
        services.AddLogging(logging => logging
            .SetMinimumLevel(settings.LogLevel)
            // stdout belongs to the progress display and the summary; log lines go to stderr.
            .AddConsole(console => console.LogToStandardErrorThreshold = LogLevel.Trace)
            .AddSimpleConsole(format => format.SingleLine = true));
        services.AddLoadEngine();
        services.AddSingleton(Options.Create(settings.Engine));
        services.AddSingleton<LoadTestRunner>();
        return services.BuildServiceProvider();
    }

    public async Task<LoadTestResult> RunAsync(LoadTestSettings settings, ProgressDisplay display, Interrupt interrupt)
    {
        var suite = settings.IsSuite
            ? new SuiteRecord(Guid.NewGuid(), settings.Plans[0], [.. settings.Plans.Select(plan => plan.Strategy)], RunState.Running, DateTimeOffset.UtcNow, null, null)
            : null;
        // Once interrupted no further run starts; the first always does, so there is a run to report (it ends at once, cancelled).
        var runs = await Sequence(display, settings.Limits, interrupt, suite?.Id).RunAllAsync(settings.Plans, interrupt.Token, firstAlways: true);
        var interruption = interrupt.Signal;
        suite = suite is null ? null : suite with
        {
            State = interruption is null ? RunState.Completed : RunState.Cancelled,
            FinishedAt = DateTimeOffset.UtcNow,
            Error = interruption is null ? null : $"Interrupted by {interruption}; {runs.Count} of {settings.Plans.Count} strategies ran.",
        };
        return new LoadTestResult(suite, runs, interruption);
    }

    /// <summary>Plans run in this process one after another, each stopped at the time limit and by Ctrl+C as any CLI run.</summary>
    public RunSequence Sequence(IRunFollower follower, PlanLimits limits, Interrupt interrupt, Guid? suiteId = null) => new(plan =>
    {
        var run = RunRecord.Starting(plan, suiteId);
        var live = new LiveRun();
        return Task.FromResult(new StartedRun(run, live, Task.Run(() => ExecuteAsync(run, live, limits, interrupt))));
    }, follower);

    private async Task<RunRecord> ExecuteAsync(RunRecord run, LiveRun live, PlanLimits limits, Interrupt interrupt)
    {
        var limit = TimeSpan.FromSeconds(limits.MaxRunSeconds);
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(interrupt.Token);
        stop.CancelAfter(limit);
        try
        {
            var ended = await PlanExecutor.ExecuteAsync(services, run, live, stop.Token);
            // Judged where it ended, by the engine: a run that measured something fails its thresholds alike whichever stop ended it.
            return ended.State != RunState.Cancelled ? ended
                : interrupt.Signal is { } signal ? ended with { Error = $"Interrupted by {signal} before the run finished." }
                : ended with { State = RunState.Failed, Error = $"The run was stopped at the time limit of {limit.TotalSeconds:0} s." };
        }
        catch (Exception ex)
        {
            LogRunCrashed(logger, ex, run.Plan.Strategy);
            live.Finish(live.Latest);
            // The engine never ended this run, so it is judged here, where it ended.
            return ThresholdJudge.WithVerdict(run with { State = RunState.Failed, FinishedAt = DateTimeOffset.UtcNow, Error = $"The run failed inside the CLI: {ex.Message}" });
        }
    }

    [LoggerMessage(Level = LogLevel.Error, Message = "The {Strategy} run failed inside the CLI")]
    private static partial void LogRunCrashed(ILogger logger, Exception exception, string strategy);
}
