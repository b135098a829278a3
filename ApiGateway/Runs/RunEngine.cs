using System.Diagnostics;
using ApiGateway.Configuration;
using ApiGateway.Strategies;
using Grpc.Core;
using Microsoft.Extensions.Options;

namespace ApiGateway.Runs;

/// <summary>How a run ended, with what it measured; statuses only when the plan asked for them.</summary>
public sealed record RunOutcome(
    RunState State,
    RunStats? Stats,
    string? Error,
    StatusCode? MostCommonError,
    IReadOnlyList<PerformanceStatus> Statuses);

/// <summary>
/// Runs one strategy under one plan: the warm-up calls first, apart, then the measured calls. Timestamps are
/// taken raw on the hot path and turned into statistics once, at the end.
/// </summary>
public sealed class RunEngine(IOptions<RunLimitsOptions> limits)
{
    public async Task<RunOutcome> ExecuteAsync(IClientStrategy strategy, RunPlan plan, RunProgress progress, CancellationToken cancellation)
    {
        var warmupTime = TimeSpan.Zero;
        if (plan.Warmup > 0)
        {
            var warmup = new RunRecorder(plan.Warmup, keepStatuses: false);
            var warmupStart = Stopwatch.GetTimestamp();
            var unreachable = await ExecutePhaseAsync(strategy, plan, warmup, RunPhase.Warmup, progress, cancellation);
            warmupTime = Stopwatch.GetElapsedTime(warmupStart);
            if (unreachable is not null || cancellation.IsCancellationRequested)
            {
                var stats = warmup.ToStats(TimeSpan.Zero, 0, plan.Warmup, warmupTime);
                return Ended(cancellation, unreachable, warmup, stats, []);
            }
        }

        var recorder = new RunRecorder(plan.Count ?? 0, plan.IncludeStatuses);
        var allocatedBefore = GC.GetTotalAllocatedBytes(precise: false);
        var start = Stopwatch.GetTimestamp();
        var lost = await ExecutePhaseAsync(strategy, plan, recorder, RunPhase.Measured, progress, cancellation);
        var wallTime = Stopwatch.GetElapsedTime(start);
        var allocated = GC.GetTotalAllocatedBytes(precise: false) - allocatedBefore;
        return Ended(cancellation, lost, recorder, recorder.ToStats(wallTime, allocated, plan.Warmup, warmupTime), recorder.Statuses);
    }

    private async Task<RpcException?> ExecutePhaseAsync(
        IClientStrategy strategy, RunPlan plan, RunRecorder recorder, RunPhase phase, RunProgress progress, CancellationToken cancellation)
    {
        using var context = new RunContext(plan, recorder.Count, recorder, limits.Value.CallTimeout, cancellation);
        progress.Enter(phase, recorder);
        try
        {
            await strategy.ExecuteAsync(context);
        }
        catch (OperationCanceledException) when (context.Stopped)
        {
        }

        return context.Unreachable;
    }

    private static RunOutcome Ended(CancellationToken cancellation, RpcException? unreachable, RunRecorder recorder, RunStats stats, IReadOnlyList<PerformanceStatus> statuses)
    {
        if (unreachable is not null)
        {
            return new RunOutcome(RunState.Failed, stats, $"The service is unreachable: {unreachable.Status.Detail}", StatusCode.Unavailable, statuses);
        }

        if (cancellation.IsCancellationRequested)
        {
            return new RunOutcome(RunState.Cancelled, stats, "The run was cancelled before it finished.", recorder.MostCommonError, statuses);
        }

        if (recorder.Succeeded == 0)
        {
            var counts = string.Join(", ", recorder.StatusCounts.Select(pair => $"{pair.Value} × {pair.Key}"));
            return new RunOutcome(RunState.Failed, stats, $"No call succeeded ({counts}).", recorder.MostCommonError, statuses);
        }

        return new RunOutcome(RunState.Completed, stats, null, recorder.MostCommonError, statuses);
    }
}
