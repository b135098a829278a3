using GrpcBestPractices.Tests.Fakes;
using LoadEngine;
using LoadEngine.Protocols;
using Microsoft.Extensions.Options;

namespace GrpcBestPractices.Tests.Protocols;

/// <summary>The engine running workload strategies against fake API clients: the loop, the checks, and how clients are made and disposed.</summary>
public sealed class WorkloadStrategyTests
{
    [Theory]
    [InlineData("sequential")]
    [InlineData("closed")]
    [InlineData("open")]
    [InlineData("ramping")]
    public async Task AWorkloadRunsUnderEveryLoadModelAndEveryCheckedAnswerIsASuccess(string load)
    {
        var api = new FakeWorkloadApi();

        // Under an arrival rate the concurrency is the most in flight: room for every call, so none is dropped on a busy machine.
        var run = await RunAsync(Plan("small-ints", load, count: 40, concurrency: load == "closed" ? 4 : 40), () => api);

        Assert.Equal(RunState.Completed, run.State);
        Assert.Equal(40, run.Stats!.Succeeded);
        Assert.Equal(40, api.Calls);
        Assert.Equal("grpc-h2-cleartext", run.Plan.Strategy);
        Assert.Contains("small-ints on gRPC contract-first · Protobuf · HTTP/2 · cleartext (h2c)", run.Measured);
    }

    [Theory]
    [InlineData("small-ints")]
    [InlineData("small-mixed")]
    [InlineData("big-list")]
    [InlineData("big-dto")]
    [InlineData("collection")]
    [InlineData("page")]
    [InlineData("log-write")]
    [InlineData("file-upload")]
    public async Task AnAnswerWhoseChecksumDiffersIsCountedAsDataLossNeverAsASuccess(string workload)
    {
        var api = new FakeWorkloadApi { Corrupt = call => call % 4 == 1 };

        var run = await RunAsync(Plan(workload, "sequential", count: 8, fileBytes: workload == "file-upload" ? 4096 : null), () => api);

        Assert.Equal(RunState.Completed, run.State);
        Assert.Equal(6, run.Stats!.Succeeded);
        Assert.Equal(2, run.Stats.StatusCounts["DataLoss"]);
        Assert.Equal(0.25, run.Stats.ErrorRate);
    }

    [Fact]
    public async Task ARunWhoseEveryAnswerIsWrongFailsSayingSo()
    {
        var run = await RunAsync(Plan("big-list", "sequential", count: 5), () => new FakeWorkloadApi { Corrupt = _ => true });

        Assert.Equal(RunState.Failed, run.State);
        Assert.StartsWith("No call succeeded (5 × DataLoss: '", run.Error);
    }

    [Fact]
    public async Task NewPerCallMakesAClientForEveryCallAndDisposesItAfterTheCall()
    {
        var made = new List<FakeWorkloadApi>();

        var run = await RunAsync(Plan("big-dto", "sequential", count: 6).WithWorkload(plan => plan with { Connection = ConnectionUse.NewPerCall }), () =>
        {
            var api = new FakeWorkloadApi();
            made.Add(api);
            return api;
        });

        Assert.Equal(6, run.Stats!.Succeeded);
        Assert.Equal(6, made.Count);
        Assert.All(made, api => Assert.True(api.Disposed && api.Calls == 1));
        Assert.Contains("disposed after the call: the 2020 study never disposed them; this one does.", run.Measured);
    }

    [Fact]
    public async Task CallsAreSpreadRoundRobinOverTheClientsAndEachIsDisposedWithTheStrategy()
    {
        var made = new List<FakeWorkloadApi>();
        var plan = Plan("log-write", "closed", count: 12, concurrency: 4).WithWorkload(plan => plan with { Clients = 3 });
        var strategy = Strategy(plan, () =>
        {
            var api = new FakeWorkloadApi();
            made.Add(api);
            return api;
        });

        var run = await RunAsync(plan, strategy);
        strategy.Dispose();

        Assert.Equal(12, run.Stats!.Succeeded);
        Assert.Equal([4, 4, 4], made.Select(api => api.Calls));
        Assert.All(made, api => Assert.True(api.Disposed));
    }

    [Fact]
    public async Task BulkReadReadsEveryPageAsOneCallAndAWrongPageFailsTheWholeRead()
    {
        var good = new FakeWorkloadApi();
        var bad = new FakeWorkloadApi { Corrupt = page => page == 7 };

        var read = await RunAsync(Plan("bulk-read", "sequential", count: 1).WithWorkload(plan => plan with { Variant = BulkReadVariant.Pages, Users = 20_000 }), () => good);
        var broken = await RunAsync(Plan("bulk-read", "sequential", count: 1).WithWorkload(plan => plan with { Variant = BulkReadVariant.Pages, Users = 20_000 }), () => bad);

        Assert.Equal((1, 20), (read.Stats!.Succeeded, good.Calls));
        Assert.Equal(1, broken.Stats!.StatusCounts["DataLoss"]);
    }

    [Fact]
    public async Task BulkReadAsAStreamChecksEveryMessage()
    {
        var plan = Plan("bulk-read", "sequential", count: 2).WithWorkload(plan => plan with { Variant = BulkReadVariant.Stream, Users = 3000 });

        var read = await RunAsync(plan, () => new FakeWorkloadApi());
        var broken = await RunAsync(plan, () => new FakeWorkloadApi { Corrupt = call => call == 1 });

        Assert.Equal(2, read.Stats!.Succeeded);
        Assert.Equal((1, 1L), (broken.Stats!.Succeeded, broken.Stats.StatusCounts["DataLoss"]));
    }

    private static RunPlan Plan(string workload, string load, int count, int concurrency = 1, long? fileBytes = null)
    {
        var input = new PlanText(null, count.ToString(System.Globalization.CultureInfo.InvariantCulture), load is "closed" or "open" or "ramping" ? concurrency.ToString(System.Globalization.CultureInfo.InvariantCulture) : null)
        {
            Workload = workload,
            Protocol = "grpc",
            Load = load,
            Rate = load == "open" ? "400" : null,
            Stages = load == "ramping" ? "0.4:400" : null,
            FileBytes = fileBytes?.ToString(System.Globalization.CultureInfo.InvariantCulture),
        };
        Assert.True(PlanText.TryCreate(input, PlanLimits.Defaults, [], out var plan, out var error), error);
        return plan;
    }

    private static WorkloadStrategy Strategy(RunPlan plan, Func<IWorkloadApi> connect) =>
        new(WorkloadList.Find(plan.Workload!.Id)!, plan.Workload.Contender!, plan, connect, new WireCounter());

    private static Task<RunRecord> RunAsync(RunPlan plan, Func<IWorkloadApi> connect) => RunAsync(plan, Strategy(plan, connect));

    private static Task<RunRecord> RunAsync(RunPlan plan, WorkloadStrategy strategy)
    {
        // A fake answers when a busy machine lets it: only SilenceTests judge silence.
        var engine = new RunEngine(Options.Create(new EngineOptions { SilenceTimeout = TimeSpan.FromMinutes(2), CallTimeout = TimeSpan.FromMinutes(2) }));
        return engine.ExecuteAsync(strategy, new RunRecord(Guid.NewGuid(), plan, RunState.Running, DateTimeOffset.UtcNow, null, null, null, null), new LiveRun(), CancellationToken.None);
    }
}
