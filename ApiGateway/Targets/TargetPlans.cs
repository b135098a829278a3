using LoadEngine.Runs;
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

        if (string.Equals(name, TargetsOptions.BuiltIn, StringComparison.OrdinalIgnoreCase))
        {
            checkedInput = input with { Target = input.Call is null ? null : TargetsOptions.BuiltIn };
            return true;
        }

        if (!targets.Value.Targets.ContainsKey(name))
        {
            error = $"target was '{Excerpt.Of(name)}'; the configured targets are: {string.Join(", ", targets.Value.Names)} (GET /api/targets lists them with their methods).";
            return false;
        }

        checkedInput = input with { Target = targets.Value.Targets.Keys.First(key => string.Equals(key, name, StringComparison.OrdinalIgnoreCase)) };
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

        var name = plans[0].Described?.Target ?? TargetsOptions.BuiltIn;
        var described = await descriptions.DescribeAsync(name, refresh: false, cancellation);
        if (described.Target is not { } target)
        {
            return ([], Unavailable(described.Problem!));
        }

        // Described from files says nothing of the service: a run starts only on one that answers now.
        if (await descriptions.UnreachableAsync(name, cancellation) is { } unreachable)
        {
            return ([], Unavailable(unreachable));
        }

        return PlanExpansion.TryFit(plans, target, strategiesAsked, out var fitted, out _, out var unfit)
            ? (fitted, null)
            : ([], Errors.ProblemResponses.InvalidParameters(unfit));
    }

    public static ProblemHttpResult Unavailable(string detail) =>
        TypedResults.Problem(statusCode: StatusCodes.Status503ServiceUnavailable, title: "The target is unavailable", detail: detail);
}
