using System.Diagnostics;
using Grpc.Core;
using GrpcBestPractices.Tests.Fakes;
using LoadEngine;
using LoadEngine.Calls;
using LoadEngine.Strategies;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using Performance;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>The engine giving up on a service that stopped answering, instead of letting each call wait out its deadline.</summary>
public sealed class SilenceTests
{
    private static readonly TimeSpan Silence = TimeSpan.FromMilliseconds(300);

    [Fact]
    public async Task AServiceThatAnswersNothingFailsTheRunAfterTheSilenceWindowNamingTheAddressAndTheCallsInFlight()
    {
        var client = new FakeMonitorClient { Answer = (_, options) => Hang(options) };
        var clock = Stopwatch.StartNew();

        var run = await RunAsync(Unary(client), Plan("factory-client", LoadKind.Closed, count: 1000, concurrency: 4));

        Assert.Equal(RunState.Failed, run.State);
        Assert.Equal("The service stopped answering: no answer from http://127.0.0.1:5000 for 0.3 s while 4 call(s) were in flight.", run.Error);
        // Each call's deadline is 10 s: the run ended long before even one would have timed out.
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(5), $"the run took {clock.Elapsed}");
        Assert.Equal(4, client.Calls.Count);
    }

    [Fact]
    public async Task EveryCallThatEndsRestartsTheSilenceWindowSoARunLongerThanTheWindowCompletes()
    {
        // Each call takes an eighth of the window (a margin for a loaded machine: at a load average of 60 on 2 cores a
        // quarter of a 1 s window was not enough once); the run takes one and a half times the window.
        var client = new FakeMonitorClient { Answer = async (request, _) => { await Task.Delay(250); return FakeMonitorClient.Respond(request); } };

        var run = await RunAsync(Unary(client), Plan("factory-client", LoadKind.Sequential, count: 12), silence: TimeSpan.FromSeconds(2));

        Assert.True(run.State == RunState.Completed, run.Error);
        Assert.Equal(12, run.Stats!.Succeeded);
    }

    [Fact]
    public async Task ADelayThePlanAsksOfTheServiceExtendsTheSilenceWindow()
    {
        var client = new FakeMonitorClient { Answer = async (request, _) => { await Task.Delay(2000); return FakeMonitorClient.Respond(request); } };

        // The call takes twice the 1 s window, which the plan's 10 s delay extends to 11 s: 9 s to spare for the first call
        // of a cold test process on a busy machine (a 3 s window, 1 s past the call, was not enough with CI and this fast
        // loop sharing 2 cores). Without the extension the run fails after 1 s.
        var run = await RunAsync(Unary(client), Plan("factory-client", LoadKind.Sequential, count: 1) with { Called = new BuiltInCall(DelayMs: 10_000) }, silence: TimeSpan.FromSeconds(1));

        Assert.True(run.State == RunState.Completed, run.Error);
        Assert.Equal(1, run.Stats!.Succeeded);
    }

    [Fact]
    public async Task CallsThatMissTheirDeadlineTooManyTimesInARowFailTheRun()
    {
        var client = new FakeMonitorClient { Answer = (_, _) => Task.FromException<PerformanceStatusResponse>(FakeMonitorClient.Failure(StatusCode.DeadlineExceeded)) };

        var run = await RunAsync(Unary(client), Plan("factory-client", LoadKind.Sequential, count: 100), maxConsecutiveTimeouts: 10);

        Assert.Equal(10, client.Calls.Count);
        Assert.Equal(RunState.Failed, run.State);
        Assert.Equal("The service stopped answering: 10 calls in a row to http://127.0.0.1:5000 missed their 10 s deadline.", run.Error);
    }

    [Fact]
    public async Task TimeoutsOfCallsThatWaitedWhileOthersWereAnsweredAreCountedButDoNotFailTheRun()
    {
        // A storm's queued connections time out together: 30 calls sent at the start miss their deadline in one burst,
        // after 10 calls sent with them were answered; the service answers every call after the burst.
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var burstEnded = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var timedOut = 0;
        var client = new FakeMonitorClient
        {
            Answer = async (request, _) =>
            {
                var number = int.Parse(request.ClientName.Split('#')[1]);
                if (number <= 10)
                {
                    await Task.Delay(20);
                    return FakeMonitorClient.Respond(request);
                }

                if (number <= 40)
                {
                    await release.Task;
                    if (Interlocked.Increment(ref timedOut) == 30)
                    {
                        burstEnded.SetResult();
                    }

                    throw FakeMonitorClient.Failure(StatusCode.DeadlineExceeded);
                }

                // The first call after an answered one: the burst of timeouts comes now, and every later call waits for it.
                release.TrySetResult();
                await burstEnded.Task;
                return FakeMonitorClient.Respond(request);
            },
        };

        var run = await RunAsync(Unary(client), Plan("factory-client", LoadKind.Closed, count: 100, concurrency: 40), maxConsecutiveTimeouts: 10, silence: TimeSpan.FromSeconds(30));

        Assert.True(run.State == RunState.Completed, run.Error);
        Assert.Equal((70, 30), (run.Stats!.StatusCounts["OK"], run.Stats.StatusCounts["DeadlineExceeded"]));
    }

    [Fact]
    public async Task AStreamWhoseServiceFallsSilentFailsAfterTheSilenceWindowNotAfterTheCallTimeout()
    {
        var stream = new FakeDuplexStream();
        stream.Answer = (index, request) => index < 5 ? [FakeMonitorClient.Respond(request)] : [];
        var clock = Stopwatch.StartNew();

        var run = await RunAsync(new FakeMonitorClient { Stream = stream.Start }.As(StreamingCallStrategy.Definition), Plan("streaming-call", LoadKind.Closed, count: 100, concurrency: 3));

        Assert.Equal(RunState.Failed, run.State);
        Assert.Equal("The service stopped answering: no answer from http://127.0.0.1:5000 for 0.3 s while 3 stream message(s) were unanswered.", run.Error);
        Assert.Equal(5, run.Stats!.Succeeded);
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(5), $"the run took {clock.Elapsed}");
        Assert.True(stream.Disposed);
    }

    private static async Task<PerformanceStatusResponse> Hang(CallOptions options)
    {
        try
        {
            await Task.Delay(Timeout.Infinite, options.CancellationToken);
        }
        catch (OperationCanceledException)
        {
        }

        // What Grpc.Net.Client throws for a call its token cancelled.
        throw FakeMonitorClient.Failure(StatusCode.Cancelled, "Call canceled by the client.");
    }

    private static IChannelStrategy Unary(FakeMonitorClient client) => client.As(FactoryClientStrategy.Definition);

    private static RunPlan Plan(string strategy, LoadKind load, int count, int concurrency = 1) =>
        new() { Strategy = strategy, Load = load, Count = count, Concurrency = concurrency };

    private static Task<RunRecord> RunAsync(IChannelStrategy strategy, RunPlan plan, int maxConsecutiveTimeouts = 0, TimeSpan? silence = null)
    {
        var options = new EngineOptions { SilenceTimeout = silence ?? Silence, MaxConsecutiveTimeouts = maxConsecutiveTimeouts };
        var engine = new RunEngine(Options.Create(options));
        return engine.ExecuteAsync(RunCallsFactory.Compose(strategy, plan), new RunRecord(Guid.NewGuid(), plan, RunState.Running, DateTimeOffset.UtcNow, null, null, null, null), new LiveRun(), CancellationToken.None);
    }
}
