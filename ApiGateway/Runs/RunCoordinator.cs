using System.Collections.Concurrent;
using ApiGateway.Configuration;
using ApiGateway.History;
using ApiGateway.Strategies;
using Microsoft.Extensions.Options;

namespace ApiGateway.Runs;

/// <summary>
/// Starts, tracks, limits and stores runs and suites. Every run, finished, failed or cancelled, is stored
/// before its answer goes out; at shutdown, runs in flight are cancelled and stored as such.
/// </summary>
public sealed partial class RunCoordinator(
    IServiceProvider services,
    StrategyCatalog catalog,
    RunEngine engine,
    IRunStore store,
    IOptions<RunLimitsOptions> limits,
    ILogger<RunCoordinator> logger) : IHostedService, IDisposable
{
    private static readonly TimeSpan TickInterval = TimeSpan.FromMilliseconds(200);
    private readonly ConcurrentDictionary<Guid, ActiveRun> _runs = new();
    private readonly ConcurrentDictionary<Guid, ActiveSuite> _suites = new();
    private readonly CancellationTokenSource _stopping = new();
    private int _slots;

    public ActiveRun? FindRun(Guid id) => _runs.GetValueOrDefault(id);

    public ActiveSuite? FindSuite(Guid id) => _suites.GetValueOrDefault(id);

    /// <summary>Starts a run in the background. <paramref name="callerGone"/> cancels it (the chapter routes pass the request's abort token).</summary>
    public async Task<ActiveRun> StartRunAsync(RunPlan plan, CancellationToken callerGone = default)
    {
        Reserve();
        try
        {
            return await LaunchAsync(plan, suiteId: null, callerGone, "The caller disconnected before the run finished.", ownsSlot: true);
        }
        catch
        {
            Release();
            throw;
        }
    }

    public async Task<ActiveSuite> StartSuiteAsync(RunPlan plan, IReadOnlyList<string> strategies)
    {
        Reserve();
        try
        {
            var suite = new ActiveSuite(new SuiteRecord(Guid.NewGuid(), plan, strategies, RunState.Running, DateTimeOffset.UtcNow, null, null), _stopping.Token);
            await SaveAsync(() => store.SaveSuiteAsync(suite.Record), "The suite");
            _suites[suite.Record.Id] = suite;
            suite.Completion = Task.Run(() => ExecuteSuiteAsync(suite));
            return suite;
        }
        catch
        {
            Release();
            throw;
        }
    }

    public Task StartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    /// <summary>Cancels what is in flight and waits (as long as the host allows) until each is stored as cancelled.</summary>
    public async Task StopAsync(CancellationToken cancellationToken)
    {
        foreach (var work in _runs.Values.Cast<ActiveWork>().Concat(_suites.Values))
        {
            work.Stop(RunState.Cancelled, "The gateway stopped during the run.");
        }

        var pending = _runs.Values.Select(run => (Task)run.Completion).Concat(_suites.Values.Select(suite => (Task)suite.Completion)).ToArray();
        try
        {
            await Task.WhenAll(pending).WaitAsync(cancellationToken);
        }
        catch (Exception ex) when (ex is OperationCanceledException or HistoryWriteException)
        {
            LogShutdownIncomplete(logger, pending.Count(task => !task.IsCompleted));
        }
    }

    public void Dispose() => _stopping.Dispose();

    private async Task<ActiveRun> LaunchAsync(RunPlan plan, Guid? suiteId, CancellationToken stopWhen, string stopReason, bool ownsSlot)
    {
        var run = new ActiveRun(new RunRecord(Guid.NewGuid(), plan, RunState.Running, DateTimeOffset.UtcNow, null, null, null, suiteId), _stopping.Token);
        await SaveAsync(() => store.SaveAsync(run.Record), "The run");
        _runs[run.Id] = run;
        run.Completion = Task.Run(() => ExecuteRunAsync(run, stopWhen, stopReason, ownsSlot));
        return run;
    }

    private async Task<RunResult> ExecuteRunAsync(ActiveRun run, CancellationToken stopWhen, string stopReason, bool ownsSlot)
    {
        var limit = TimeSpan.FromSeconds(limits.Value.MaxRunSeconds);
        using var stopped = stopWhen.Register(() => run.Stop(RunState.Cancelled, stopReason));
        using var timeLimit = new Timer(_ => run.Stop(RunState.Failed, $"The run was stopped at the time limit of {limit.TotalSeconds:0} s (Runs:MaxRunSeconds)."), null, limit, Timeout.InfiniteTimeSpan);
        using var ticking = CancellationTokenSource.CreateLinkedTokenSource(_stopping.Token);
        var ticker = TickAsync(run.Progress, ticking.Token);
        try
        {
            var (outcome, measured) = await ExecuteStrategyAsync(run);
            var (state, error) = outcome.State == RunState.Cancelled && run.StopReason is { } stop ? (stop.State, stop.Reason) : (outcome.State, outcome.Error);
            var record = run.Record with { State = state, FinishedAt = DateTimeOffset.UtcNow, Stats = outcome.Stats, Error = error };
            await SaveAsync(() => store.SaveAsync(record), "The run");
            LogRunEnded(logger, run.Id, run.Record.Plan.Strategy, state, record.Stats?.WallTimeMs ?? 0, error);
            return new RunResult(record, outcome.Statuses, measured, outcome.MostCommonError);
        }
        finally
        {
            await ticking.CancelAsync();
            await ticker;
            run.Progress.Finish();
            _runs.TryRemove(run.Id, out _);
            run.Dispose();
            if (ownsSlot)
            {
                Release();
            }
        }
    }

    private async Task<(RunOutcome Outcome, string Measured)> ExecuteStrategyAsync(ActiveRun run)
    {
        try
        {
            // A scope per run, so a transient strategy (the factory client's) is disposed with its run.
            await using var scope = services.CreateAsyncScope();
            var strategy = catalog.Resolve(run.Record.Plan.Strategy, scope.ServiceProvider);
            return (await engine.ExecuteAsync(strategy, run.Record.Plan, run.Progress, run.Cancellation), strategy.DescribeMeasurement());
        }
        catch (Exception ex) when (ex is not HistoryWriteException)
        {
            LogRunCrashed(logger, ex, run.Id);
            return (new RunOutcome(RunState.Failed, null, $"The gateway failed during the run: {ex.Message}", null, []), string.Empty);
        }
    }

    private async Task<SuiteRecord> ExecuteSuiteAsync(ActiveSuite suite)
    {
        try
        {
            foreach (var strategy in suite.Record.Strategies)
            {
                if (suite.Cancellation.IsCancellationRequested)
                {
                    break;
                }

                suite.Current = await LaunchAsync(suite.Record.Plan with { Strategy = strategy }, suite.Record.Id, suite.Cancellation, suite.StopReason?.Reason ?? "The suite was cancelled.", ownsSlot: false);
                await suite.Current.Completion;
            }

            var (state, error) = suite.StopReason is { } stop ? (stop.State, stop.Reason) : (RunState.Completed, (string?)null);
            var record = suite.Record with { State = state, FinishedAt = DateTimeOffset.UtcNow, Error = error };
            await SaveAsync(() => store.SaveSuiteAsync(record), "The suite");
            return record;
        }
        finally
        {
            _suites.TryRemove(suite.Record.Id, out _);
            suite.Dispose();
            Release();
        }
    }

    private static async Task TickAsync(RunProgress progress, CancellationToken stop)
    {
        using var timer = new PeriodicTimer(TickInterval);
        try
        {
            while (await timer.WaitForNextTickAsync(stop))
            {
                progress.Tick();
            }
        }
        catch (OperationCanceledException)
        {
        }
    }

    private static async Task SaveAsync(Func<Task> save, string what)
    {
        try
        {
            await save();
        }
        catch (Exception ex) when (ex is not OperationCanceledException)
        {
            throw new HistoryWriteException(what, ex);
        }
    }

    private void Reserve()
    {
        var max = limits.Value.MaxRunsInFlight;
        if (Interlocked.Increment(ref _slots) > max)
        {
            Interlocked.Decrement(ref _slots);
            throw new TooManyRunsException(max, retryAfterSeconds: 2);
        }
    }

    private void Release() => Interlocked.Decrement(ref _slots);

    [LoggerMessage(Level = LogLevel.Information, Message = "Run {RunId} ({Strategy}) ended {State} after {WallTimeMs} ms {Error}")]
    private static partial void LogRunEnded(ILogger logger, Guid runId, string strategy, RunState state, double wallTimeMs, string? error);

    [LoggerMessage(Level = LogLevel.Error, Message = "Run {RunId} failed inside the gateway")]
    private static partial void LogRunCrashed(ILogger logger, Exception exception, Guid runId);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Shutdown: {Pending} run(s) or suite(s) could not be stored as cancelled in time")]
    private static partial void LogShutdownIncomplete(ILogger logger, int pending);
}
