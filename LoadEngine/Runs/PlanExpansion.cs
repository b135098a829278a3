using LoadEngine.Protocols;
using LoadEngine.Strategies;
using LoadEngine.Targets.Described;

namespace LoadEngine.Runs;

/// <summary>
/// One plan input turned into the plans of a suite, a comparison's schedule or a list of contenders, and those plans fitted
/// to a described method: the gateway and the CLI both expand here, so both refuse with the same sentences. A problem one
/// plan has names it ("For X: …") when there are several; one every plan has is said once, as it is.
/// </summary>
public static class PlanExpansion
{
    /// <summary>Warm-up calls a comparison gives each run when the input names none: a tenth of the count, at least one, at most this many.</summary>
    public const int MaxDefaultWarmup = 100;

    public const int DefaultRepetitions = 3;
    public const int MaxRepetitions = 10;

    /// <summary>
    /// A suite: the same settings for each strategy of <paramref name="strategies"/> (null: every one), each under its own
    /// load unless the input names one.
    /// </summary>
    public static bool TrySuite(RunPlanInput input, IReadOnlyList<string>? strategies, PlanLimits limits, out IReadOnlyList<RunPlan> plans, out string error)
    {
        plans = [];
        var names = strategies ?? StrategyList.Names;
        var unknown = names.FirstOrDefault(name => !StrategyList.Names.Contains(name));
        if (names.Count == 0 || unknown is not null || names.Distinct().Count() != names.Count)
        {
            error = $"strategies must name each strategy at most once, from: {string.Join(", ", StrategyList.Names)}{(unknown is null ? "" : $"; '{Excerpt.Of(unknown)}' is not one")}.";
            return false;
        }

        var made = names.ToDictionary(name => name, name => Create(input with { Strategy = name, SharedBy = names }, limits, StrategyList.Names));
        if (names.FirstOrDefault(name => made[name].Refusal is not null) is { } refused)
        {
            var refusal = made[refused].Refusal!;
            error = names.Any(name => made[name].Refusal != refusal) ? $"For {refused}: {refusal}" : refusal;
            return false;
        }

        plans = [.. names.Select(name => made[name].Plan!)];
        error = string.Empty;
        return true;
    }

    /// <summary>
    /// A comparison: the input's workload on each contender of <paramref name="contenders"/> (null: every one that can run it
    /// with these settings on this host, at least two), <paramref name="repetitions"/> times (left out, <see cref="DefaultRepetitions"/>)
    /// in the rotated order of <see cref="ComparisonPlan.Schedule"/>, each warmed by a tenth of its count unless the input names a warm-up.
    /// </summary>
    public static bool TryComparison(
        RunPlanInput input, IReadOnlyList<string>? contenders, int? repetitions, PlanLimits limits, EngineOptions engine, out ComparisonPlan comparison, out IReadOnlyList<RunPlan> schedule, out string error)
    {
        comparison = null!;
        schedule = [];
        if (!RunPlanRules.Whole(repetitions, "repetitions", 1, MaxRepetitions, DefaultRepetitions, out var times, out error, " (each repetition runs every contender once)"))
        {
            return false;
        }

        var workload = WorkloadList.Find(input.Workload);
        var plans = ContenderPlans(input, limits);
        IReadOnlyList<string> runnable = [.. ContenderList.All.Where(contender => plans[contender.Name].Plan is not null && WorkloadTargets.Check(contender, engine, out _)).Select(contender => contender.Name)];
        var canRun = $"The contenders that can run {workload?.Id} with these settings on this gateway: {string.Join(", ", runnable)}.";
        error = workload is null
            ? string.IsNullOrEmpty(input.Workload)
                ? $"A comparison needs a workload: one of {string.Join(", ", WorkloadList.Ids)}."
                : $"workload was '{Excerpt.Of(input.Workload)}'; it must be one of: {string.Join(", ", WorkloadList.Ids)}."
            // Refused for every contender: the settings themselves are wrong, and the sentence says how.
            : plans.Values.All(each => each.Plan is null) ? plans.Values.First().Refusal!
            : contenders is null ? runnable.Count < 2 ? $"A comparison needs at least two contenders, and only {runnable.Count} can run {workload.Id} with these settings on this gateway. {canRun}" : string.Empty
            : NamedProblem(contenders, workload, plans, engine, canRun) ?? string.Empty;
        if (error.Length > 0)
        {
            return false;
        }

        var names = contenders ?? runnable;
        var chosen = names.ToDictionary(name => name, name => plans[name].Plan! is var each && input.Warmup is not null ? each : each with { Warmup = DefaultWarmup(each, workload!, limits) });
        comparison = new ComparisonPlan(names, times!.Value);
        schedule = [.. comparison.Schedule().Select(step => chosen[step.Contender])];
        return true;
    }

