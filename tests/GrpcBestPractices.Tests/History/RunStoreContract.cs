using HistoryStore;
using ApiGateway.History;
using ApiGateway.Runs;
using LoadEngine.Checkup;
using LoadEngine.Lessons;
using static GrpcBestPractices.Tests.History.StoredRecords;

namespace GrpcBestPractices.Tests.History;

/// <summary>
/// What every run history does, whichever store keeps it: each subclass runs these against its real store (a SQLite
/// file, a PostgreSQL database), fresh for each test.
/// </summary>
public abstract partial class RunStoreContract : IAsyncLifetime
{

    /// <summary>Times come back to the microsecond, the finest both stores keep (PostgreSQL's timestamptz).</summary>
    private static readonly DateTimeOffset NoonAndAFraction = Noon.AddTicks(1_234_560);

    /// <summary>Every store the test opened, closed when it ends.</summary>
    protected List<IDisposable> Stores { get; } = [];

    [Fact]
    public async Task AFullRunWithStatsAndHistogramComesBackAsItWasSaved()
    {
        var store = await OpenStoreAsync();
        var run = Run("streaming-call", NoonAndAFraction, RunState.Completed, suiteId: Guid.NewGuid()) with
        {
            FinishedAt = Noon.AddSeconds(2).AddTicks(70),
            Stats = FullStats(),
            Measured = "100 sequential calls after 10 warm-up calls",
            Series = Series(),
            Verdict = new Verdict(false, [new ThresholdResult("p99<1ms", "p99", "<", 1, "ms", 1.7, false), new ThresholdResult("rps>1", "rps", ">", 1, "/s", null, false) { Reason = "none" }]),
            ExperimentId = Guid.NewGuid(),
            Note = "3 of 100 calls failed to connect (Unavailable: Error connecting to subchannel) while the service kept answering: the other 97 succeeded.",
        };

        await store.SaveAsync(run);
        var loaded = await store.GetAsync(run.Id);

        Assert.NotNull(loaded);
        Assert.Equal(Json(run), Json(loaded));
    }

    [Fact]
    public async Task ListsLeaveTheTimeSeriesOutAndGetHasIt()
    {
        var store = await OpenStoreAsync();
        var suiteId = Guid.NewGuid();
        var run = Run("client-wrapper", Noon, RunState.Completed, suiteId) with { Series = Series() };
        await store.SaveAsync(run);

        Assert.Null(Assert.Single(await store.ListAsync(null, 10, 0)).Series);
        Assert.Null(Assert.Single(await store.ListSuiteRunsAsync(suiteId)).Series);
        Assert.Equal(Json(run.Series), Json((await store.GetAsync(run.Id))?.Series));
    }

    [Fact]
    public async Task AnUnknownIdIsNull()
    {
        var store = await OpenStoreAsync();

        Assert.Null(await store.GetAsync(Guid.NewGuid()));
        Assert.Null(await store.GetSuiteAsync(Guid.NewGuid()));
        Assert.Null(await store.GetExperimentAsync(Guid.NewGuid()));
        Assert.Null(await store.GetCheckupAsync(Guid.NewGuid()));
    }

    [Fact]
    public async Task SavingTheSameIdAgainReplacesTheRun()
    {
        var store = await OpenStoreAsync();
        var running = Run("client-wrapper", Noon);

        await store.SaveAsync(running);
        await store.SaveAsync(running with { State = RunState.Failed, FinishedAt = Noon.AddSeconds(1), Error = "Unavailable" });

        Assert.Equal(1, await store.CountAsync(null));
        var loaded = await store.GetAsync(running.Id);
        Assert.Equal(RunState.Failed, loaded?.State);
        Assert.Equal("Unavailable", loaded?.Error);
    }

    [Fact]
    public async Task ListIsNewestFirstByStartTimeWhateverTheOffsetItWasGivenIn()
    {
        var store = await OpenStoreAsync();
        // 11:00+02:00 is 09:00 UTC: older than 10:00 UTC although its clock reads later.
        var oldest = Run("client-wrapper", new DateTimeOffset(2026, 11, 22, 11, 0, 0, TimeSpan.FromHours(2)));
        var newest = Run("client-wrapper", new DateTimeOffset(2026, 11, 22, 11, 30, 0, TimeSpan.Zero));
        var middle = Run("streaming-call", new DateTimeOffset(2026, 11, 22, 10, 0, 0, TimeSpan.Zero));
        foreach (var run in new[] { middle, oldest, newest })
        {
            await store.SaveAsync(run);
        }

        var all = await store.ListAsync(null, 10, 0);

        Assert.Equal([newest.Id, middle.Id, oldest.Id], all.Select(r => r.Id));
    }

