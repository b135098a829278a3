using System.Collections.Concurrent;
using ApiGateway.Agents;
using ApiGateway.Configuration;
using ApiGateway.History;
using Microsoft.Extensions.Options;

namespace ApiGateway.Runs;

/// <summary>
/// Starts, tracks, limits and stores runs, suites, lesson experiments and checkups. A run starts only once the history holds it as
/// Running; when it ends it is stored, or, if the history refuses the write, served from memory and stored later
/// (<see cref="DurableRunStore"/>). At shutdown, runs in flight are cancelled and stored as such.
/// </summary>
public sealed partial class RunCoordinator(
    IServiceProvider services,
    Targets.TargetEngines engines,
    IHostApplicationLifetime lifetime,
    AgentRuns agentRuns,
    DurableRunStore store,
    RunMetrics metrics,
    IOptions<RunLimitsOptions> limits,
    IOptions<AgentOptions> agents,
    ILogger<RunCoordinator> logger) : IHostedLifecycleService, IDisposable
{
    public const int RetryAfterSeconds = 2;

    public const string GatewayStoppedReason = "The gateway stopped during the run.";

    /// <summary>How a run's error begins when the gateway itself, not the service, failed during it.</summary>
    public const string GatewayFailed = "The gateway failed during the run:";

    private readonly ConcurrentDictionary<Guid, ActiveRun> _runs = new();
    private readonly ConcurrentDictionary<Guid, ActiveSuite> _suites = new();
    private readonly CancellationTokenSource _stopping = new();

    /// <summary>Whether the gateway is shutting down: what it cancels now was stopped by that, not by its caller.</summary>
    public bool IsStopping => _stopping.IsCancellationRequested;

    /// <summary>No run, suite, experiment, checkup or lesson holds a slot: nothing the gateway measures is going on.</summary>
    public bool IsIdle => _localSlots.Taken == 0;

    public ActiveRun? FindRun(Guid id) => _runs.GetValueOrDefault(id);

    public ActiveSuite? FindSuite(Guid id) => _suites.GetValueOrDefault(id);

    /// <summary>
    /// Starts a run in the background; null when <see cref="RunLimitsOptions.MaxRunsInFlight"/> runs are already going
    /// (for a distributed run, <see cref="AgentOptions.MaxRunsInFlight"/> distributed runs).
    /// <paramref name="callerGone"/> cancels it (the chapter routes pass the request's abort token).
    /// </summary>
    public Task<ActiveRun?> StartRunAsync(RunPlan plan, CancellationToken callerGone = default) =>
        // A distributed run makes no calls here: waiting for its agents takes none of the slots local runs need.
        HoldingAsync(plan.Agents is null ? TryTakeSlot() : TryTakeAgentSlot(), slot => LaunchAsync(plan, suiteId: null, callerGone, "The caller disconnected before the run finished.", slot));

    /// <summary>
    /// Starts a suite (one run per plan, in turn) in the background; null when too many runs are already going. A protocol
    /// comparison is a suite whose plans are its <paramref name="comparison"/>'s schedule.
    /// </summary>
    public Task<ActiveSuite?> StartSuiteAsync(IReadOnlyList<RunPlan> plans, ComparisonPlan? comparison = null) => HoldingAsync(TryTakeSlot(), async slot =>
    {
        var record = new SuiteRecord(Guid.NewGuid(), plans[0], [.. plans.Select(plan => plan.Strategy)], RunState.Running, DateTimeOffset.UtcNow, null, null)
        {
            Comparison = comparison,
        };
        var suite = new ActiveSuite(record, plans, _stopping.Token);
        await SaveAsync(() => store.SaveSuiteAsync(suite.Record), "The suite");
        _suites[suite.Record.Id] = suite;
        suite.Completion = Task.Run(() => ExecuteSuiteAsync(suite, slot));
        return suite;
    });

    public Task StartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    /// <summary>
    /// SIGTERM raises ApplicationStopping before any hosted service hears of the stop: from that moment what is in flight
    /// was stopped by the gateway, so an arm that fails meanwhile is stored as stopped, not as a failure of its own.
    /// </summary>
    public Task StartingAsync(CancellationToken cancellationToken)
    {
        lifetime.ApplicationStopping.Register(StopEverything);
        return Task.CompletedTask;
    }

    public Task StartedAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    /// <summary>
    /// Runs before any hosted service stops, Kestrel included: Kestrel waits for requests in flight to end, so a chapter
    /// route's run must be cancelled first, with the gateway's reason, or the caller waits out the whole shutdown timeout.
    /// </summary>
    public Task StoppingAsync(CancellationToken cancellationToken)
    {
        StopEverything();
        return Task.CompletedTask;
    }

    public Task StoppedAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    /// <summary>Cancels what is in flight and waits (as long as the host allows) until each is stored as cancelled.</summary>
    public async Task StopAsync(CancellationToken cancellationToken)
    {
        StopEverything();

        var pending = _runs.Values.Select(run => (Task)run.Completion).Concat(_suites.Values.Select(suite => (Task)suite.Completion)).Concat(_experiments.Values.Select(experiment => (Task)experiment.Completion))
            .Concat(_checkups.Values.Select(checkup => (Task)checkup.Completion)).ToArray();
        try
        {
            await Task.WhenAll(pending).WaitAsync(cancellationToken);
        }
        catch (Exception ex) when (ex is OperationCanceledException or HistoryWriteException)
        {
            LogShutdownIncomplete(logger, pending.Count(task => !task.IsCompleted));
        }
        finally
        {
            await store.FlushAsync();
        }
    }

    public void Dispose() => _stopping.Dispose();

    private void StopEverything()
    {
        foreach (var work in _runs.Values.Cast<ActiveWork>().Concat(_suites.Values).Concat(_experiments.Values).Concat(_checkups.Values))
        {
            work.Stop(RunState.Cancelled, GatewayStoppedReason);
        }

        // Whatever starts from now on is cancelled as it starts.
        _stopping.Cancel();
    }

    /// <param name="slot">The slot the run holds until it ends, released with it; null when its suite or experiment holds one.</param>
    private async Task<ActiveRun> LaunchAsync(RunPlan plan, Guid? suiteId, CancellationToken stopWhen, string stopReason, IDisposable? slot, Guid? experimentId = null)
    {
        var record = RunRecord.Starting(plan, suiteId) with { ExperimentId = experimentId };
        var run = new ActiveRun(record, _stopping.Token);
        await SaveAsync(() => store.SaveAsync(run.Record), "The run");
        if (plan.Agents is not null)
        {
            // Written before the run is announced: an agent started the moment POST answers finds its plan.
            await SaveAsync(() => agentRuns.CreateAsync(run.Record), "The distributed run");
        }

        _runs[run.Id] = run;
        metrics.Started();
        run.Completion = Task.Run(() => ExecuteRunAsync(run, stopWhen, stopReason, slot));
        return run;
    }

    private async Task<RunRecord> ExecuteRunAsync(ActiveRun run, CancellationToken stopWhen, string stopReason, IDisposable? slot)
    {
        var limit = TimeSpan.FromSeconds(limits.Value.MaxRunSeconds);
        using var stopped = stopWhen.Register(() => run.Stop(RunState.Cancelled, stopReason));
        using var timeLimit = new Timer(_ => run.Stop(RunState.Failed, $"The run was stopped at the time limit of {limit.TotalSeconds:0} s (Runs:MaxRunSeconds)."), null, limit, Timeout.InfiniteTimeSpan);
        // A run whose end could not even be handed to the history still ended; it counts as Failed.
        var endedAs = RunState.Failed;
        try
        {
            var ended = await ExecuteStrategyAsync(run);
            // Judged where it ended: a run that measured something fails its thresholds alike whichever stop ended it.
            if (ended.State == RunState.Cancelled && (run.StopReason ?? (IsStopping ? (RunState.Cancelled, GatewayStoppedReason) : ((RunState, string)?)null)) is { } stop)
            {
                ended = ended with { State = stop.State, Error = stop.Reason };
            }

            // Its end is served from the history's memory from here on, not as the Running run this coordinator holds.
            endedAs = ended.State;
            var saving = store.SaveEndedAsync(ended);
            _runs.TryRemove(run.Id, out _);
            await saving;
            // From start to end, waiting for agents or warming up included: a run that measured nothing still took its time.
            var took = ((ended.FinishedAt ?? DateTimeOffset.UtcNow) - ended.StartedAt).TotalMilliseconds;
            LogRunEnded(logger, run.Id, ended.Plan.Strategy, ended.State, Math.Round(took), ended.Error ?? ended.Note ?? string.Empty);
            return ended;
        }
        finally
        {
            _runs.TryRemove(run.Id, out _);
            metrics.Ended(endedAs);
            run.Dispose();
            slot?.Dispose();
        }
    }

    private async Task<RunRecord> ExecuteStrategyAsync(ActiveRun run)
    {
        try
        {
            if (run.Record.Plan.Agents is not null)
            {
                return await agentRuns.WaitForAgentsAsync(run.Record, run.Live, run.Cancellation);
            }

            // The engine of the run's target, whose channels go to that target's address only and whose mask is that target's metadata.
            return await PlanExecutor.ExecuteAsync(engines.Services(run.Record.Plan.Described?.Target), run.Record, run.Live, run.Cancellation);
        }
        catch (Exception ex) when (ex is not HistoryWriteException)
        {
            LogRunCrashed(logger, ex, run.Id);
            run.Live.Finish(run.Live.Latest);
            return run.Record with { State = RunState.Failed, FinishedAt = DateTimeOffset.UtcNow, Error = $"{GatewayFailed} {ex.Message}" };
        }
    }

    private async Task<SuiteRecord> ExecuteSuiteAsync(ActiveSuite suite, IDisposable slot)
    {
        try
        {
            (RunState State, string? Reason) end;
            try
            {
                var runs = await Sequence(suite, "The suite was cancelled.", suite.Record.Id).RunAllAsync(suite.Plans, suite.Cancellation);
                end = suite.StopReason is { } stop ? stop
                    : IsStopping ? (RunState.Cancelled, GatewayStoppedReason)
                    : runs.Count > 0 && runs.All(run => run.State == RunState.Failed) ? (RunState.Failed, $"Every run failed; the first: {runs[0].Error}")
                    : (RunState.Completed, null);
            }
            catch (HistoryWriteException notStarted)
            {
                end = (RunState.Failed, notStarted.Message);
            }

            var record = suite.Record with { State = end.State, FinishedAt = DateTimeOffset.UtcNow, Error = end.Reason };
            var saving = store.SaveEndedAsync(record);
            _suites.TryRemove(suite.Record.Id, out _);
            await saving;
            return record;
        }
        finally
        {
            suite.Events.Complete();
            _suites.TryRemove(suite.Record.Id, out _);
            suite.Dispose();
            slot.Dispose();
        }
    }

    /// <summary>The runs of a suite, an experiment or a checkup: stored runs that name it (a checkup's name nothing), stopped with it, each its current run while it goes.</summary>
    private RunSequence Sequence<T>(T owner, string cancelled, Guid? suiteId = null, Guid? experimentId = null)
        where T : ActiveSequence, IRunFollower =>
        new(async plan =>
        {
            var run = await LaunchAsync(plan, suiteId, owner.Cancellation, owner.StopReason?.Reason ?? cancelled, slot: null, experimentId);
            owner.Current = run;
            return new StartedRun(run.Record, run.Live, run.Completion);
        }, owner);

    /// <summary>
    /// Runs an experiment or a checkup to its end, either the same way: one that was stopped (a cancel, the shutdown) says
    /// why in its record; one during which the gateway itself failed is stored as Failed with that sentence; its end is
    /// stored and told to its followers, and its slot given back.
    /// </summary>
    /// <param name="endAs">The record ended as a state, with the reason.</param>
    private async Task<T> RunToEndAsync<T>(
        ActiveRecordSequence<T> work, string what, Func<Task<T>> run, Func<T, RunState> stateOf, Func<T, RunState, string, T> endAs, Func<T, Task> save, Action forget, IDisposable slot)
        where T : class
    {
        try
        {
            var ended = await run();
            if (stateOf(ended) != RunState.Completed && work.StopReason is { } stop)
            {
                ended = endAs(ended, stop.State, stop.Reason);
            }

            work.Update(ended);
            await save(ended);
            return ended;
        }
        catch (Exception ex)
        {
            LogSequenceCrashed(logger, ex, what, work.Id);
            var failed = endAs(work.Record, RunState.Failed, $"The gateway failed during the {what}: {ex.Message}");
            work.Update(failed);
            await save(failed);
            return failed;
        }
        finally
        {
            work.Ended();
            forget();
            work.Dispose();
            slot.Dispose();
        }
    }

    /// <summary>The first write of a run, suite, experiment or checkup: when the history refuses it, nothing starts and the caller is told so.</summary>
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

    /// <summary>Starts what <paramref name="slot"/> was taken for, or null when none was free; the slot is given back if it does not start.</summary>
    private static async Task<T?> HoldingAsync<T>(IDisposable? slot, Func<IDisposable, Task<T>> start)
        where T : class
    {
        if (slot is null)
        {
            return null;
        }

        try
        {
            return await start(slot);
        }
        catch
        {
            slot.Dispose();
            throw;
        }
    }

    [LoggerMessage(Level = LogLevel.Information, Message = "Run {RunId} ({Strategy}) ended {State} after {DurationMs} ms {Error}")]
    private static partial void LogRunEnded(ILogger logger, Guid runId, string strategy, RunState state, double durationMs, string error);

    [LoggerMessage(Level = LogLevel.Error, Message = "Run {RunId} failed inside the gateway")]
    private static partial void LogRunCrashed(ILogger logger, Exception exception, Guid runId);

    [LoggerMessage(Level = LogLevel.Error, Message = "The {What} {Id} failed inside the gateway")]
    private static partial void LogSequenceCrashed(ILogger logger, Exception exception, string what, Guid id);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Shutdown: {Pending} run(s) or suite(s) could not be stored as cancelled in time")]
    private static partial void LogShutdownIncomplete(ILogger logger, int pending);
}
