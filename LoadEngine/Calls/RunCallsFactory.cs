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
    public IRunCalls Create(RunPlan plan) => plan.Workload is null
        ? Compose(StrategyList.Resolve(scope, plan.Strategy), plan)
        : WorkloadStrategy.Create(plan, scope.GetRequiredService<IOptions<EngineOptions>>().Value, scope.GetRequiredService<ChannelFactory>());

    /// <summary>A strategy's calls under <paramref name="plan"/>: of the described target's method when it names a call, else of the built-in service's.</summary>
    public static IRunCalls Compose(IChannelStrategy strategy, RunPlan plan)
    {
        if (plan.Call is not null)
        {
            return DescribedPlan.Compose(strategy, plan);
        }

        var oneStream = strategy.Info.Shape == CallShape.OneStream;
        var target = MonitorTarget.For(plan, oneStream);
        return oneStream ? new GrpcStream<Performance.PerformanceStatusRequest, Performance.PerformanceStatusResponse>(strategy, target) : new GrpcCalls<Performance.PerformanceStatusRequest, Performance.PerformanceStatusResponse>(strategy, target);
    }
}
