using ApiGateway.Runs;
using ApiGateway.Strategies;
using Grpc.Core;
using GrpcBestPractices.Tests.Fakes;
using Microsoft.Extensions.Logging.Abstractions;
using Performance;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>The strategies against a fake of the generated client: what they send, how many at once, and what they record.</summary>
public sealed class StrategyTests
{
    private static readonly TimeSpan CallTimeout = TimeSpan.FromSeconds(10);

    [Fact]
    public async Task SequentialStrategyWaitsForEachAnswerBeforeTheNextCall()
    {
        var client = new FakeMonitorClient { Answer = async (request, _) => { await Task.Delay(1); return FakeMonitorClient.Respond(request); } };
        using var run = NewRun("factory-client", count: 20);

        await new FactoryClientStrategy(client, NullLoggerFactory.Instance).ExecuteAsync(run.Context);

        Assert.Equal(1, client.MaxInFlight);
        Assert.Equal(Enumerable.Range(1, 20).Select(i => $"factory-client #{i}"), client.Calls.Select(call => call.Request.ClientName));
        Assert.Equal(20, run.Recorder.Succeeded);
        Assert.Equal(0, run.Recorder.Failed);
    }

    [Fact]
    public async Task EveryCallCarriesTheCallTimeoutAsItsDeadlineAndTheRunsCancellation()
    {
        var client = new FakeMonitorClient();
        using var stop = new CancellationTokenSource();
        using var run = NewRun("factory-client", count: 3, cancellation: stop.Token);
        var before = DateTime.UtcNow;

        await new FactoryClientStrategy(client, NullLoggerFactory.Instance).ExecuteAsync(run.Context);

        Assert.All(client.Calls, call => Assert.InRange(call.Options.Deadline!.Value, before + CallTimeout, DateTime.UtcNow + CallTimeout));
        Assert.All(client.Calls, call => Assert.False(call.Options.CancellationToken.IsCancellationRequested));
        stop.Cancel();
        Assert.All(client.Calls, call => Assert.True(call.Options.CancellationToken.IsCancellationRequested));
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
        using var run = NewRun("factory-client", count: 20);

        await new FactoryClientStrategy(client, NullLoggerFactory.Instance).ExecuteAsync(run.Context);

        Assert.Equal(20, run.Recorder.Completed);
        Assert.Equal(4, run.Recorder.Failed);
        Assert.Equal(16, run.Recorder.Succeeded);
        Assert.Equal(4, run.Recorder.StatusCounts["ResourceExhausted"]);
        Assert.Equal(16, run.Recorder.StatusCounts["OK"]);
    }

    [Fact]
    public async Task AnUnreachableServiceStopsTheRunAtItsFirstUnavailableCall()
    {
        var client = new FakeMonitorClient
        {
            Answer = (request, _) => request.ClientName == "factory-client #3"
                ? Task.FromException<PerformanceStatusResponse>(FakeMonitorClient.Failure(StatusCode.Unavailable, "connection refused"))
                : Task.FromResult(FakeMonitorClient.Respond(request)),
        };
        using var run = NewRun("factory-client", count: 100);

        await new FactoryClientStrategy(client, NullLoggerFactory.Instance).ExecuteAsync(run.Context);

        Assert.Equal(3, client.Calls.Count);
        Assert.Equal(StatusCode.Unavailable, run.Context.Unreachable?.StatusCode);
        Assert.True(run.Context.Stopped);
    }

    [Fact]
    public async Task ConcurrentStrategyKeepsExactlyItsConcurrencyInFlight()
    {
        var client = new FakeMonitorClient { Answer = async (request, _) => { await Task.Delay(5); return FakeMonitorClient.Respond(request); } };
        using var run = NewRun("single-connection", count: 100, concurrency: 8);
        using var strategy = new FakeConcurrentStrategy(client);

        await strategy.ExecuteAsync(run.Context);

        Assert.Equal(8, client.MaxInFlight);
        Assert.Equal(100, client.Calls.Count);
        Assert.Equal(100, client.Calls.Select(call => call.Request.ClientName).Distinct().Count());
        Assert.Equal(100, run.Recorder.Succeeded);
    }

    [Fact]
    public async Task StreamingStrategyRecordsOneAnswerPerMessageInOrder()
    {
        var stream = new FakeDuplexStream();
        var client = new FakeMonitorClient { Stream = stream.Start };
        using var run = NewRun("streaming-call", count: 50);

        await new StreamingCallStrategy(client).ExecuteAsync(run.Context);

        Assert.Equal(50, stream.Written);
        Assert.True(stream.Completed);
        Assert.Equal(50, run.Recorder.Succeeded);
        Assert.Equal(0, run.Recorder.Failed);
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
        var client = new FakeMonitorClient { Stream = stream.Start };
        using var run = NewRun("streaming-call", count: 40);

        await new StreamingCallStrategy(client).ExecuteAsync(run.Context);

        Assert.Equal(3, run.Recorder.Succeeded);
        Assert.Equal(37, run.Recorder.Failed);
        Assert.Equal(37, run.Recorder.StatusCounts["Internal"]);
    }

    [Fact]
    public async Task ASilentStreamFailsEveryMessageAsDeadlineExceededAfterTheCallTimeout()
    {
        var stream = new FakeDuplexStream { Answer = (_, _) => [], EndsWhenClientCompletes = false };
        var client = new FakeMonitorClient { Stream = stream.Start };
        using var run = NewRun("streaming-call", count: 10, callTimeout: TimeSpan.FromMilliseconds(200));

        await new StreamingCallStrategy(client).ExecuteAsync(run.Context);

        Assert.Equal(10, run.Recorder.StatusCounts["DeadlineExceeded"]);
        Assert.Equal(0, run.Recorder.Succeeded);
        Assert.True(stream.Disposed);
    }

    private static TestRun NewRun(string strategy, int count, int concurrency = 1, TimeSpan? callTimeout = null, CancellationToken cancellation = default)
    {
        var plan = new RunPlan { Strategy = strategy, Count = count, Concurrency = concurrency, Warmup = 0, DelayMs = 0, PayloadBytes = 100, IncludeStatuses = false };
        var recorder = new RunRecorder(count, keepStatuses: false);
        return new TestRun(new RunContext(plan, count, recorder, callTimeout ?? CallTimeout, cancellation), recorder);
    }

    private sealed record TestRun(RunContext Context, RunRecorder Recorder) : IDisposable
    {
        public void Dispose() => Context.Dispose();
    }

    private sealed class FakeConcurrentStrategy(Monitor.MonitorClient client) : ConcurrentUnaryStrategy(client, new NothingToDispose())
    {
        public override string DescribeMeasurement() => "fake";

        private sealed class NothingToDispose : IDisposable
        {
            public void Dispose()
            {
            }
        }
    }
}
