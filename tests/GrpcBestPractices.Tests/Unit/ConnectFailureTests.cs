using System.Diagnostics;
using System.Net.Sockets;
using Grpc.Core;
using GrpcBestPractices.Tests.Fakes;
using LoadEngine;
using LoadEngine.Calls;
using LoadEngine.Strategies;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using Performance;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>
/// Calls that fail to connect (Unavailable): a dead address fails the run at once, a service that goes away mid-run fails
/// it saying what was seen, and a storm that some connections lose while the service keeps answering is a finding.
/// </summary>
public sealed class ConnectFailureTests
{
    private static readonly TimeSpan Silence = TimeSpan.FromMilliseconds(300);

    [Fact]
    public async Task ACallThatFailsToConnectBeforeAnyHasSucceededStopsTheRunAtOnceSayingSo()
    {
        var client = new FakeMonitorClient { Answer = (_, _) => Task.FromException<PerformanceStatusResponse>(Refused()) };

        var run = await RunAsync(client, Plan(LoadKind.Sequential, count: 100));

        Assert.Single(client.Calls);
        Assert.Equal(RunState.Failed, run.State);
        Assert.Matches(
            @"^The service is unreachable: Error connecting to subchannel \(Connection refused\)\. No call had succeeded yet; 1 call failed to connect, the first [\d.]+ s into the run\.$",
            run.Error);
        Assert.Null(run.Note);
    }

    [Fact]
    public async Task CallsThatFailToConnectWhileOthersKeepSucceedingAreCountedAndTheRunCompletesWithANoteSayingSo()
    {
        // Every tenth call, from the fifth, loses its connection; the others, before and after each, are answered.
        var client = new FakeMonitorClient
        {
            Answer = (request, _) => request.ClientName.EndsWith('5')
                ? Task.FromException<PerformanceStatusResponse>(Refused())
                : Task.FromResult(FakeMonitorClient.Respond(request)),
        };

        var run = await RunAsync(client, Plan(LoadKind.Closed, count: 200, concurrency: 4));

        Assert.Equal(200, client.Calls.Count);
        Assert.True(run.State == RunState.Completed, run.Error);
        Assert.Equal(20, run.Stats!.StatusCounts["Unavailable"]);
        Assert.Equal(180, run.Stats.Succeeded);
        Assert.Equal(20, run.Stats.Failed);
        Assert.Matches(
            @"^20 of 200 calls failed to connect \(Unavailable: Error connecting to subchannel \(Connection refused\)\) while the service kept answering: " +
            @"the other 180 succeeded, the last of them [\d.]+ s before the run ended\.$",
            run.Note);
    }

    [Fact]
    public async Task TheNoteCountsOtherFailuresApartFromTheCallsThatFailedToConnect()
    {
        var client = new FakeMonitorClient
        {
            Answer = (request, _) => request.ClientName[^1] switch
            {
                '3' => Task.FromException<PerformanceStatusResponse>(Refused()),
                '7' => Task.FromException<PerformanceStatusResponse>(FakeMonitorClient.Failure(StatusCode.DeadlineExceeded)),
                _ => Task.FromResult(FakeMonitorClient.Respond(request)),
            },
        };

        var run = await RunAsync(client, Plan(LoadKind.Sequential, count: 20));

        Assert.True(run.State == RunState.Completed, run.Error);
        Assert.Matches(
            @"^2 of 20 calls failed to connect \(Unavailable: Error connecting to subchannel \(Connection refused\)\) while the service kept answering: " +
            @"16 succeeded, the last of them [\d.]+ s before the run ended; 2 failed otherwise \(2 × DeadlineExceeded\)\.$",
            run.Note);
    }

    [Fact]
    public async Task AServiceThatGoesAwayBeforeTheLastCallFailsTheRunSayingHowManySucceededAndHowManyFailedToConnectSinceWhen()
    {
        // The first ten calls are answered; then nothing listens, and every call is refused at once (as a channel in
        // TRANSIENT_FAILURE refuses them): the calls run out long before any silence window.
        var client = new FakeMonitorClient
        {
            Answer = (request, _) => int.Parse(request.ClientName.Split('#')[1]) <= 10
                ? Task.FromResult(FakeMonitorClient.Respond(request))
                : Task.FromException<PerformanceStatusResponse>(Refused()),
        };

        var run = await RunAsync(client, Plan(LoadKind.Sequential, count: 100));

        Assert.Equal(RunState.Failed, run.State);
        Assert.Equal((10, 90), (run.Stats!.StatusCounts["OK"], run.Stats.StatusCounts["Unavailable"]));
        Assert.Matches(
            @"^The service is unreachable: Error connecting to subchannel \(Connection refused\)\. 10 calls had succeeded, the last [\d.]+ s into the run; " +
            @"from [\d.]+ s on, 90 calls failed to connect and none succeeded again before the run ended\.$",
            run.Error);
        Assert.Null(run.Note);
    }

