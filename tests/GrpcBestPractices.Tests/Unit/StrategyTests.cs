using Grpc.Core;
using GrpcBestPractices.Tests.Fakes;
using LoadEngine;
using LoadEngine.Calls;
using LoadEngine.Strategies;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using Performance;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>The engine running strategies against a fake of the generated client: what it sends, how many at once, and what it records.</summary>
public sealed class StrategyTests
{
    private static readonly TimeSpan CallTimeout = TimeSpan.FromSeconds(10);

    // A fake answers when a busy machine lets it: only SilenceTests judge silence.
    private static readonly TimeSpan FakesMayBeSlow = TimeSpan.FromMinutes(2);

    [Fact]
    public async Task SequentialLoadWaitsForEachAnswerBeforeTheNextCall()
    {
        var client = new FakeMonitorClient { Answer = async (request, _) => { await Task.Delay(1); return FakeMonitorClient.Respond(request); } };

        var run = await RunAsync(Unary(client), Plan("factory-client", LoadKind.Sequential, count: 20));

        Assert.Equal(1, client.MaxInFlight);
        Assert.Equal(Enumerable.Range(1, 20).Select(i => $"factory-client #{i}"), client.Calls.Select(call => call.Request.ClientName));
        Assert.Equal(RunState.Completed, run.State);
        Assert.Equal(20, run.Stats!.Succeeded);
        Assert.Equal(0, run.Stats.Failed);
    }

    [Fact]
    public async Task EveryCallCarriesTheCallTimeoutAsItsDeadlineAndTheRunsCancellation()
    {
        using var stop = new CancellationTokenSource();
        var cancelledWithTheRun = false;
        var client = new FakeMonitorClient();
        client.Answer = (request, options) =>
        {
            if (request.ClientName == "factory-client #2")
            {
                Assert.False(options.CancellationToken.IsCancellationRequested);
                stop.Cancel();
                cancelledWithTheRun = options.CancellationToken.IsCancellationRequested;
            }

            return Task.FromResult(FakeMonitorClient.Respond(request));
        };
        var before = DateTime.UtcNow;

        var run = await RunAsync(Unary(client), Plan("factory-client", LoadKind.Sequential, count: 10), stop.Token);

        Assert.All(client.Calls, call => Assert.InRange(call.Options.Deadline!.Value, before + CallTimeout, DateTime.UtcNow + CallTimeout));
        Assert.True(cancelledWithTheRun, "a call's token was not cancelled when the run was");
        Assert.Equal(2, client.Calls.Count);
        Assert.Equal(RunState.Cancelled, run.State);
    }

    [Fact]
    public async Task FailedCallsAreCountedByTheirStatusAndNeverAsSuccesses()
    {
        var client = new FakeMonitorClient
        {
            Answer = (request, _) => request.ClientName.EndsWith('4') || request.ClientName.EndsWith('8')
                ? Task.FromException<PerformanceStatusResponse>(FakeMonitorClient.Failure(StatusCode.ResourceExhausted))
                : Task.FromResult(FakeMonitorClient.Respond(request)),
        };

        var run = await RunAsync(Unary(client), Plan("factory-client", LoadKind.Sequential, count: 20));

        Assert.Equal(20, run.Stats!.Calls);
        Assert.Equal(4, run.Stats.Failed);
        Assert.Equal(16, run.Stats.Succeeded);
        Assert.Equal(4, run.Stats.StatusCounts["ResourceExhausted"]);
        Assert.Equal(16, run.Stats.StatusCounts["OK"]);
        Assert.Equal(0.2, run.Stats.ErrorRate);
    }

    [Fact]
    public async Task ARunWithNoSuccessfulCallFailsSayingWhatTheCallsEndedWith()
    {
        var client = new FakeMonitorClient { Answer = (_, _) => Task.FromException<PerformanceStatusResponse>(FakeMonitorClient.Failure(StatusCode.DeadlineExceeded)) };

        var run = await RunAsync(Unary(client), Plan("factory-client", LoadKind.Sequential, count: 5));

        Assert.Equal(RunState.Failed, run.State);
        Assert.Equal("No call succeeded (5 × DeadlineExceeded: 'fake failure').", run.Error);
    }

    [Fact]
    public async Task ClosedLoadKeepsExactlyItsConcurrencyInFlight()
    {
        var client = new FakeMonitorClient { Answer = async (request, _) => { await Task.Delay(5); return FakeMonitorClient.Respond(request); } };

        var run = await RunAsync(Unary(client), Plan("factory-client", LoadKind.Closed, count: 100, concurrency: 8));

        Assert.Equal(8, client.MaxInFlight);
        Assert.Equal(100, client.Calls.Count);
        Assert.Equal(100, client.Calls.Select(call => call.Request.ClientName).Distinct().Count());
        Assert.Equal(100, run.Stats!.Succeeded);
    }

    [Fact]
    public async Task ADurationBoundsARunWithoutACount()
    {
        var client = new FakeMonitorClient { Answer = async (request, _) => { await Task.Delay(2); return FakeMonitorClient.Respond(request); } };

        var run = await RunAsync(Unary(client), new RunPlan { Strategy = "factory-client", Load = LoadKind.Closed, Concurrency = 4, Duration = 0.3 });

        Assert.Equal(RunState.Completed, run.State);
        Assert.True(run.Stats!.Succeeded > 4, $"only {run.Stats.Succeeded} calls in 0.3 s");
        Assert.InRange(run.Stats.WallTimeMs, 300, 30_000);
    }