    [Fact]
    public async Task RunsThatStartedAtTheSameInstantListTheLatestSavedFirst()
    {
        var store = await OpenStoreAsync();
        var first = Run("client-wrapper", Noon);
        var second = Run("client-wrapper", Noon);
        await store.SaveAsync(first);
        await store.SaveAsync(second);
        Assert.Equal([second.Id, first.Id], (await store.ListAsync(null, 10, 0)).Select(r => r.Id));

        // Saving a run again (as it ends) makes it the latest saved.
        await store.SaveAsync(first with { State = RunState.Completed });

        Assert.Equal([first.Id, second.Id], (await store.ListAsync(null, 10, 0)).Select(r => r.Id));
    }

    [Fact]
    public async Task ListAndCountCanBeLimitedToOneStrategy()
    {
        var store = await OpenStoreAsync();
        await SaveRunsAsync(store, "client-wrapper", 3);
        await SaveRunsAsync(store, "streaming-call", 2);

        var streaming = await store.ListAsync("streaming-call", 10, 0);

        Assert.Equal(2, streaming.Count);
        Assert.All(streaming, run => Assert.Equal("streaming-call", run.Plan.Strategy));
        Assert.Equal(2, await store.CountAsync("streaming-call"));
        Assert.Equal(5, await store.CountAsync(null));
        Assert.Equal(0, await store.CountAsync("no-such-strategy"));
        Assert.Empty(await store.ListAsync("no-such-strategy", 10, 0));
    }

    [Fact]
    public async Task ListPagesWithLimitAndOffset()
    {
        var store = await OpenStoreAsync();
        var saved = await SaveRunsAsync(store, "client-wrapper", 7);
        var newestFirst = saved.OrderByDescending(r => r.StartedAt).Select(r => r.Id).ToArray();

        var first = await store.ListAsync(null, 3, 0);
        var second = await store.ListAsync(null, 3, 3);
        var last = await store.ListAsync(null, 3, 6);
        var beyond = await store.ListAsync(null, 3, 7);

        Assert.Equal(newestFirst[..3], first.Select(r => r.Id));
        Assert.Equal(newestFirst[3..6], second.Select(r => r.Id));
        Assert.Equal(newestFirst[6..], last.Select(r => r.Id));
        Assert.Empty(beyond);
        Assert.Equal(7, await store.CountAsync(null));
    }

    [Fact]
    public async Task DeleteRemovesARunOnceThenFindsNothingToDelete()
    {
        var store = await OpenStoreAsync();
        var kept = Run("client-wrapper", Noon);
        var deleted = Run("client-wrapper", Noon.AddMinutes(1));
        await store.SaveAsync(kept);
        await store.SaveAsync(deleted);

        Assert.True(await store.DeleteAsync(deleted.Id));
        Assert.False(await store.DeleteAsync(deleted.Id));

        Assert.Null(await store.GetAsync(deleted.Id));
        Assert.Equal([kept.Id], (await store.ListAsync(null, 10, 0)).Select(r => r.Id));
    }

    [Fact]
    public async Task ASuiteComesBackWithItsRunsInTheOrderTheyStarted()
    {
        var store = await OpenStoreAsync();
        var suite = new SuiteRecord(Guid.NewGuid(), Plan("client-wrapper"), ["client-wrapper", "streaming-call", "single-connection"], RunState.Completed, Noon, Noon.AddMinutes(3), null);
        var runs = suite.Strategies.Select((strategy, i) => Run(strategy, Noon.AddMinutes(i), RunState.Completed, suite.Id)).ToArray();
        // Saved out of order, and next to a run of no suite, so the order and the filter both have to come from the query.
        foreach (var run in runs.Reverse().Append(Run("client-wrapper", Noon.AddSeconds(30))))
        {
            await store.SaveAsync(run);
        }

        await store.SaveSuiteAsync(suite);

        Assert.Equal(Json(suite), Json(await store.GetSuiteAsync(suite.Id)));
        Assert.Equal(runs.Select(r => r.Id), (await store.ListSuiteRunsAsync(suite.Id)).Select(r => r.Id));
        Assert.Empty(await store.ListSuiteRunsAsync(Guid.NewGuid()));
    }

