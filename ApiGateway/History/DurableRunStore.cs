using System.Collections.Concurrent;
using LoadEngine.Checkup;
using LoadEngine.Lessons;
using Polly;
using Polly.Retry;

namespace ApiGateway.History;

/// <summary>
/// The history as the gateway uses it: an ended run, suite or experiment whose write fails (a locked file, a full disk) is
/// kept in memory, served by every read as if stored, and written again with back-off (Polly's retry) until it is stored
/// or the gateway stops. Its failure is logged once; its eventual storing once more.
/// </summary>
public sealed partial class DurableRunStore(IRunStore inner, TimeProvider time, ILogger<DurableRunStore> logger) : IRunStore, IDisposable
{
    public static readonly TimeSpan FirstRetry = TimeSpan.FromMilliseconds(500);

    public static readonly TimeSpan LongestRetry = TimeSpan.FromSeconds(30);

    private readonly ConcurrentDictionary<Guid, PendingSave> _pending = new();
    private readonly CancellationTokenSource _stopping = new();

    /// <summary>How many ended records wait to be stored.</summary>
    public int PendingCount => _pending.Count;

    /// <summary>Why the latest write failed, while any record waits.</summary>
    public string? PendingError => _pending.Values.Select(pending => pending.LastError).LastOrDefault(error => error is not null);

    /// <summary>Stores a run that ended; when the history refuses it, it is kept and retried in the background, and this still returns.</summary>
    public Task SaveEndedAsync(RunRecord run) => SaveEndedAsync(run.Id, run, $"Run {run.Id} ({run.Plan.Strategy}, {run.State})", () => inner.SaveAsync(run));

    public Task SaveEndedAsync(SuiteRecord suite) => SaveEndedAsync(suite.Id, suite, $"Suite {suite.Id} ({suite.State})", () => inner.SaveSuiteAsync(suite));

    public Task SaveEndedAsync(ExperimentRecord experiment) =>
        SaveEndedAsync(experiment.Id, experiment, $"Experiment {experiment.Id} ({experiment.Lesson}, {experiment.State})", () => inner.SaveExperimentAsync(experiment));

    public Task SaveEndedAsync(CheckupRecord checkup) =>
        SaveEndedAsync(checkup.Id, checkup, $"Checkup {checkup.Id} ({checkup.Call}, {checkup.State})", () => inner.SaveCheckupAsync(checkup));

    /// <summary>At shutdown: stops the retries and tries each waiting record once more; logs each that is lost.</summary>
    public async Task FlushAsync()
    {
        await _stopping.CancelAsync();
        await Task.WhenAll(_pending.ToArray().Select(async entry =>
        {
            if (!await TryAsync(entry.Key, entry.Value))
            {
                LogLostAtShutdown(logger, entry.Value.What, entry.Value.LastError ?? "unknown");
            }
        }));
    }

    public void Dispose() => _stopping.Dispose();

    public Task SaveAsync(RunRecord run, CancellationToken cancellationToken = default) => inner.SaveAsync(run, cancellationToken);

    public async Task<RunRecord?> GetAsync(Guid id, CancellationToken cancellationToken = default) =>
        Pending<RunRecord>(id) ?? await inner.GetAsync(id, cancellationToken);

    public async Task<IReadOnlyList<RunRecord>> ListAsync(string? strategy, int limit, int offset, CancellationToken cancellationToken = default) =>
        Listed(await inner.ListAsync(strategy, limit, offset, cancellationToken));

    public Task<int> CountAsync(string? strategy, CancellationToken cancellationToken = default) => inner.CountAsync(strategy, cancellationToken);

    public async Task<IReadOnlyList<RunRecord>> ListSuiteRunsAsync(Guid suiteId, CancellationToken cancellationToken = default) =>
        Listed(await inner.ListSuiteRunsAsync(suiteId, cancellationToken));

    public async Task<bool> DeleteAsync(Guid id, CancellationToken cancellationToken = default)
    {
        var deleted = await inner.DeleteAsync(id, cancellationToken);
        return _pending.TryRemove(id, out _) || deleted;
    }

    public Task SaveSuiteAsync(SuiteRecord suite, CancellationToken cancellationToken = default) => inner.SaveSuiteAsync(suite, cancellationToken);

    public async Task<SuiteRecord?> GetSuiteAsync(Guid id, CancellationToken cancellationToken = default) =>
        Pending<SuiteRecord>(id) ?? await inner.GetSuiteAsync(id, cancellationToken);

    public async Task<IReadOnlyList<SuiteRecord>> ListComparisonsAsync(int limit, int offset, CancellationToken cancellationToken = default) =>
        [.. (await inner.ListComparisonsAsync(limit, offset, cancellationToken)).Select(suite => Pending<SuiteRecord>(suite.Id) ?? suite)];

    public Task<int> CountComparisonsAsync(CancellationToken cancellationToken = default) => inner.CountComparisonsAsync(cancellationToken);

    public Task SaveExperimentAsync(ExperimentRecord experiment, CancellationToken cancellationToken = default) => inner.SaveExperimentAsync(experiment, cancellationToken);

