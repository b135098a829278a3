using LoadEngine.Checkup;

namespace ApiGateway.Runs;

/// <summary>Checkups: one slot each, like an experiment; their runs are stored runs, each readable while and after it goes.</summary>
public sealed partial class RunCoordinator
{
    private readonly System.Collections.Concurrent.ConcurrentDictionary<Guid, ActiveCheckup> _checkups = new();

    public ActiveCheckup? FindCheckup(Guid id) => _checkups.GetValueOrDefault(id);

    /// <summary>Starts the checkup in the background; null when too many runs are already going.</summary>
    public Task<ActiveCheckup?> StartCheckupAsync(CheckupPlan plan) => HoldingAsync(TryTakeSlot(), async slot =>
    {
        var checkup = new ActiveCheckup(plan, plan.NewRecord(), _stopping.Token);
        await SaveAsync(() => store.SaveCheckupAsync(checkup.Record), "The checkup");
        _checkups[checkup.Id] = checkup;
        checkup.Completion = Task.Run(() => ExecuteCheckupAsync(checkup, slot));
        return checkup;
    });

    private Task<CheckupRecord> ExecuteCheckupAsync(ActiveCheckup checkup, IDisposable slot) => RunToEndAsync(
        checkup,
        "checkup",
        // The probes call the checkup's target through that target's engine, as its runs do.
        () => CheckupRun.RunAsync(checkup.Plan, checkup.Record, Sequence(checkup, "The checkup was cancelled."), engines.Services(checkup.Plan.Call.Target),
            checkup.Update, checkup.Cancellation),
        record => record.State,
        (record, state, reason) => record with { State = state, Error = reason, FinishedAt = record.FinishedAt ?? DateTimeOffset.UtcNow, Step = null },
        store.SaveEndedAsync,
        () => _checkups.TryRemove(checkup.Id, out _),
        slot);
}
