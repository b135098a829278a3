using System.Text.RegularExpressions;
using Google.Protobuf;
using Grpc.Core;
using LoadEngine.Calls;
using LoadEngine.Runs;
using LoadEngine.Strategies;

namespace LoadEngine.Targets.Described;

/// <summary>
/// A plan's call of a described target: its input checked (the call's form, the data as JSON) before the host describes
/// the target, the plan checked against the method once it has (the method exists, the data fits it, the strategy applies
/// to it), and its calls composed for a strategy.
/// </summary>
public static partial class DescribedPlan
{
    public const string CallForm = "package.Service/Method, e.g. performance.Monitor/GetPerformance";

    [GeneratedRegex(@"^/?[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*[/.][A-Za-z_][A-Za-z0-9_]*$")]
    private static partial Regex CallPattern();

    /// <summary>
    /// The input's target, call and data as the user gave them, checked for form only (the data split into its messages
    /// once): the plan's call, or null when the input names none; false with the sentence when they do not fit.
    /// </summary>
    public static bool TryRead(RunPlanInput input, bool workload, out MethodCall? call, out string error)
    {
        error = "";
        call = null;
        if (input.Target is null && input.Call is null && input.Data is null)
        {
            return true;
        }

        var read = new MethodCall { Target = input.Target, Call = input.Call?.Trim() ?? "", Data = input.Data };

        if (workload)
        {
            error = "target, call and data apply to the strategies' calls; a workload's calls and data are fixed by the workload.";
        }
        else if (string.IsNullOrWhiteSpace(input.Call))
        {
            error = input.Data is not null
                ? $"data is the request of a call; name the call it is for as {CallForm}."
                : $"target {input.Target} needs a call: the method to load, as {CallForm}.";
        }
        else if (!CallPattern().IsMatch(input.Call.Trim()))
        {
            error = $"call was '{Excerpt.Of(input.Call, 80)}'; it must name a method as {CallForm}.";
        }
        else if (input.DelayMs is not null || input.PayloadBytes is not null)
        {
            error = $"{(input.DelayMs is null ? "payloadBytes" : "delayMs")} applies to the built-in service's calls; a call's request comes from data.";
        }
        else if (read.Messages.Refusal is { } problem)
        {
            error = problem;
        }

        call = error.Length == 0 ? read : null;
        return error.Length == 0;
    }

    /// <summary>
    /// Why <paramref name="plan"/> (its <see cref="RunPlan.Descriptors"/> set by the host) cannot run: the target has no such
    /// method, the data does not fit it, or the strategy cannot call it. Null when it can.
    /// </summary>
    public static string? Problem(RunPlan plan)
    {
        try
        {
            return plan.Described is null || PlanExpansion.TryFit([plan], DescribedTarget.Of(plan), strategiesAsked: true, out _, out _, out var error) ? null : error;
        }
        catch (TargetDescriptionException problem)
        {
            return problem.Message;
        }
    }

    /// <summary>Why <paramref name="strategy"/> cannot call <paramref name="method"/>, or null when it can.</summary>
    public static string? Refusal(StrategyInfo strategy, DescribedMethod method) =>
        strategy.Shape == CallShape.OneStream && method.Kind != MethodType.DuplexStreaming
            ? $"{strategy.Name} carries every call as a message on one bidirectional stream, and {method.Call} is {method.KindName}: name a bidirectional method, or another strategy."
            : null;

    /// <summary>A strategy's calls of the plan's described method, as <see cref="RunCallsFactory.Compose"/> makes them.</summary>
    public static IRunCalls Compose(IChannelStrategy strategy, RunPlan plan, DescribedTarget described)
    {
        var call = plan.Described!;
        var method = described.Find(call.Call);
        var data = CallData.For(method, call.Messages);
        if (Refusal(strategy.Info, method) is { } refused)
        {
            throw new TargetDescriptionException(refused);
        }

        var target = new DescribedMethodTarget(method, data, DescribedMethodTarget.WorkerOf(plan), plan.Warmup);
        return strategy.Info.Shape == CallShape.OneStream
            ? new GrpcStream<IMessage, IMessage>(strategy, target)
            : new GrpcCalls<IMessage, IMessage>(strategy, target);
    }
}