    [Fact]
    public async Task CallsThatKeepFailingToConnectForTheSilenceWindowStopARunBoundedByTime()
    {
        var client = new FakeMonitorClient
        {
            Answer = async (request, _) =>
            {
                if (int.Parse(request.ClientName.Split('#')[1]) <= 10)
                {
                    return FakeMonitorClient.Respond(request);
                }

                await Task.Delay(5);
                throw Refused();
            },
        };
        var clock = Stopwatch.StartNew();

        // A window of 2 s, not 0.3 s: a test process busy with the fast loop's other tests can stall a call's 5 ms that long.
        var run = await RunAsync(client, new RunPlan { Strategy = "factory-client", Load = LoadKind.Closed, Concurrency = 2, Duration = 60 }, TimeSpan.FromSeconds(2));

        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(30), $"the run took {clock.Elapsed}");
        Assert.Equal(RunState.Failed, run.State);
        Assert.Matches(
            @"^The service is unreachable: Error connecting to subchannel \(Connection refused\)\. 10 calls had succeeded, the last [\d.]+ s into the run; " +
            @"from [\d.]+ s on, [\d,]+ calls failed to connect and none succeeded for [\d.]+ s, past the 2 s window for refused connections \(the silence window\)\.$",
            run.Error);
    }

    [Fact]
    public async Task ConnectionsThatTimeOutPastTheSilenceWindowAreAStormAndTheRunGoesOnUntilTheConnectFailureWindow()
    {
        // After ten answers, every connection times out (as a full accept queue drops them); nothing refuses.
        var client = new FakeMonitorClient
        {
            Answer = async (request, _) =>
            {
                if (int.Parse(request.ClientName.Split('#')[1]) <= 10)
                {
                    return FakeMonitorClient.Respond(request);
                }

                await Task.Delay(5);
                throw TimedOut();
            },
        };
        var options = new EngineOptions { SilenceTimeout = TimeSpan.FromSeconds(1), ConnectFailureWindow = TimeSpan.FromSeconds(4) };
        var clock = Stopwatch.StartNew();

        var run = await RunAsync(client, new RunPlan { Strategy = "factory-client", Load = LoadKind.Closed, Concurrency = 2, Duration = 60 }, options);

        // Not stopped by the 1 s silence window, only by the 4 s one; a bound, not a timing, on the other side.
        Assert.InRange(clock.Elapsed, TimeSpan.FromSeconds(4), TimeSpan.FromSeconds(40));
        Assert.Equal(RunState.Failed, run.State);
        Assert.Matches(@"none succeeded for [\d.]+ s, past the 4 s window for connections that time out or are reset\.$", run.Error);
    }

    [Fact]
    public void OnlyAConnectionTheSocketRefusedCountsAsRefused()
    {
        Assert.True(IsRefused(Refused()));
        Assert.False(IsRefused(TimedOut()));
        Assert.False(IsRefused(new RpcException(new Status(StatusCode.Unavailable, "Connection reset by peer", new SocketException((int)SocketError.ConnectionReset)))));
    }

    [Fact]
    [Trait("Category", "Process")]
    public async Task GrpcDotnetsFailureToReachAClosedPortIsRecognisedAsRefused()
    {
        using var channel = Grpc.Net.Client.GrpcChannel.ForAddress($"http://127.0.0.1:{Infrastructure.Ports.Unused()}");

        var error = await Assert.ThrowsAsync<RpcException>(() => new Monitor.MonitorClient(channel).GetPerformanceAsync(new PerformanceStatusRequest()).ResponseAsync);

        Assert.Equal(StatusCode.Unavailable, error.StatusCode);
        Assert.True(IsRefused(error), error.ToString());
    }

    [Fact]
    public async Task AfterAWarmUpThatSucceededAFirstMeasuredCallThatFailsToConnectIsCountedNotFatal()
    {
        var client = new FakeMonitorClient
        {
            Answer = (request, _) => request.ClientName == "factory-client #1"
                ? Task.FromException<PerformanceStatusResponse>(Refused())
                : Task.FromResult(FakeMonitorClient.Respond(request)),
        };

        var run = await RunAsync(client, Plan(LoadKind.Sequential, count: 10) with { Warmup = 3 });

        Assert.True(run.State == RunState.Completed, run.Error);
        Assert.Equal(1, run.Stats!.StatusCounts["Unavailable"]);
        Assert.StartsWith("1 of 10 calls failed to connect", run.Note);
    }

    /// <summary>What Grpc.Net.Client throws for a call whose subchannel could not connect.</summary>
    private static RpcException Refused() =>
        new(new Status(StatusCode.Unavailable, "Error connecting to subchannel.", new SocketException((int)SocketError.ConnectionRefused)));

    private static RpcException TimedOut() =>
        new(new Status(StatusCode.Unavailable, "Error connecting to subchannel.",
            new TimeoutException("A connection could not be established within the configured ConnectTimeout.")));

    private static RunPlan Plan(LoadKind load, int count, int concurrency = 1) =>
        new() { Strategy = "factory-client", Load = load, Count = count, Concurrency = concurrency };

    private static Task<RunRecord> RunAsync(FakeMonitorClient client, RunPlan plan, TimeSpan? silence = null) =>
        RunAsync(client, plan, new EngineOptions { SilenceTimeout = silence ?? Silence });

    private static Task<RunRecord> RunAsync(FakeMonitorClient client, RunPlan plan, EngineOptions options)
    {
        var engine = new RunEngine(Options.Create(options));
        return engine.ExecuteAsync(
            RunCallsFactory.Compose(client.As(FactoryClientStrategy.Definition), plan), new RunRecord(Guid.NewGuid(), plan, RunState.Running, DateTimeOffset.UtcNow, null, null, null, null), new LiveRun(), CancellationToken.None);
    }

    private static bool IsRefused(RpcException error) => CallFailure.From(error, LoadEngine.Targets.TargetText.None)!.Value.Refused;
}
