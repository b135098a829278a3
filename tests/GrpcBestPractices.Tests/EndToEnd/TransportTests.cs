using GrpcBestPractices.Tests.Infrastructure;
using GrpcDependencies.Grpc;
using Performance;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>The gRPC client and server plumbing in GrpcDependencies, against the real service on a real socket.</summary>
[Collection(SystemCollection.Name)]
public sealed class TransportTests(SystemFixture system) : IDisposable
{
    private readonly GrpcChannel _channel = GrpcChannel.ForAddress(system.Service.Url);

    [Fact]
    public async Task UnaryCallReturnsRealFiguresAndTheConnectionThatCarriedIt()
    {
        var client = new Monitor.MonitorClient(_channel);

        var first = await client.GetPerformanceAsync(new PerformanceStatusRequest { ClientName = "a" });
        var second = await client.GetPerformanceAsync(new PerformanceStatusRequest { ClientName = "b", PayloadBytes = 4096 });

        Assert.Equal(100, first.DataLoad1.Length);
        Assert.Equal(4096, second.DataLoad2.Length);
        Assert.False(string.IsNullOrEmpty(first.ConnectionId));
        Assert.Equal(first.ConnectionId, second.ConnectionId);
        Assert.InRange(first.CpuPercentageUsage, 0, 100);
    }

    [Fact]
    public async Task DuplexStreamAnswersEveryRequestInOrder()
    {
        var client = new Monitor.MonitorClient(_channel);
        using var call = client.GetManyPerformanceStats();

        for (var size = 1; size <= 50; size++)
        {
            await call.RequestStream.WriteAsync(new PerformanceStatusRequest { ClientName = $"#{size}", PayloadBytes = size });
        }

        await call.RequestStream.CompleteAsync();
        var sizes = new List<int>();
        await foreach (var response in call.ResponseStream.ReadAllAsync())
        {
            sizes.Add(response.DataLoad1.Length);
        }

        Assert.Equal(Enumerable.Range(1, 50), sizes);
    }

    [Fact]
    public async Task BufferHintedWritesWaitForTheNextUnhintedWriteAndLoseNothing()
    {
        using var call = new Monitor.MonitorClient(_channel).GetManyPerformanceStats();
        call.RequestStream.WriteOptions = WriteOptions.Buffered;
        for (var size = 1; size <= 40; size++)
        {
            await call.RequestStream.WriteAsync(new PerformanceStatusRequest { PayloadBytes = size });
        }

        // Nothing was sent yet: no answer may arrive while the writes are held.
        using (var early = new CancellationTokenSource(TimeSpan.FromMilliseconds(300)))
        {
            await Assert.ThrowsAsync<RpcException>(() => call.ResponseStream.MoveNext(early.Token));
        }
    }

    [Fact]
    public async Task BufferHintedWritesAllArriveInOrderOnceCompleted()
    {
        using var call = new Monitor.MonitorClient(_channel).GetManyPerformanceStats();
        call.RequestStream.WriteOptions = WriteOptions.Buffered;
        for (var size = 1; size <= 40; size++)
        {
            await call.RequestStream.WriteAsync(new PerformanceStatusRequest { PayloadBytes = size });
        }

        await call.RequestStream.CompleteAsync();
        var sizes = new List<int>();
        await foreach (var response in call.ResponseStream.ReadAllAsync())
        {
            sizes.Add(response.DataLoad1.Length);
        }

        Assert.Equal(Enumerable.Range(1, 40), sizes);
    }

    [Fact]
    public async Task ServiceFlushesHeldAnswersBeforeADelayedRequest()
    {
        using var call = new Monitor.MonitorClient(_channel).GetManyPerformanceStats();
        // Two quick requests then one held 2 s, sent together: the service sees the quick ones with more waiting.
        call.RequestStream.WriteOptions = WriteOptions.Buffered;
        await call.RequestStream.WriteAsync(new PerformanceStatusRequest { ClientName = "quick 1" });
        await call.RequestStream.WriteAsync(new PerformanceStatusRequest { ClientName = "quick 2" });
        call.RequestStream.WriteOptions = null;
        await call.RequestStream.WriteAsync(new PerformanceStatusRequest { ClientName = "slow", DelayMs = 2000 });

        // The quick answers must not wait out the slow request's delay.
        using var soon = new CancellationTokenSource(TimeSpan.FromMilliseconds(1500));
        Assert.True(await call.ResponseStream.MoveNext(soon.Token));
        Assert.True(await call.ResponseStream.MoveNext(soon.Token));
    }

    [Fact]
    public async Task InvalidArgumentFromTheServiceArrivesAsItsStatusAndMessage()
    {
        var client = new Monitor.MonitorClient(_channel);

        var error = await Assert.ThrowsAsync<RpcException>(() => client.GetPerformanceAsync(new PerformanceStatusRequest { DelayMs = -1 }));

        Assert.Equal(StatusCode.InvalidArgument, error.StatusCode);
        Assert.Contains("between 0 and 60000", error.Detail);
    }

    [Fact]
    public async Task DeadlineIsEnforcedOnTheClientAndSentToTheServer()
    {
        var client = new Monitor.MonitorClient(_channel);

        var error = await Assert.ThrowsAsync<RpcException>(() => client.GetPerformanceAsync(
            new PerformanceStatusRequest { DelayMs = 5000 }, new CallOptions(Deadline: DateTime.UtcNow.AddMilliseconds(200))));

        Assert.Equal(StatusCode.DeadlineExceeded, error.StatusCode);
    }

    [Fact]
    public async Task CancellingAStreamMidwayEndsItAsCancelled()
    {
        using var cancel = new CancellationTokenSource();
        using var call = new Monitor.MonitorClient(_channel).GetManyPerformanceStats(new CallOptions(CancellationToken: cancel.Token));
        await call.RequestStream.WriteAsync(new PerformanceStatusRequest { DelayMs = 5000 });

        cancel.CancelAfter(100);
        var error = await Assert.ThrowsAsync<RpcException>(() => call.ResponseStream.MoveNext());

        Assert.Equal(StatusCode.Cancelled, error.StatusCode);
    }

    public void Dispose() => _channel.Dispose();
}
