using ApiGateway.Endpoints;
using LoadEngine;
using LoadEngine.Protocols;

namespace ApiGateway.Comparisons;

/// <summary>A comparison as checked: what it compares, and each run's plan in the order they run.</summary>
public sealed record ComparisonRequest(ComparisonPlan Comparison, IReadOnlyList<RunPlan> Schedule);

/// <summary>Turns a comparison's body into its runs' plans, or says what was wrong and what is allowed.</summary>
public static class ComparisonRules
{
    public const int DefaultRepetitions = 3;
    public const int MaxRepetitions = 10;

    /// <summary>Warm-up calls when the request names none: a tenth of the count, at least one, at most this many.</summary>
    public const int MaxDefaultWarmup = 100;

    public static bool TryCreate(RunRequestReader.RunRequest request, PlanLimits limits, EngineOptions engine, out ComparisonRequest comparison, out string error)
    {
        comparison = null!;
        if (!RunPlanRules.TryWhole(request.Repetitions, "repetitions", 1, MaxRepetitions, DefaultRepetitions, out var repetitions, out error,
                " (each repetition runs every contender once)"))
        {
            return false;
        }

        if (WorkloadList.Find(request.Input.Workload) is not { } workload)
        {
            error = string.IsNullOrEmpty(request.Input.Workload)
                ? $"A comparison needs a workload: one of {string.Join(", ", WorkloadList.Ids)}."
                : $"workload was '{Excerpt.Of(request.Input.Workload)}'; it must be one of: {string.Join(", ", WorkloadList.Ids)}.";
            return false;
        }

        // Every contender's plan from the same settings: those whose plan is refused cannot run this workload so.
        var plans = ContenderList.All.ToDictionary(contender => contender.Name, contender =>
            RunPlanRules.TryCreate(contender.Into(request.Input), limits, [], out var plan, out var refusal) ? (Plan: plan, Refusal: (string?)null) : (null, refusal));
        var valid = ContenderList.All.Where(contender => plans[contender.Name].Plan is not null).ToList();
        if (valid.Count == 0)
        {
            // Refused for every contender: the settings themselves are wrong, and the sentence says how.
            error = plans.Values.First().Refusal!;
            return false;
        }

        var runnable = valid.Where(contender => WorkloadTargets.Check(contender, engine, out _)).ToList();
        var canRun = $"The contenders that can run {workload.Id} with these settings on this gateway: {string.Join(", ", runnable.Select(contender => contender.Name))}.";
        IReadOnlyList<string> names;
        if (request.Names is { } named)
        {
            if (!TryNamed(named, workload, plans, engine, canRun, out error))
            {
                return false;
            }

            names = named;
        }
        else
        {
            names = [.. runnable.Select(contender => contender.Name)];
            if (names.Count < 2)
            {
                error = $"A comparison needs at least two contenders, and only {names.Count} can run {workload.Id} with these settings on this gateway. {canRun}";
                return false;
            }
        }

        var warmupGiven = request.Input.Warmup is not null;
        var chosen = names.ToDictionary(name => name, name => plans[name].Plan! is var each && warmupGiven ? each : each with { Warmup = DefaultWarmup(each, workload, limits) });
        var plan = new ComparisonPlan(names, repetitions);
        comparison = new ComparisonRequest(plan, [.. plan.Schedule().Select(step => chosen[step.Contender])]);
        return true;
    }

    /// <summary>The warm-up a comparison gives each run unless told: a tenth of the count (the workload's own when bounded by duration), 1 to 100 calls.</summary>
    public static int DefaultWarmup(RunPlan plan, WorkloadInfo workload, PlanLimits limits) =>
        Math.Min(limits.MaxWarmup, Math.Clamp((plan.Count ?? workload.DefaultCount) / 10, 1, MaxDefaultWarmup));

    private static bool TryNamed(
        IReadOnlyList<string> named, WorkloadInfo workload, IReadOnlyDictionary<string, (RunPlan? Plan, string? Refusal)> plans, EngineOptions engine, string canRun, out string error)
    {
        error = string.Empty;
        var unknown = named.FirstOrDefault(name => ContenderList.Find(name) is null);
        if (unknown is not null)
        {
            error = $"contenders holds '{Excerpt.Of(unknown)}', which is not a contender; name them from: {string.Join(", ", ContenderList.Names)}.";
            return false;
        }

        var twice = named.GroupBy(name => name).FirstOrDefault(group => group.Count() > 1);
        if (twice is not null)
        {
            error = $"contenders holds {twice.Key} more than once; name each contender at most once.";
            return false;
        }

        if (named.Count < 2)
        {
            error = $"A comparison needs at least two contenders; contenders holds {named.Count}. {canRun}";
            return false;
        }

        foreach (var name in named)
        {
            if (plans[name].Refusal is { } refusal)
            {
                error = $"{name} cannot run {workload.Id} with these settings: {refusal} {canRun}";
                return false;
            }

            if (!WorkloadTargets.Check(ContenderList.Find(name)!, engine, out var unavailable))
            {
                error = $"{unavailable} {canRun}";
                return false;
            }
        }

        return true;
    }
}
