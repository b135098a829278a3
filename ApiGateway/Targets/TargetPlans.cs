using LoadEngine.Lessons;
using LoadEngine.Runs;
using LoadEngine.Targets.Described;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.Extensions.Options;

namespace ApiGateway.Targets;

/// <summary>
/// A plan's target, call and data against the configured targets: a target that is not configured is refused naming those
/// that are; a plan that names a call gets the target's descriptors (described on demand), then is checked against the
/// method (it exists, the data fits, the strategy applies to it).
/// </summary>
public sealed class TargetPlans(IOptions<TargetsOptions> targets, TargetDescriptions descriptions)
{
    /// <summary>
    /// The input with its target checked: the built-in target named without a call is the same as none (the chapter's
    /// call). False with the sentence when the target is not configured.
    /// </summary>
    public bool TryCheck(RunPlanInput input, out RunPlanInput checkedInput, out string error)
    {
        checkedInput = input;
        error = string.Empty;
        if (input.Target is not { } name)
        {
            return true;
        }

        if (targets.Value.Find(name) is not { } configured)
        {
            error = $"target was '{Excerpt.Of(name)}'; the configured targets are: {string.Join(", ", targets.Value.Names)} (GET /api/targets lists them with their methods).";
            return false;
        }

        checkedInput = input with { Target = configured == TargetsOptions.BuiltIn && input.Call is null ? null : configured };
        return true;
    }

    /// <summary>
    /// The plans with their target's descriptors, or the problem: 503 when the target cannot be described or reached, 400
    /// when the method, the data or a strategy does not fit (<see cref="PlanExpansion.TryFit"/>).
    /// </summary>
    public async Task<(IReadOnlyList<RunPlan> Plans, ProblemHttpResult? Problem)> DescribeAsync(IReadOnlyList<RunPlan> plans, bool strategiesAsked, CancellationToken cancellation)
    {
        if (plans.Count == 0 || plans[0].Described is null)
        {
            return (plans, null);
        }

        var (target, problem) = await ReadyAsync(plans[0].Described?.Target ?? TargetsOptions.BuiltIn, cancellation);
        if (target is null)
        {
            return ([], problem);
        }

        return PlanExpansion.TryFit(plans, target, strategiesAsked, out var fitted, out _, out var unfit)
            ? (fitted, null)
            : ([], Errors.ProblemResponses.InvalidParameters(unfit));
    }

    /// <summary>
    /// The user's method the input names, for a lesson or a checkup to run on, described by its target's description (as a
    /// run's is): a 400 when the input does not read (<paramref name="noCall"/> when it names no call), a 503 when the target
    /// cannot be described or reached. Left out, the target is the built-in service, called through its descriptors.
    /// </summary>
    public async Task<(LessonCall? Call, ProblemHttpResult? Problem)> CallOfAsync(RunPlanInput input, string? streamCall, string noCall, CancellationToken cancellation)
    {
        if (string.IsNullOrWhiteSpace(input.Call))
        {
            return (null, Errors.ProblemResponses.InvalidParameters(noCall));
        }

        if (!TryCheck(input, out var checkedInput, out var error) || !DescribedPlan.TryRead(checkedInput, workload: false, out _, out error))
        {
            return (null, Errors.ProblemResponses.InvalidParameters(error));
        }

        var name = checkedInput.Target ?? TargetsOptions.BuiltIn;
        var (target, problem) = await ReadyAsync(name, cancellation);
        if (target is null)
        {
            return (null, problem);
        }

        return (new LessonCall(checkedInput.Target, new Uri(descriptions.AddressOf(name)), target, checkedInput.Call!.Trim(), checkedInput.Data, streamCall,
            BuiltIn: string.Equals(name, TargetsOptions.BuiltIn, StringComparison.OrdinalIgnoreCase)), null);
    }

    /// <summary>
    /// The target described and answering now, or the 503 that says why not: described from files says nothing of the
    /// service, so a run starts only on one that answers.
    /// </summary>
    public async Task<(DescribedTarget? Target, ProblemHttpResult? Problem)> ReadyAsync(string name, CancellationToken cancellation)
    {
        var described = await descriptions.DescribeAsync(name, refresh: false, cancellation);
        return described.Target is null ? (null, Unavailable(described.Problem!))
            : await descriptions.UnreachableAsync(name, cancellation) is { } unreachable ? (null, Unavailable(unreachable))
            : (described.Target, null);
    }

    private static ProblemHttpResult Unavailable(string detail) =>
        TypedResults.Problem(statusCode: StatusCodes.Status503ServiceUnavailable, title: "The target is unavailable", detail: detail);
}