    [Fact]
    public async Task AComparisonKeepsItsContendersAndRepetitionsAndOnlyComparisonsAreListedNewestFirst()
    {
        var store = await OpenStoreAsync();
        var comparison = new ComparisonPlan(["grpc-h2-cleartext", "rest-stj-h1-cleartext"], 2);
        var older = Comparison(comparison, Noon);
        var newer = Comparison(comparison, Noon.AddMinutes(5));
        await store.SaveSuiteAsync(newer);
        await store.SaveSuiteAsync(older);
        await store.SaveSuiteAsync(new SuiteRecord(Guid.NewGuid(), Plan("client-wrapper"), ["client-wrapper"], RunState.Completed, Noon.AddMinutes(9), null, null));

        Assert.Equal(Json(newer), Json(await store.GetSuiteAsync(newer.Id)));
        Assert.Equal([newer.Id, older.Id], (await store.ListComparisonsAsync(10, 0)).Select(suite => suite.Id));
        Assert.Equal([older.Id], (await store.ListComparisonsAsync(10, 1)).Select(suite => suite.Id));
        Assert.Equal(2, await store.CountComparisonsAsync());
    }

    [Fact]
    public async Task ALessonsExperimentsComeBackNewestFirstAndApartFromOtherLessons()
    {
        var store = await OpenStoreAsync();
        var older = Experiment("streaming", Noon);
        var newer = Experiment("streaming", Noon.AddMinutes(1));
        var other = Experiment("keep-alive", Noon.AddMinutes(2));
        foreach (var experiment in new[] { newer, other, older })
        {
            await store.SaveExperimentAsync(experiment);
        }

        await store.SaveExperimentAsync(older with { State = RunState.Completed, FinishedAt = Noon.AddSeconds(30) });

        Assert.Equal(Json(newer), Json(await store.GetExperimentAsync(newer.Id)));
        Assert.Equal(RunState.Completed, (await store.GetExperimentAsync(older.Id))?.State);
        Assert.Equal([newer.Id, older.Id], (await store.ListExperimentsAsync("streaming", 10, 0)).Select(experiment => experiment.Id));
        Assert.Equal([older.Id], (await store.ListExperimentsAsync("streaming", 10, 1)).Select(experiment => experiment.Id));
        Assert.Equal(2, await store.CountExperimentsAsync("streaming"));
        Assert.Equal(0, await store.CountExperimentsAsync("no-such-lesson"));
    }

    [Fact]
    public async Task CheckupsComeBackNewestFirstPagedAndAnEndedOneReplacesItsRunningRecord()
    {
        var store = await OpenStoreAsync();
        var older = Checkup("grpcjs", Noon);
        var newer = Checkup(null, Noon.AddMinutes(1));
        var newest = Checkup("grpcjs", Noon.AddMinutes(2));
        // Saved out of time order, so the order has to come from the query.
        foreach (var checkup in new[] { newer, newest, older })
        {
            await store.SaveCheckupAsync(checkup);
        }

        var ended = Ended(older);
        await store.SaveCheckupAsync(ended);

        Assert.Equal(Json(ended), Json(await store.GetCheckupAsync(older.Id)));
        Assert.Equal(Json(newer), Json(await store.GetCheckupAsync(newer.Id)));
        Assert.Equal([newest.Id, newer.Id, older.Id], (await store.ListCheckupsAsync(10, 0)).Select(checkup => checkup.Id));
        Assert.Equal([newer.Id], (await store.ListCheckupsAsync(1, 1)).Select(checkup => checkup.Id));
        Assert.Empty(await store.ListCheckupsAsync(10, 3));
        Assert.Equal(Json(ended), Json((await store.ListCheckupsAsync(1, 2)).Single()));
        Assert.Equal(3, await store.CountCheckupsAsync());
    }

    [Fact]
    public async Task AHistoryFromBeforeCheckupsKeepsItsExperimentsAndGainsCheckupsAtStart()
    {
        var experiment = Experiment("keep-alive", Noon) with { State = RunState.Completed, FinishedAt = Noon.AddSeconds(30) };
        var before = await OpenStoreAsync();
        await before.SaveExperimentAsync(experiment);
        before.Dispose();
        await MakeOlderThanCheckupsAsync();

        var after = await OpenStoreAsync();

        Assert.Equal(Json(experiment), Json(await after.GetExperimentAsync(experiment.Id)));
        var checkup = Checkup("grpcjs", Noon);
        await after.SaveCheckupAsync(checkup);
        Assert.Equal(Json(checkup), Json(Assert.Single(await after.ListCheckupsAsync(10, 0))));
    }

