using ApiGateway.History;
using ApiGateway.Runs;
using GrpcBestPractices.Tests.Fakes;
using LoadEngine.Checkup;
using LoadEngine.Lessons;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Time.Testing;

namespace GrpcBestPractices.Tests.Faults;

/// <summary>The history's retries of an ended run, against a store that refuses writes until told otherwise and a fake clock.</summary>
public sealed class DurableRunStoreTests
{
    [Fact]
    public async Task RefusedRunIsServedFromMemoryAndStoredOnceTheHistoryTakesWritesAgain()
    {
        var (inner, time, log, store) = Create();
        var stored = SampleRuns.Completed("client-wrapper");
        await inner.SaveAsync(stored with { State = RunState.Running, Stats = null });
        inner.Refuse = true;

        await store.SaveEndedAsync(stored);

        Assert.Equal(RunState.Completed, (await store.GetAsync(stored.Id))?.State);
        Assert.Equal(RunState.Completed, Assert.Single(await store.ListAsync(null, 10, 0)).State);
        Assert.Null(Assert.Single(await store.ListAsync(null, 10, 0)).Series);
        Assert.Equal(RunState.Running, inner.Runs[stored.Id].State);
        Assert.Equal(1, store.PendingCount);

        inner.Refuse = false;
        time.Advance(DurableRunStore.FirstRetry);

        await WaitUntilAsync(() => store.PendingCount == 0);
        Assert.Equal(RunState.Completed, inner.Runs[stored.Id].State);
        Assert.Equal(stored.Stats, inner.Runs[stored.Id].Stats);
    }

    [Fact]
    public async Task EndedRunIsServedBeforeAWriteThatBlocksItsThreadReturns()
    {
        var (inner, _, _, store) = Create();
        using var release = new ManualResetEventSlim();
        inner.Blocking = release;
        var run = SampleRuns.Completed("client-wrapper");

        // Microsoft.Data.Sqlite waits for a lock synchronously, inside the call that starts the write.
        var started = System.Diagnostics.Stopwatch.GetTimestamp();
        var returned = store.SaveEndedAsync(run);

        Assert.InRange(System.Diagnostics.Stopwatch.GetElapsedTime(started), TimeSpan.Zero, TimeSpan.FromSeconds(5));
        Assert.False(returned.IsCompleted);
        Assert.Equal(RunState.Completed, (await store.GetAsync(run.Id))?.State);
        release.Set();
        await returned.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal(RunState.Completed, inner.Runs[run.Id].State);
    }

    [Fact]
    public async Task RetriesBackOffToTheLongestIntervalAndTheFailureIsLoggedOnce()
    {
        var (inner, time, log, store) = Create();
        inner.Refuse = true;
        var run = SampleRuns.Completed("streaming-call");

        await store.SaveEndedAsync(run);
        // 0.5, 1, 2, 4, 8, 16, 30, 30 s: each attempt only when its back-off has passed.
        var expected = new[] { 0.5, 1, 2, 4, 8, 16, 30, 30 };
        for (var retry = 0; retry < expected.Length; retry++)
        {
            var wait = TimeSpan.FromSeconds(expected[retry]);
            var now = time.GetUtcNow();
            await WaitUntilAsync(() => time.NextTimerDueAt == now + wait);
            time.Advance(wait - TimeSpan.FromMilliseconds(1));
            Assert.Equal(retry + 1, inner.RunAttempts);
            time.Advance(TimeSpan.FromMilliseconds(1));
            var attempts = retry + 2;
            await WaitUntilAsync(() => inner.RunAttempts == attempts);
        }

        Assert.Single(log.Errors);
        Assert.Contains("could not be stored", log.Errors[0]);
        Assert.Equal(1, store.PendingCount);
    }

