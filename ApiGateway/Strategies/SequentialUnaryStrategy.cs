using ApiGateway.Runs;
using Grpc.Core;
using Performance;

namespace ApiGateway.Strategies;

/// <summary>One unary call after another: each waits for the previous answer, so the time is the sum of round trips.</summary>
public abstract class SequentialUnaryStrategy : IClientStrategy
{
    private readonly Func<PerformanceStatusRequest, CallOptions, Task<PerformanceStatusResponse>> _call;

    protected SequentialUnaryStrategy() => _call = CallAsync;

    public async Task ExecuteAsync(RunContext run)
    {
        for (var index = 0; index < run.Count && !run.Stopped; index++)
        {
            await run.CallAsync(index, _call);
        }
    }

    public abstract string DescribeMeasurement();

    protected abstract Task<PerformanceStatusResponse> CallAsync(PerformanceStatusRequest request, CallOptions options);
}
