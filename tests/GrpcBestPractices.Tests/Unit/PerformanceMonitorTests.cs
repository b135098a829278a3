using Grpc.Core;
using GrpcBestPractices.Tests.Fakes;
using Microsoft.Extensions.Options;
using Performance;
using PerformanceService;
using PerformanceService.Metrics;
using PerformanceService.Services;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>The service class called directly with a test ServerCallContext: no process, no socket.</summary>
public sealed class PerformanceMonitorTests : IDisposable
{
    private readonly ConnectionCounter _connections = new();
    private readonly ProcessSampler _sampler;

    public PerformanceMonitorTests() => _sampler = new(Options.Create(new MonitorOptions()), _connections, TimeProvider.System);

    [Fact]
    public async Task AConnectionOpenedSinceTheLastSampleIsCountedInTheAnswerItCarries()
    {
        var monitor = new PerformanceMonitor(_sampler);
        var before = await monitor.GetPerformance(new PerformanceStatusRequest(), TestServerCallContext.Create());
        Assert.Equal(0, before.ActiveConnections);

        // The background sampler has not run again: on a busy machine its next tick may come after the whole run.
        _connections.Opened();
        var after = await monitor.GetPerformance(new PerformanceStatusRequest(), TestServerCallContext.Create());

        Assert.Equal(1, after.ActiveConnections);
    }

    [Fact]
    public async Task AnswerCarriesTheCallersConnectionIdAndBothPayloadsOfTheAskedSize()
    {
        var monitor = new PerformanceMonitor(_sampler);

        var answer = await monitor.GetPerformance(new PerformanceStatusRequest { PayloadBytes = 64 }, TestServerCallContext.Create("connection-7"));

        Assert.Equal("connection-7", answer.ConnectionId);
        Assert.Equal(64, answer.DataLoad1.Length);
        Assert.Equal(64, answer.DataLoad2.Length);
        Assert.InRange(answer.CpuPercentageUsage, 0, 100);
        Assert.True(answer.MemoryUsage > 0);
        Assert.True(answer.ProcessesRunning > 0);
    }

    [Fact]
    public async Task NoPayloadSizeMeansTheChaptersHundredBytes()
    {
        var answer = await new PerformanceMonitor(_sampler).GetPerformance(new PerformanceStatusRequest(), TestServerCallContext.Create());

        Assert.Equal(PerformanceMonitor.DefaultPayloadBytes, answer.DataLoad1.Length);
        Assert.Equal(PerformanceMonitor.DefaultPayloadBytes, answer.DataLoad2.Length);
    }

    [Theory]
    [InlineData(-1, 0, "delay_ms was -1; it must be between 0 and 60000.")]
    [InlineData(60_001, 0, "delay_ms was 60001; it must be between 0 and 60000.")]
    [InlineData(0, -1, "payload_bytes was -1; it must be between 0 (meaning 100) and 1048576.")]
    [InlineData(0, 1_048_577, "payload_bytes was 1048577; it must be between 0 (meaning 100) and 1048576.")]
    public async Task OutOfRangeRequestsFailWithInvalidArgumentSayingWhatIsAllowed(int delayMs, int payloadBytes, string detail)
    {
        var request = new PerformanceStatusRequest { DelayMs = delayMs, PayloadBytes = payloadBytes };

        var error = await Assert.ThrowsAsync<RpcException>(() => new PerformanceMonitor(_sampler).GetPerformance(request, TestServerCallContext.Create()));

        Assert.Equal(StatusCode.InvalidArgument, error.StatusCode);
        Assert.Equal(detail, error.Status.Detail);
    }

    [Fact]
    public async Task ADelayedAnswerEndsAsSoonAsTheCallIsCancelled()
    {
        using var cancel = new CancellationTokenSource();
        var answer = new PerformanceMonitor(_sampler).GetPerformance(new PerformanceStatusRequest { DelayMs = 60_000 }, TestServerCallContext.Create(cancellationToken: cancel.Token));
        Assert.False(answer.IsCompleted);

        await cancel.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => answer);
    }

    [Fact]
    public async Task StreamAnswersEveryRequestInOrderUntilTheClientCompletes()
    {
        var requests = new TestAsyncStreamReader<PerformanceStatusRequest>();
        var responses = new TestServerStreamWriter<PerformanceStatusResponse>();
        foreach (var size in Enumerable.Range(1, 5))
        {
            requests.Add(new PerformanceStatusRequest { PayloadBytes = size });
        }

        requests.Complete();
        await new PerformanceMonitor(_sampler).GetManyPerformanceStats(requests, responses, TestServerCallContext.Create("stream-connection"));

        var written = new List<PerformanceStatusResponse>();
        while (responses.Written.TryRead(out var response))
        {
            written.Add(response);
        }

        Assert.Equal(Enumerable.Range(1, 5), written.Select(response => response.DataLoad1.Length));
        Assert.All(written, response => Assert.Equal("stream-connection", response.ConnectionId));
    }

    [Fact]
    public async Task StreamEndsAsACancellationWhenTheClientLeaves()
    {
        using var cancel = new CancellationTokenSource();
        var requests = new TestAsyncStreamReader<PerformanceStatusRequest>();
        var responses = new TestServerStreamWriter<PerformanceStatusResponse>();
        requests.Add(new PerformanceStatusRequest());
        var handler = new PerformanceMonitor(_sampler).GetManyPerformanceStats(requests, responses, TestServerCallContext.Create(cancellationToken: cancel.Token));
        await responses.Written.WaitToReadAsync();

        await cancel.CancelAsync();

        // grpc-dotnet logs a cancellation at Information; any other exception would be an error with a stack trace.
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => handler);
    }

    public void Dispose() => _sampler.Dispose();
}
