using System.Diagnostics;
using ApiGateway.Clients;
using ApiGateway.Configuration;
using ApiGateway.Strategies;
using GrpcDependencies.Grpc;
using Microsoft.Extensions.Options;

namespace ApiGateway.Runs;

/// <summary>Runs one strategy under one plan and times it; the strategies only say how calls are made.</summary>
public sealed class RunEngine(IOptions<RunLimitsOptions> limits, MonitorChannelFactory channels)
{
    public async Task<RunResponse> RunAsync(IClientStrategy strategy, StrategyInfo info, RunPlan plan, CancellationToken callerGone)
    {
        using var run = new RunContext(info.Name, plan, limits.Value.CallTimeout, callerGone);
        var start = Stopwatch.GetTimestamp();
        try
        {
            await strategy.ExecuteAsync(run);
        }
        catch (RpcException error) when (run.Failure is null && !callerGone.IsCancellationRequested)
        {
            run.Fail(-1, error);
        }
        catch (RpcException) when (run.Failure is not null || callerGone.IsCancellationRequested)
        {
            // Already recorded, or the caller left and nobody will read the result.
        }

        var elapsed = Stopwatch.GetElapsedTime(start);
        callerGone.ThrowIfCancellationRequested();
        if (run.Failure is { } failure)
        {
            throw new RunFailedException(info.Name, channels.ServerUri, plan.Count, run.CompletedCalls, failure.Error);
        }

        return new RunResponse(
            info.Name,
            plan.Count,
            plan.DelayMs,
            elapsed.TotalMilliseconds,
            run.DistinctConnections,
            strategy.DescribeMeasurement(),
            run.Statuses);
    }
}

/// <summary>The chapter's JSON, plus what a reader needs to trust it. Statuses last, so the figures come first.</summary>
public sealed record RunResponse(
    string Strategy,
    int Count,
    int DelayMs,
    double RequestProcessingTime,
    int ConnectionsUsed,
    string Measured,
    IReadOnlyList<PerformanceStatus> PerformanceStatuses);

/// <summary>A run stopped because a call to the service failed.</summary>
public sealed class RunFailedException(string strategy, Uri serverUri, int count, int completed, RpcException error)
    : Exception($"{strategy}: a call to {serverUri} failed with {error.StatusCode}: {error.Detail}", error)
{
    public string Strategy { get; } = strategy;

    public Uri ServerUri { get; } = serverUri;

    public int Count { get; } = count;

    public int Completed { get; } = completed;

    public StatusCode GrpcStatus { get; } = error.StatusCode;

    public string GrpcDetail { get; } = error.Detail;
}
