using System.Globalization;
using ApiGateway.Configuration;
using LoadEngine.Protocols;
using LoadEngine.Strategies;

namespace ApiGateway.Endpoints;

/// <summary>
/// A run plan's settings, one entry each, with the limits <see cref="RunPlanRules"/> checks them against (the gateway's
/// Runs options and the rules' constants): the chapter routes' query parameters, and the prose that describes the
/// bodies of POST /api/runs, /api/suites and /api/comparisons.
/// </summary>
public static class RunParameters
{
    private static readonly string ConcurrencyLoads = string.Join('|', RunPlanRules.ConcurrencyLoads.Select(RunPlanRules.Name));

    /// <summary>A chapter route's parameters: count in the path, the plan's other settings in the query.</summary>
    public static RouteParameters ForRoute(StrategyInfo strategy, RunLimitsOptions limits) =>
        new([.. Plan(limits, strategy), IncludeStatuses]);

    /// <summary>The plan's settings for any strategy (a body's fields), described without one strategy's own load.</summary>
    public static RouteParameters ForBody(RunLimitsOptions limits) => new(Plan(limits, null));

    /// <summary>The settings and limits a run-starting endpoint with a JSON body states in its description.</summary>
    public static string Describe(RunLimitsOptions limits) => $"{ForBody(limits).Describe()} {DescribeRunLimits(limits)} {DescribeBounds}";

    /// <summary>What a request may hold at most (<see cref="InputBounds"/>), refused with a 400 naming the field and the bound.</summary>
    public static readonly string DescribeBounds =
        $"Bounds: each name or number at most {InputBounds.MaxValueLength} characters; at most {InputBounds.MaxThresholds} thresholds of at most " +
        $"{InputBounds.MaxThresholdLength} characters each, {PlanLimits.MaxPercentiles} percentiles, {PlanLimits.MaxStages} stages and {InputBounds.MaxNames} names in a list; " +
        "beyond one, a 400 names the field and the bound, before anything is stored.";

    /// <summary>What bounds every run, whatever its settings.</summary>
    public static string DescribeRunLimits(RunLimitsOptions limits) =>
        $"Each call has a deadline of {limits.CallTimeoutSeconds.ToString(CultureInfo.InvariantCulture)} s (Runs:CallTimeoutSeconds); " +
        "failed calls are counted by gRPC status, never as successes. " +
        $"A run fails when no call ends for {limits.SilenceSeconds.ToString(CultureInfo.InvariantCulture)} s while calls are in flight (Runs:SilenceSeconds, plus any delayMs) " +
        $"or {limits.MaxConsecutiveTimeouts} calls in a row miss their deadline (Runs:MaxConsecutiveTimeouts). " +
        $"A run may last {limits.MaxRunSeconds} s (Runs:MaxRunSeconds); at most {limits.MaxRunsInFlight} run(s) at once (Runs:MaxRunsInFlight), more get 429.";

    /// <summary>A plan's payloadBytes, which the payload lesson takes too.</summary>
    public static RouteParameter PayloadBytes { get; } = Setting(PlanSetting.Find("payloadBytes", new RunLimitsOptions().PlanLimits())!);

    private static readonly RouteParameter IncludeStatuses =
        new("includeStatuses", typeof(bool),
            "Whether the answer lists every call's result (performanceStatuses, last in the answer): false leaves the list out, for big counts. " +
            "A run bounded only by its duration needs false.") { Default = true };

    /// <summary>A setting as <see cref="RunPlanInput"/> describes it, by its kind: its range, default and meaning.</summary>
    public static RouteParameter Setting(PlanSetting setting) => setting.Kind switch
    {
        SettingKind.Whole => RouteParameter.Whole(setting.Name, (int)setting.Min, (int)setting.Max, setting.Default as int?, setting.Description),
        SettingKind.Seconds => new(setting.Name, typeof(double), $"{setting.Description} In seconds.") { Minimum = setting.Min, Maximum = setting.Max },
        SettingKind.Named => RouteParameter.OneOf(setting.Name, WireName.Names(setting.EnumType!), setting.Default as string, setting.Description),
        _ => new(setting.Name, typeof(string), $"{setting.Description} Repeat the parameter for several (at most {setting.Max}).")
        {
            Repeatable = true, MaxLength = InputBounds.MaxValueLength, MaxItems = (int)setting.Max,
        },
    };