    [Fact]
    public async Task ARunDeletedWhileItsWriteWaitsIsNotWrittenAgain()
    {
        var (inner, time, _, store) = Create();
        inner.Refuse = true;
        var deleted = SampleRuns.Completed("client-wrapper");
        var kept = SampleRuns.Completed("streaming-call");
        await store.SaveEndedAsync(deleted);
        await store.SaveEndedAsync(kept);
        await WaitUntilAsync(() => time.NextTimerDueAt == time.GetUtcNow() + DurableRunStore.FirstRetry);

        Assert.True(await store.DeleteAsync(deleted.Id));
        inner.Refuse = false;
        time.Advance(DurableRunStore.FirstRetry);

        // Both waits end at the same instant: once the kept run is stored, the deleted one has had its turn.
        await WaitUntilAsync(() => store.PendingCount == 0 && inner.Runs.ContainsKey(kept.Id));
        Assert.False(inner.Runs.ContainsKey(deleted.Id));
        Assert.Null(await store.GetAsync(deleted.Id));
    }

    [Fact]
    public async Task SuitesAndExperimentsThatEndedAreServedFromMemoryToo()
    {
        var (inner, _, _, store) = Create();
        var suite = new SuiteRecord(Guid.NewGuid(), SampleRuns.Plan("client-wrapper"), ["client-wrapper"], RunState.Running, SampleRuns.Started, null, null)
        {
            Comparison = null,
        };
        await inner.SaveSuiteAsync(suite);
        inner.Refuse = true;

        await store.SaveEndedAsync(suite with { State = RunState.Completed, FinishedAt = SampleRuns.Started.AddSeconds(5) });

        Assert.Equal(RunState.Completed, (await store.GetSuiteAsync(suite.Id))?.State);
        Assert.Equal(RunState.Running, inner.Suites[suite.Id].State);
    }

    [Fact]
    public async Task ShutdownTriesOnceMoreAndLogsWhatIsLost()
    {
        var (inner, _, log, store) = Create();
        inner.Refuse = true;
        var kept = SampleRuns.Completed("client-wrapper");
        var lost = SampleRuns.Completed("initialized-client");
        await store.SaveEndedAsync(kept);
        await store.SaveEndedAsync(lost);
        inner.RefuseOnly = lost.Id;

        await store.FlushAsync();

        Assert.Equal(RunState.Completed, inner.Runs[kept.Id].State);
        Assert.False(inner.Runs.ContainsKey(lost.Id));
        Assert.Single(log.Errors, line => line.Contains("Shutdown") && line.Contains(lost.Id.ToString()));
        Assert.Equal(1, store.PendingCount);
    }

    private static (RefusingStore Inner, RetryClock Time, ListLogger Log, DurableRunStore Store) Create()
    {
        var inner = new RefusingStore();
        var time = new RetryClock();
        var log = new ListLogger();
        return (inner, time, log, new DurableRunStore(inner, time, log));
    }

    private static async Task WaitUntilAsync(Func<bool> condition)
    {
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(10);
        while (!condition())
        {
            Assert.True(DateTime.UtcNow < deadline, "the condition did not hold in time");
            await Task.Delay(5);
        }
    }

    /// <summary>A fake clock that tells when the latest back-off it was asked to wait ends: the test may move on once Polly waits.</summary>
    private sealed class RetryClock : FakeTimeProvider
    {
        private long _nextTimerDueAtTicks;

        public DateTimeOffset NextTimerDueAt => new(Interlocked.Read(ref _nextTimerDueAtTicks), TimeSpan.Zero);

        public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
        {
            var timer = base.CreateTimer(callback, state, dueTime, period);
            Interlocked.Exchange(ref _nextTimerDueAtTicks, (GetUtcNow() + dueTime).UtcTicks);
            return timer;
        }
    }

    private sealed class ListLogger : ILogger<DurableRunStore>
    {
        private readonly List<string> _errors = [];

        public IReadOnlyList<string> Errors
        {
            get
            {
                lock (_errors)
                {
                    return [.. _errors];
                }
            }
        }

