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

    private Task<ExperimentRecord> ExecuteExperimentAsync(ActiveExperiment experiment, IDisposable slot) => RunToEndAsync(
        experiment,
        "experiment",
        // The probe (keep-alive's pause) calls the experiment's target through that target's engine, as its runs do.
        () => LessonExperiment.RunAsync(experiment.Plan, experiment.Record, Sequence(experiment, "The experiment was cancelled.", experimentId: experiment.Id),
            experiment.Plan.Call is { } call ? engines.Services(call.Target) : services, experiment.Update, experiment.Cancellation),
        record => record.State,
        (record, state, reason) => record with { State = state, Error = reason, FinishedAt = record.FinishedAt ?? DateTimeOffset.UtcNow },
        store.SaveEndedAsync,
        () => _experiments.TryRemove(experiment.Id, out _),
        slot);
}
