using ApiGateway.Runs;
using Grpc.Core;
using Grpc.Net.Client;
using Performance;

namespace ApiGateway.Strategies;

/// <summary>
/// Calls kept in flight <see cref="RunContext.Concurrency"/> at a time on one long-lived channel (by default all
/// at once, as the chapter did), async all the way: no thread is blocked per call, so this measures HTTP/2, not the thread pool.
/// </summary>
public abstract class ConcurrentUnaryStrategy(Monitor.MonitorClient client, IDisposable channel) : IClientStrategy, IDisposable
{
    /// <summary>Calls on <paramref name="channel"/>, which this strategy owns and disposes.</summary>
    protected ConcurrentUnaryStrategy(GrpcChannel channel)
        : this(new Monitor.MonitorClient(channel), channel)
    {
    }

    public async Task ExecuteAsync(RunContext run)
    {
        var next = -1;
        var workers = new Task[run.Concurrency];
        for (var worker = 0; worker < workers.Length; worker++)
        {
            workers[worker] = WorkAsync();
        }

        await Task.WhenAll(workers);

        async Task WorkAsync()
        {
            Func<PerformanceStatusRequest, CallOptions, Task<PerformanceStatusResponse>> send = (request, options) => client.GetPerformanceAsync(request, options).ResponseAsync;
            int index;
            while (!run.Stopped && (index = Interlocked.Increment(ref next)) < run.Count)
            {
                await run.CallAsync(index, send);
            }
        }
    }

    public abstract string DescribeMeasurement();

    public void Dispose() => channel.Dispose();
}
