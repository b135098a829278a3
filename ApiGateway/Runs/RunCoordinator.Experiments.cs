using LoadEngine.Lessons;

namespace ApiGateway.Runs;

/// <summary>Lesson experiments: one slot each, like a suite; their runs are stored runs that name the experiment (experimentId).</summary>
public sealed partial class RunCoordinator
{
    private readonly System.Collections.Concurrent.ConcurrentDictionary<Guid, ActiveExperiment> _experiments = new();

    public ActiveExperiment? FindExperiment(Guid id) => _experiments.GetValueOrDefault(id);

    /// <summary>The experiment of <paramref name="lesson"/> going now, if any.</summary>
    public ActiveExperiment? RunningExperimentOf(string lesson) => _experiments.Values.FirstOrDefault(experiment => experiment.Record.Lesson == lesson);

    /// <summary>Starts the experiment in the background; null when too many runs are already going.</summary>
    public Task<ActiveExperiment?> StartExperimentAsync(LessonPlan plan) => HoldingAsync(TryTakeSlot(), async slot =>
    {
        var experiment = new ActiveExperiment(plan, plan.NewRecord(), _stopping.Token);
        await SaveAsync(() => store.SaveExperimentAsync(experiment.Record), "The experiment");
        _experiments[experiment.Id] = experiment;
        experiment.Completion = Task.Run(() => ExecuteExperimentAsync(experiment, slot));
        return experiment;
    });

    private async Task<ExperimentRecord> ExecuteExperimentAsync(ActiveExperiment experiment, IDisposable slot)
    {
        try
        {
            var ended = await LessonExperiment.RunAsync(experiment.Plan, experiment.Record, Sequence(experiment, "The experiment was cancelled.", experimentId: experiment.Id),
                // The probe (keep-alive's pause) calls the experiment's target through that target's engine, as its runs do.
                experiment.Plan.Call is { } call ? engines.Services(call.Target) : services, experiment.Update, experiment.Cancellation);
            if (ended.State != RunState.Completed && experiment.StopReason is { } stop)
            {
                ended = ended with { State = stop.State, Error = stop.Reason };
            }

            experiment.Update(ended);
            await store.SaveEndedAsync(ended);
            return ended;
        }
        catch (Exception ex)
        {
            LogExperimentCrashed(logger, ex, experiment.Id);
            var failed = experiment.Record with { State = RunState.Failed, FinishedAt = DateTimeOffset.UtcNow, Error = $"The gateway failed during the experiment: {ex.Message}" };
            experiment.Update(failed);
            await store.SaveEndedAsync(failed);
            return failed;
        }
        finally
        {
            experiment.Events.Complete();
            _experiments.TryRemove(experiment.Id, out _);
            experiment.Dispose();
            slot.Dispose();
        }
    }

    [LoggerMessage(Level = LogLevel.Error, Message = "Experiment {ExperimentId} failed inside the gateway")]
    private static partial void LogExperimentCrashed(ILogger logger, Exception exception, Guid experimentId);
}