    [Fact]
    public async Task RunsSurviveANewStoreOnTheSameDatabase()
    {
        var before = await OpenStoreAsync();
        var run = Run("client-wrapper", Noon, RunState.Completed) with { Stats = FullStats() };
        await before.SaveAsync(run);
        // What a gateway stop does: every connection closed.
        ((IDisposable)before).Dispose();

        var after = await OpenStoreAsync();

        Assert.Equal(Json(run), Json(await after.GetAsync(run.Id)));
        Assert.Equal(1, await after.CountAsync(null));
    }

    [Fact]
    public async Task MarkInterruptedFailsWhatWasStillRunningAndLeavesTheRestAlone()
    {
        var store = await OpenStoreAsync();
        var running = Run("client-wrapper", Noon);
        var completed = Run("client-wrapper", Noon, RunState.Completed) with { FinishedAt = Noon.AddSeconds(1), Stats = FullStats() };
        var runningSuite = new SuiteRecord(Guid.NewGuid(), Plan("client-wrapper"), ["client-wrapper"], RunState.Running, Noon, null, null);
        var runningExperiment = Experiment("streaming", Noon);
        var runningCheckup = Checkup("grpcjs", Noon);
        var endedCheckup = Ended(Checkup(null, Noon));
        await store.SaveCheckupAsync(runningCheckup);
        await store.SaveCheckupAsync(endedCheckup);
        await store.SaveAsync(running);
        await store.SaveAsync(completed);
        await store.SaveSuiteAsync(runningSuite);
        await store.SaveExperimentAsync(runningExperiment);
        var before = ToMicrosecond(DateTimeOffset.UtcNow);

        Assert.Equal(4, await store.MarkInterruptedAsync());

        var interrupted = await store.GetAsync(running.Id);
        Assert.Equal(RunState.Failed, interrupted?.State);
        Assert.Equal("The gateway stopped before this run finished.", interrupted?.Error);
        Assert.InRange(interrupted?.FinishedAt ?? default, before, DateTimeOffset.UtcNow);
        var suite = await store.GetSuiteAsync(runningSuite.Id);
        Assert.Equal(RunState.Failed, suite?.State);
        Assert.Equal("The gateway stopped before this run finished.", suite?.Error);
        Assert.NotNull(suite?.FinishedAt);
        var experiment = await store.GetExperimentAsync(runningExperiment.Id);
        Assert.Equal((RunState.Failed, RunStore.InterruptedError), (experiment?.State, experiment?.Error));
        Assert.InRange(experiment?.FinishedAt ?? default, before, DateTimeOffset.UtcNow);
        Assert.Equal(Json(runningExperiment.Samples), Json(experiment?.Samples));
        var checkup = await store.GetCheckupAsync(runningCheckup.Id);
        Assert.Equal((RunState.Failed, RunStore.InterruptedError), (checkup?.State, checkup?.Error));
        Assert.InRange(checkup?.FinishedAt ?? default, before, DateTimeOffset.UtcNow);
        Assert.Equal(Json(runningCheckup.Experiments), Json(checkup?.Experiments));
        Assert.Equal(Json(endedCheckup), Json(await store.GetCheckupAsync(endedCheckup.Id)));
        Assert.Equal(Json(completed), Json(await store.GetAsync(completed.Id)));
        Assert.Equal(0, await store.MarkInterruptedAsync());
    }

    [Fact]
    public async Task TwoHundredConcurrentSavesAreAllStored()
    {
        var store = await OpenStoreAsync();
        var runs = Enumerable.Range(0, 200).Select(i => Run("single-connection", Noon.AddMilliseconds(i), RunState.Completed) with { Stats = FullStats() }).ToArray();

        await Task.WhenAll(runs.Select(run => Task.Run(() => store.SaveAsync(run))));

        Assert.Equal(200, await store.CountAsync(null));
        var listed = await store.ListAsync(null, 500, 0);
        Assert.Equal(runs.Select(r => r.Id).Order(), listed.Select(r => r.Id).Order());
    }

    [Fact]
    public async Task ACallerWhoCancelsDoesNotCancelTheWrite()
    {
        var store = await OpenStoreAsync();
        var run = Run("client-wrapper", Noon, RunState.Cancelled);

        await store.SaveAsync(run, new CancellationToken(canceled: true));

        Assert.NotNull(await store.GetAsync(run.Id));
    }