    [Fact]
    public async Task StreamingCallRecordsOneAnswerPerMessageInOrder()
    {
        var stream = new FakeDuplexStream();

        var run = await RunAsync(new FakeMonitorClient { Stream = stream.Start }.As(StreamingCallStrategy.Definition), Plan("streaming-call", LoadKind.Closed, count: 50, concurrency: 50));

        Assert.Equal(50, stream.Written);
        Assert.True(stream.Completed);
        Assert.Equal(50, run.Stats!.Succeeded);
        Assert.Equal(0, run.Stats.Failed);
    }

    [Fact]
    public async Task AStreamUnderTheSequentialLoadReadsEachAnswerBeforeWritingTheNextMessage()
    {
        var stream = new FakeDuplexStream();

        var run = await RunAsync(new FakeMonitorClient { Stream = stream.Start }.As(StreamingCallStrategy.Definition), Plan("streaming-call", LoadKind.Sequential, count: 30));

        Assert.Equal(1, stream.MaxUnanswered);
        Assert.Equal(30, run.Stats!.Succeeded);
    }

    [Fact]
    public async Task AStreamUnderTheClosedLoadKeepsAtMostItsConcurrencyUnanswered()
    {
        var stream = new FakeDuplexStream();

        var run = await RunAsync(new FakeMonitorClient { Stream = stream.Start }.As(StreamingCallStrategy.Definition), Plan("streaming-call", LoadKind.Closed, count: 200, concurrency: 5));

        Assert.InRange(stream.MaxUnanswered, 1, 5);
        Assert.Equal(200, run.Stats!.Succeeded);
    }

    [Fact]
    public async Task AStreamThatBreaksCountsEveryUnansweredMessageUnderTheStatusThatEndedIt()
    {
        var stream = new FakeDuplexStream();
        stream.Answer = (index, request) =>
        {
            if (index == 3)
            {
                stream.End(FakeMonitorClient.Failure(StatusCode.Internal, "the service broke"));
            }

            return index < 3 ? [FakeMonitorClient.Respond(request)] : [];
        };

        var run = await RunAsync(new FakeMonitorClient { Stream = stream.Start }.As(StreamingCallStrategy.Definition), Plan("streaming-call", LoadKind.Closed, count: 40, concurrency: 40));

        Assert.Equal(3, run.Stats!.Succeeded);
        Assert.Equal(37, run.Stats.Failed);
        Assert.Equal(37, run.Stats.StatusCounts["Internal"]);
        // A stream that lost messages did not do what the plan asked: never Completed.
        Assert.Equal(RunState.Failed, run.State);
        Assert.Equal("The stream ended with 37 of 40 messages unanswered: Internal (the service broke).", run.Error);
    }

    [Fact]
    public async Task AStreamWhoseDurationEndsBeforeItsCountCompletesWithEveryMessageItSentAnswered()
    {
        var stream = new FakeDuplexStream();
        var plan = Plan("streaming-call", LoadKind.Closed, count: 100_000_000, concurrency: 8) with { Duration = 0.2 };

        var run = await RunAsync(new FakeMonitorClient { Stream = stream.Start }.As(StreamingCallStrategy.Definition), plan);

        // The duration ended the phase first: the count not reached is no lost message (a checkup's stream arm is bounded so).
        Assert.Equal(RunState.Completed, run.State);
        Assert.Null(run.Error);
        Assert.Equal(0, run.Stats!.Failed);
        Assert.InRange(run.Stats.Succeeded, 1, 100_000_000 - 1);
        Assert.Equal(stream.Written, run.Stats.Succeeded + run.Stats.WarmupCalls);
    }

    [Fact]
    public async Task ASilentStreamFailsEveryMessageAsDeadlineExceededAfterTheCallTimeout()
    {
        var stream = new FakeDuplexStream { Answer = (_, _) => [], EndsWhenClientCompletes = false };

        var run = await RunAsync(
            new FakeMonitorClient { Stream = stream.Start }.As(StreamingCallStrategy.Definition), Plan("streaming-call", LoadKind.Closed, count: 10, concurrency: 10), callTimeout: TimeSpan.FromMilliseconds(200));

        Assert.Equal(10, run.Stats!.StatusCounts["DeadlineExceeded"]);
        Assert.Equal(0, run.Stats.Succeeded);
        Assert.True(stream.Disposed);
    }

    private static IChannelStrategy Unary(FakeMonitorClient client) => client.As(FactoryClientStrategy.Definition);

    private static RunPlan Plan(string strategy, LoadKind load, int count, int concurrency = 1) =>
        new() { Strategy = strategy, Load = load, Count = count, Concurrency = concurrency };

    private static Task<RunRecord> RunAsync(IChannelStrategy strategy, RunPlan plan, CancellationToken cancellation = default, TimeSpan? callTimeout = null)
    {
        var engine = new RunEngine(Options.Create(new EngineOptions { CallTimeout = callTimeout ?? CallTimeout, SilenceTimeout = FakesMayBeSlow }));
        return engine.ExecuteAsync(RunCallsFactory.Compose(strategy, plan), new RunRecord(Guid.NewGuid(), plan, RunState.Running, DateTimeOffset.UtcNow, null, null, null, null), new LiveRun(), cancellation);
    }
}
