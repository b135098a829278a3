using ApiGateway.Runs;
using GrpcDependencies.Grpc;
using Performance;

namespace ApiGateway.Strategies;

/// <summary>All calls started at once on one long-lived channel, awaited together: async all the way, no thread blocked per call.</summary>
public abstract class ConcurrentUnaryStrategy(GrpcChannel channel) : IClientStrategy, IDisposable
{
    public async Task ExecuteAsync(RunContext run)
    {
        var client = new Monitor.MonitorClient(channel);
        var calls = new Task[run.Count];
        for (var index = 0; index < calls.Length; index++)
        {
            calls[index] = CallAsync(client, run, index);
        }

        await Task.WhenAll(calls);
    }

    public abstract string DescribeMeasurement();

    public void Dispose() => channel.Dispose();

    private static async Task CallAsync(Monitor.MonitorClient client, RunContext run, int index)
    {
        try
        {
            run.Record(index, await client.GetPerformanceAsync(run.CreateRequest(index), run.CreateCallOptions()));
        }
        catch (RpcException error)
        {
            run.Fail(index, error);
        }
    }
}