    public virtual Task InitializeAsync() => Task.CompletedTask;

    public virtual async Task DisposeAsync()
    {
        foreach (var store in _agentStores)
        {
            await store.DisposeAsync();
        }

        foreach (var store in Stores)
        {
            store.Dispose();
        }
    }

    /// <summary>A store on this test's own database, its schema made; each call opens another store on the same database.</summary>
    protected async Task<RunStore> OpenStoreAsync()
    {
        var store = new RunStore(OpenDatabase());
        Stores.Add(store);
        await store.InitializeAsync();
        return store;
    }

    /// <summary>This test's database, opened anew: for a store, or for SQL of the test's own.</summary>
    protected abstract HistoryDatabase OpenDatabase();

    /// <summary>Takes this test's database back to the schema version before checkups: their table gone, the version that made it forgotten.</summary>
    protected abstract Task MakeOlderThanCheckupsAsync();

    private static DateTimeOffset ToMicrosecond(DateTimeOffset time) => time.AddTicks(-(time.Ticks % TimeSpan.TicksPerMicrosecond));

    private static async Task<RunRecord[]> SaveRunsAsync(IRunStore store, string strategy, int count)
    {
        // Saved out of time order, so the order has to come from the query.
        var runs = Enumerable.Range(0, count).Select(i => Run(strategy, Noon.AddMinutes(i % 2 == 0 ? i : -i))).ToArray();
        foreach (var run in runs)
        {
            await store.SaveAsync(run);
        }

        return runs;
    }

    private static TimeSeries Series() =>
        new(1000, [new TimePoint(1000, 500, 1, new Dictionary<string, long> { ["Unavailable"] = 1 }, 0.1, 0.2, 0.3, 0.9), new TimePoint(2000, 499, 0, new Dictionary<string, long>(), null, null, null, null)]);

    private static CheckupRecord Checkup(string? target, DateTimeOffset startedAt) =>
        new(Guid.NewGuid(), RunState.Running, startedAt, null, null, "http://127.0.0.1:50051", "performance.Monitor/GetPerformance", 120, 4)
        {
            Target = target,
            StreamCall = "performance.Monitor/GetManyPerformanceStats",
            Step = "3 of 7: the capacity sweep, 8 in flight",
            Experiments = [Experiment("reuse-channel", startedAt)],
        };

    /// <summary>The checkup as it ends: every part a stored record holds, the sweep and a judged item naming its runs.</summary>
    private static CheckupRecord Ended(CheckupRecord running)
    {
        var knee = new SweepStep(4, 3200.5, 1.1, 2.5, 4.75, 16_000, 0, Guid.NewGuid());
        var item = new CheckupItem("reuse-channel", 1, "Reuse one channel", CheckupOutcome.Advice, "Make one GrpcChannel and reuse it for every call.",
            new CheckupMeasure("shared-channel", "channel-per-call", "wallTimeMs", 2.91, new RatioRange(2.5, 3.2), [2.5, 2.91, 3.2], true, "2.91× slower (median of 3, 2.5 to 3.2)"),
            new CheckupSaving(1.25, "ms per call", "1.25 ms saved on each call at 4 in flight."),
            "var channel = GrpcChannel.ForAddress(address);", 0.66)
        {
            ExperimentId = running.Experiments[0].Id,
            Runs = [Guid.NewGuid(), Guid.NewGuid()],
        };
        return running with
        {
            State = RunState.Completed,
            FinishedAt = running.StartedAt.AddMinutes(2),
            Step = null,
            Sweep = new SweepResult([new SweepStep(1, 900, 1, 1.5, 2, 4_000, 0, Guid.NewGuid()), knee], 50, "calls per second grew by less than 10%") { Knee = knee, StreamsPerConnection = 3.5 },
            Items = [item, new CheckupItem("streaming", 5, "Stream the calls", CheckupOutcome.NotApplicable, "The target has no bidirectional method of these types.", null, null, null, 0)],
            Caveats = ["Measured on loopback."],
        };
    }

    private static ExperimentRecord Experiment(string lesson, DateTimeOffset startedAt) =>
        new(Guid.NewGuid(), lesson, RunState.Running, startedAt, null, null, 3,
            [new ExperimentSample(1, "shared-channel", Guid.NewGuid(), RunState.Completed, new Dictionary<string, double> { ["wallTimeMs"] = 12.5 }, null)]);
}