    /// <summary>The warm-up a comparison gives each run unless told: a tenth of the count (the workload's own when bounded by duration), 1 to 100 calls.</summary>
    private static int DefaultWarmup(RunPlan plan, WorkloadInfo workload, PlanLimits limits) =>
        Math.Min(limits.MaxWarmup, Math.Clamp((plan.Count ?? workload.DefaultCount) / 10, 1, MaxDefaultWarmup));

    /// <summary>
    /// The input's workload once on each contender of <paramref name="named"/>, in turn; null: every contender that can run
    /// it as set (bulk-read's stream: the gRPC ones), in the list's order.
    /// </summary>
    public static bool TryContenders(RunPlanInput input, IReadOnlyList<string>? named, PlanLimits limits, out IReadOnlyList<RunPlan> plans, out string error)
    {
        var made = ContenderPlans(input, limits);
        var refused = named?.Distinct().FirstOrDefault(name => made[name].Refusal is not null);
        plans = refused is not null ? [] : [.. (named ?? ContenderList.Names).Distinct().Select(name => made[name].Plan).OfType<RunPlan>()];
        error = refused is not null ? $"For {refused}: {made[refused].Refusal}"
            : plans.Count == 0 ? made.Values.First().Refusal!
            : string.Empty;
        return error.Length == 0;
    }

    /// <summary>
    /// The plans that call a described method, fitted to <paramref name="target"/> and carrying its descriptors. A method the
    /// target lacks or data that does not fit it refuses them all; a strategy that cannot call the method is refused when
    /// <paramref name="strategiesAsked"/>, and otherwise (a suite of every strategy) left out with a note saying why.
    /// </summary>
    public static bool TryFit(
        IReadOnlyList<RunPlan> plans, DescribedTarget target, bool strategiesAsked, out IReadOnlyList<RunPlan> fitted, out IReadOnlyList<string> notes, out string error)
    {
        fitted = plans;
        notes = [];
        error = string.Empty;
        if (plans.FirstOrDefault(plan => plan.Described is not null)?.Described is not { } call)
        {
            return true;
        }

        DescribedMethod method;
        try
        {
            method = target.Find(call.Call);
            CallData.For(method, call.Messages);
        }
        catch (TargetDescriptionException problem)
        {
            error = problem.Message;
            return false;
        }

        var refused = plans.Select(plan => (plan, Why: StrategyList.Find(plan.Strategy) is { } strategy ? DescribedPlan.Refusal(strategy, method) : null)).Where(each => each.Why is not null).ToList();
        if (refused.Count > 0 && (strategiesAsked || refused.Count == plans.Count))
        {
            error = plans.Count > 1 ? $"For {refused[0].plan.Strategy}: {refused[0].Why}" : refused[0].Why!;
            return false;
        }

        notes = [.. refused.Select(each => $"{each.plan.Strategy} left out: {each.Why}")];
        fitted = [.. plans.Except(refused.Select(each => each.plan)).Select(target.Describing)];
        return true;
    }

    /// <summary>Every contender's plan from the same settings: those whose plan is refused cannot run this workload so.</summary>
    private static Dictionary<string, (RunPlan? Plan, string? Refusal)> ContenderPlans(RunPlanInput input, PlanLimits limits) =>
        ContenderList.All.ToDictionary(contender => contender.Name, contender => Create(contender.Into(input), limits, []));

    private static (RunPlan? Plan, string? Refusal) Create(RunPlanInput input, PlanLimits limits, IReadOnlyCollection<string> strategies) =>
        RunPlanRules.TryCreate(input, limits, strategies, out var plan, out var refusal) ? (plan, null) : (null, refusal);

    /// <summary>Why the contenders a comparison names cannot run: one is unknown or named twice, fewer than two, or one cannot run the workload here.</summary>
    private static string? NamedProblem(
        IReadOnlyList<string> named, WorkloadInfo workload, Dictionary<string, (RunPlan? Plan, string? Refusal)> plans, EngineOptions engine, string canRun) =>
        named.FirstOrDefault(name => ContenderList.Find(name) is null) is { } unknown
            ? $"contenders holds '{Excerpt.Of(unknown)}', which is not a contender; name them from: {string.Join(", ", ContenderList.Names)}."
            : named.GroupBy(name => name).FirstOrDefault(group => group.Count() > 1) is { } twice ? $"contenders holds {twice.Key} more than once; name each contender at most once."
            : named.Count < 2 ? $"A comparison needs at least two contenders; contenders holds {named.Count}. {canRun}"
            : named.Select(name => plans[name].Refusal is { } refusal ? $"{name} cannot run {workload.Id} with these settings: {refusal} {canRun}"
                : WorkloadTargets.Check(ContenderList.Find(name)!, engine, out var unavailable) ? null
                : $"{unavailable} {canRun}").FirstOrDefault(problem => problem is not null);
}
