using LoadEngine;
using LoadEngine.Calls;
using LoadEngine.Clients;
using LoadEngine.Strategies;
using LoadEngine.Thresholds;
using LoadTest.Output;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace LoadTest;

/// <summary>
/// Runs the plans one after another with the gateway's engine, in this process: a DI scope per run (so a one-per-run
/// strategy is disposed with it), each run stopped at the time limit as the gateway stops it, and none started once interrupted.
/// </summary>
public sealed partial class LoadTestRunner(RunEngine engine, IServiceProvider services, ILogger<LoadTestRunner> logger)
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
        services.Configure<EngineOptions>(engine =>
        {
            engine.ServerUri = settings.Engine.ServerUri;
            engine.CallTimeout = settings.Engine.CallTimeout;
            engine.ConnectTimeout = settings.Engine.ConnectTimeout;
            engine.SilenceTimeout = settings.Engine.SilenceTimeout;
            engine.ConnectFailureWindow = settings.Engine.ConnectFailureWindow;
            engine.MaxInFlight = settings.Engine.MaxInFlight;
            engine.Http1Uri = settings.Engine.Http1Uri;
            engine.TlsUri = settings.Engine.TlsUri;
            engine.TrustedCertificatePath = settings.Engine.TrustedCertificatePath;
            engine.SettingNames = settings.Engine.SettingNames;
        });
        services.AddSingleton<LoadTestRunner>();
        return services.BuildServiceProvider();
    }

    public async Task<LoadTestResult> RunAsync(LoadTestSettings settings, ProgressDisplay display, Interrupt interrupt)
    {
        var suite = settings.IsSuite
            ? new SuiteRecord(Guid.NewGuid(), settings.Plans[0], [.. settings.Plans.Select(plan => plan.Strategy)], RunState.Running, DateTimeOffset.UtcNow, null, null)
            : null;
        var runs = new List<RunRecord>();
        foreach (var plan in settings.Plans)
        {
            // Once interrupted no further run starts; the first always does, so there is a run to report (it ends at once, cancelled).
            if (interrupt.Signal is not null && runs.Count > 0)
            {
                break;
            }

            var run = new RunRecord(Guid.NewGuid(), plan, RunState.Running, DateTimeOffset.UtcNow, null, null, null, suite?.Id);
            var live = new LiveRun();
            var following = display.FollowAsync(run, runs.Count + 1, settings.Plans.Count, live);
            var ended = await ExecuteAsync(run, live, settings.Limits, interrupt);
            await following;
            display.Ended(ended, runs.Count + 1, settings.Plans.Count);
            runs.Add(ended);
        }

        var interruption = interrupt.Signal;
        suite = suite is null ? null : suite with
        {
            State = interruption is null ? RunState.Completed : RunState.Cancelled,
            FinishedAt = DateTimeOffset.UtcNow,
            Error = interruption is null ? null : $"Interrupted by {interruption}; {runs.Count} of {settings.Plans.Count} strategies ran.",
        };
        return new LoadTestResult(suite, runs, interruption);
    }

    internal async Task<RunRecord> ExecuteAsync(RunRecord run, LiveRun live, PlanLimits limits, Interrupt interrupt)
    {
        var limit = TimeSpan.FromSeconds(limits.MaxRunSeconds);
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(interrupt.Token);
        stop.CancelAfter(limit);
        try
        {
            await using var scope = services.CreateAsyncScope();
            using var calls = scope.ServiceProvider.GetRequiredService<RunCallsFactory>().Create(run.Plan);
            var ended = await engine.ExecuteAsync(calls, run, live, stop.Token);
            return ended.State != RunState.Cancelled ? ended
                : interrupt.Signal is { } signal ? ThresholdJudge.WithVerdict(ended with { Error = $"Interrupted by {signal} before the run finished." })
                : ThresholdJudge.WithVerdict(ended with { State = RunState.Failed, Error = $"The run was stopped at the time limit of {limit.TotalSeconds:0} s." });
        }
        catch (Exception ex)
        {
            LogRunCrashed(logger, ex, run.Plan.Strategy);
            live.Finish(live.Latest);
            return ThresholdJudge.WithVerdict(run with { State = RunState.Failed, FinishedAt = DateTimeOffset.UtcNow, Error = $"The run failed inside the CLI: {ex.Message}" });
        }
    }

    [LoggerMessage(Level = LogLevel.Error, Message = "The {Strategy} run failed inside the CLI")]
    private static partial void LogRunCrashed(ILogger logger, Exception exception, string strategy);
}
