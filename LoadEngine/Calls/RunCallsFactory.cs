using LoadEngine.Clients;
using LoadEngine.Protocols;
using LoadEngine.Runs;
using LoadEngine.Strategies;
using LoadEngine.Targets;
using LoadEngine.Targets.Described;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace LoadEngine.Calls;

/// <summary>
/// What a run calls, made from its plan in the run's DI scope: a workload's contender, or a strategy's calls of the
/// target's method (whole calls, or messages on one stream when the strategy says so). Its caller disposes what it makes.
/// </summary>
public sealed class RunCallsFactory(IServiceProvider scope)
{
    /// <summary>
    /// What <paramref name="plan"/> calls; a described target's set this process has not compiled yet (an agent's stored
    /// plan) is compiled first, awaited within its budget, and <paramref name="cancellation"/> stops it.
    /// </summary>
    public async Task<IRunCalls> CreateAsync(RunPlan plan, CancellationToken cancellation)
    {
        if (plan.Workload is not null)
        {
            return WorkloadStrategy.Create(plan, scope.GetRequiredService<IOptions<EngineOptions>>().Value, scope.GetRequiredService<ChannelFactory>());
        }

        var described = plan.Described is null ? null : await DescribedTarget.OfAsync(plan, cancellation);
        // From the run's own DI scope, so a one-per-run strategy is disposed with it.
        return Compose(scope.GetRequiredKeyedService<IChannelStrategy>(plan.Strategy), plan, described);
    }

    /// <summary>
    /// A strategy's calls under <paramref name="plan"/>: of the described target's method when it names a call (its target
    /// <paramref name="described"/>, else the one this process has compiled), else of the built-in service's.
    /// </summary>
    public static IRunCalls Compose(IChannelStrategy strategy, RunPlan plan, DescribedTarget? described = null)
    {
        if (plan.Described is not null)
        {
            return DescribedPlan.Compose(strategy, plan, described ?? DescribedTarget.Of(plan));
        }

        var oneStream = strategy.Info.Shape == CallShape.OneStream;
        var target = MonitorTarget.For(plan, oneStream);
        return oneStream ? new GrpcStream<Performance.PerformanceStatusRequest, Performance.PerformanceStatusResponse>(strategy, target) : new GrpcCalls<Performance.PerformanceStatusRequest, Performance.PerformanceStatusResponse>(strategy, target);
    }
}
