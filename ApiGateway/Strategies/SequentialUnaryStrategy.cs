using ApiGateway.Runs;
using GrpcDependencies.Grpc;
using Performance;

namespace ApiGateway.Strategies;

/// <summary>One unary call after another: each waits for the previous answer, so the time is the sum of round trips.</summary>
public abstract class SequentialUnaryStrategy : IClientStrategy
{
    public async Task ExecuteAsync(RunContext run)
    {
        for (var index = 0; index < run.Count; index++)
        {
            try
            {
                run.Record(index, await CallAsync(run.CreateRequest(index), run.CreateCallOptions()));
            }
            catch (RpcException error)
            {
                run.Fail(index, error);
                return;
            }
        }
    }

    public abstract string DescribeMeasurement();

    protected abstract Task<PerformanceStatusResponse> CallAsync(PerformanceStatusRequest request, CallOptions options);
}