    public async Task<ExperimentRecord?> GetExperimentAsync(Guid id, CancellationToken cancellationToken = default) =>
        Pending<ExperimentRecord>(id) ?? await inner.GetExperimentAsync(id, cancellationToken);

    public async Task<IReadOnlyList<ExperimentRecord>> ListExperimentsAsync(string lesson, int limit, int offset, CancellationToken cancellationToken = default) =>
        [.. (await inner.ListExperimentsAsync(lesson, limit, offset, cancellationToken)).Select(experiment => Pending<ExperimentRecord>(experiment.Id) ?? experiment)];

    public Task<int> CountExperimentsAsync(string lesson, CancellationToken cancellationToken = default) => inner.CountExperimentsAsync(lesson, cancellationToken);

    public Task SaveCheckupAsync(CheckupRecord checkup, CancellationToken cancellationToken = default) => inner.SaveCheckupAsync(checkup, cancellationToken);

    public async Task<CheckupRecord?> GetCheckupAsync(Guid id, CancellationToken cancellationToken = default) =>
        Pending<CheckupRecord>(id) ?? await inner.GetCheckupAsync(id, cancellationToken);

    public async Task<IReadOnlyList<CheckupRecord>> ListCheckupsAsync(int limit, int offset, CancellationToken cancellationToken = default) =>
        [.. (await inner.ListCheckupsAsync(limit, offset, cancellationToken)).Select(checkup => Pending<CheckupRecord>(checkup.Id) ?? checkup)];

    public Task<int> CountCheckupsAsync(CancellationToken cancellationToken = default) => inner.CountCheckupsAsync(cancellationToken);

    private async Task SaveEndedAsync(Guid id, object record, string what, Func<Task> save)
    {
        // Served from memory from now on, so nobody sees the record Running while its write waits for a lock.
        var pending = new PendingSave(record, what, save);
        _pending[id] = pending;
        // SQLite's writes block their thread while they wait for a lock: hand control back first, so the caller stops
        // serving the record as Running now, not after the wait.
        await Task.Yield();
        if (await TryAsync(id, pending))
        {
            return;
        }

        LogNotStored(logger, what, pending.LastError ?? "unknown");
        _ = RetryAsync(id, pending);
    }

    // Polly backs off from FirstRetry, doubling up to LongestRetry, for as long as the record waits. SaveEndedAsync made
    // the first attempt: the pipeline's first call stands for it, so its failure starts the back-off.
    private async Task RetryAsync(Guid id, PendingSave pending)
    {
        var attempts = 0;
        var retry = new ResiliencePipelineBuilder<bool> { TimeProvider = time }.AddRetry(new RetryStrategyOptions<bool>
        {
            // A failed attempt (TryAsync catches every error and answers false) is retried while the record still waits.
            ShouldHandle = new PredicateBuilder<bool>().HandleResult(stored => !stored && IsWaiting(id, pending)),
            BackoffType = DelayBackoffType.Exponential,
            UseJitter = false,
            Delay = FirstRetry,
            MaxDelay = LongestRetry,
            MaxRetryAttempts = int.MaxValue,
        }).Build();
        try
        {
            if (await retry.ExecuteAsync(async _ => ++attempts > 1 && IsWaiting(id, pending) && await TryAsync(id, pending), _stopping.Token))
            {
                LogStoredLate(logger, pending.What, attempts);
            }
        }
        catch (OperationCanceledException)
        {
            // The gateway is stopping: FlushAsync tries once more.
        }
    }

    // A record deleted while it waited, or replaced by a newer one for its id (none today), is not written again.
    private bool IsWaiting(Guid id, PendingSave pending) => _pending.TryGetValue(id, out var current) && ReferenceEquals(current, pending);

    private async Task<bool> TryAsync(Guid id, PendingSave pending)
    {
        try
        {
            await pending.Save();
            // Only this record: a newer one for the same id (none today) would keep waiting.
            _pending.TryRemove(new KeyValuePair<Guid, PendingSave>(id, pending));
            return true;
        }
        catch (Exception failed)
        {
            pending.LastError = failed.Message;
            return false;
        }
    }

    private T? Pending<T>(Guid id) where T : class => _pending.TryGetValue(id, out var pending) ? pending.Record as T : null;

    // Lists carry no time series; the record in memory has it.
    private IReadOnlyList<RunRecord> Listed(IReadOnlyList<RunRecord> runs) =>
        [.. runs.Select(run => Pending<RunRecord>(run.Id) is { } ended ? ended with { Series = null } : run)];

    private sealed record PendingSave(object Record, string What, Func<Task> Save)
    {
        public string? LastError { get; set; }
    }

    [LoggerMessage(Level = LogLevel.Error, Message = "{What} ended but could not be stored in the history: {Error} It is served from memory and retried in the background until stored")]
    private static partial void LogNotStored(ILogger logger, string what, string error);

    [LoggerMessage(Level = LogLevel.Information, Message = "{What} is stored in the history now, at attempt {Attempts}")]
    private static partial void LogStoredLate(ILogger logger, string what, int attempts);

    [LoggerMessage(Level = LogLevel.Error, Message = "Shutdown: {What} could not be stored in the history and is lost: {Error}")]
    private static partial void LogLostAtShutdown(ILogger logger, string what, string error);
}