        public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            if (logLevel >= LogLevel.Error)
            {
                lock (_errors)
                {
                    _errors.Add(formatter(state, exception));
                }
            }
        }
    }

    /// <summary>Keeps records in memory; while <see cref="Refuse"/> is set (or for <see cref="RefuseOnly"/>), writes fail as a locked SQLite file's do.</summary>
    private sealed class RefusingStore : IRunStore
    {
        private int _runAttempts;

        public volatile bool Refuse;

        public Guid? RefuseOnly { get; set; }

        public System.Collections.Concurrent.ConcurrentDictionary<Guid, RunRecord> Runs { get; } = new();

        public System.Collections.Concurrent.ConcurrentDictionary<Guid, SuiteRecord> Suites { get; } = new();

        public int RunAttempts => Volatile.Read(ref _runAttempts);

        public ManualResetEventSlim? Blocking { get; set; }

        public Task SaveAsync(RunRecord run, CancellationToken cancellationToken = default)
        {
            Blocking?.Wait(TimeSpan.FromSeconds(30));
            Interlocked.Increment(ref _runAttempts);
            Write(run.Id);
            Runs[run.Id] = run;
            return Task.CompletedTask;
        }

        public Task SaveSuiteAsync(SuiteRecord suite, CancellationToken cancellationToken = default)
        {
            Write(suite.Id);
            Suites[suite.Id] = suite;
            return Task.CompletedTask;
        }

        public Task SaveExperimentAsync(ExperimentRecord experiment, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<RunRecord?> GetAsync(Guid id, CancellationToken cancellationToken = default) => Task.FromResult(Runs.GetValueOrDefault(id));

        public Task<IReadOnlyList<RunRecord>> ListAsync(string? strategy, int limit, int offset, CancellationToken cancellationToken = default) =>
            Task.FromResult<IReadOnlyList<RunRecord>>([.. Runs.Values]);

        public Task<int> CountAsync(string? strategy, CancellationToken cancellationToken = default) => Task.FromResult(Runs.Count);

        public Task<IReadOnlyList<RunRecord>> ListSuiteRunsAsync(Guid suiteId, CancellationToken cancellationToken = default) =>
            Task.FromResult<IReadOnlyList<RunRecord>>([.. Runs.Values.Where(run => run.SuiteId == suiteId)]);

        public Task<bool> DeleteAsync(Guid id, CancellationToken cancellationToken = default) => Task.FromResult(Runs.TryRemove(id, out _));

        public Task<SuiteRecord?> GetSuiteAsync(Guid id, CancellationToken cancellationToken = default) => Task.FromResult(Suites.GetValueOrDefault(id));

        public Task<IReadOnlyList<SuiteRecord>> ListComparisonsAsync(int limit, int offset, CancellationToken cancellationToken = default) =>
            Task.FromResult<IReadOnlyList<SuiteRecord>>([]);

        public Task<int> CountComparisonsAsync(CancellationToken cancellationToken = default) => Task.FromResult(0);

        public Task<ExperimentRecord?> GetExperimentAsync(Guid id, CancellationToken cancellationToken = default) => Task.FromResult<ExperimentRecord?>(null);

        public Task<IReadOnlyList<ExperimentRecord>> ListExperimentsAsync(string lesson, int limit, int offset, CancellationToken cancellationToken = default) =>
            Task.FromResult<IReadOnlyList<ExperimentRecord>>([]);

        public Task<int> CountExperimentsAsync(string lesson, CancellationToken cancellationToken = default) => Task.FromResult(0);

        public Task SaveCheckupAsync(CheckupRecord checkup, CancellationToken cancellationToken = default) => throw new NotSupportedException();

        public Task<CheckupRecord?> GetCheckupAsync(Guid id, CancellationToken cancellationToken = default) => Task.FromResult<CheckupRecord?>(null);

        public Task<IReadOnlyList<CheckupRecord>> ListCheckupsAsync(int limit, int offset, CancellationToken cancellationToken = default) =>
            Task.FromResult<IReadOnlyList<CheckupRecord>>([]);

        public Task<int> CountCheckupsAsync(CancellationToken cancellationToken = default) => Task.FromResult(0);

        private void Write(Guid id)
        {
            if ((Refuse && RefuseOnly is null) || RefuseOnly == id)
            {
                throw new IOException("database is locked");
            }
        }
    }
}