    private static IReadOnlyList<RouteParameter> Plan(RunLimitsOptions limits, StrategyInfo? strategy)
    {
        var ownLoad = strategy is null ? null : RunPlanRules.Name(strategy.DefaultLoad);
        var sequential = strategy?.DefaultLoad == LoadKind.Sequential;
        return
        [
            RouteParameter.Whole("count", 1, limits.MaxCount, null,
                "How many calls the run measures (for the stream, how many messages); at most Runs:MaxCount." +
                (strategy is null ? " Left out, the run needs a duration (a workload's own count otherwise)." : "")) with
            {
                InPath = strategy is not null, Example = 1000,
            },
            RouteParameter.OneOf("load", [.. Enum.GetValues<LoadKind>().Select(RunPlanRules.Name)], ownLoad,
                "How calls are started: sequential (each waits for the previous answer), closed (concurrency calls in flight), " +
                "open (rate calls per second on a schedule, answered or not), ramping (a rate that moves through stages). " +
                (strategy is null ? "Left out, the strategy's own: sequential for the Performance routes but the stream, closed for the stream and the Concurrency routes." : "Left out, this route's own, as in the chapter.")),
            RouteParameter.Whole("concurrency", 1, limits.MaxConcurrency, null,
                $"Only with load={ConcurrencyLoads}: under closed, the calls in flight (left out, all calls at once, at most {limits.MaxConcurrency}); " +
                $"under open and ramping, the most in flight (left out, {Math.Min(PlanLimits.DefaultArrivalInFlight, limits.MaxConcurrency)}). " +
                (sequential ? "This route's own load is sequential, so it is refused unless load names one of those." : "With load=sequential it is refused: it would do nothing.")),
            new RouteParameter("rate", typeof(double),
                "Only with load=open, which needs it (calls started per second, above 0), or ramping (the rate it starts from; left out, 0); refused under other loads.")
            {
                Minimum = 0, Maximum = PlanLimits.MaxRate,
            },
            new RouteParameter("duration", typeof(double),
                "Seconds the measured phase lasts; with a count, whichever ends first (at most Runs:MaxRunSeconds). Left out, the run ends at its count.")
            {
                Minimum = RunPlanRules.MinDurationSeconds, Maximum = limits.MaxRunSeconds,
            },
            new RouteParameter("stages", typeof(string),
                $"Only with load=ramping, which needs them: seconds:rate pairs, each moving the rate linearly to its target, e.g. 10:5000,20:5000 " +
                $"(at most {PlanLimits.MaxStages} stages, {limits.MaxRunSeconds} s in all). Left out under every other load, which refuses it.")
            {
                Pattern = @"^\s*\d+(\.\d+)?\s*:\s*\d+(\.\d+)?\s*(,\s*\d+(\.\d+)?\s*:\s*\d+(\.\d+)?\s*)*$", Example = "10:5000,20:5000",
                MaxLength = PlanLimits.MaxStages * (InputBounds.MaxStageLength + 1),
            },
            .. DescribedSettings.All(limits.PlanLimits()).Select(Setting),
            new RouteParameter("percentiles", typeof(string),
                $"Which latency percentiles to report, comma-separated, each above 0 and at most 100 (at most {PlanLimits.MaxPercentiles}); a percentile a threshold judges is always reported.")
            {
                Pattern = @"^\s*[pP]?\d+(\.\d+)?\s*(,\s*[pP]?\d+(\.\d+)?\s*)*$",
                MaxLength = PlanLimits.MaxPercentiles * (InputBounds.MaxValueLength + 1),
                Default = string.Join(',', RunPlan.DefaultPercentiles.Select(percentile => percentile.ToString(CultureInfo.InvariantCulture))),
            },
            new RouteParameter("thresholds", typeof(string),
                "k6-style pass/fail conditions the run's verdict judges, such as \"p99 < 5ms\" or \"errorRate < 1%\"; repeat the parameter for several " +
                $"(at most {InputBounds.MaxThresholds}, each at most {InputBounds.MaxThresholdLength} characters). " +
                "Left out, the verdict has none to judge.")
            {
                Repeatable = true, Example = "p99 < 5ms", MaxLength = InputBounds.MaxThresholdLength, MaxItems = InputBounds.MaxThresholds,
            },
        ];
    }
}
