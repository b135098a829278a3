using System.Globalization;
using LoadEngine.Protocols;
using LoadEngine.Strategies;
using LoadEngine.Thresholds;

namespace LoadEngine.Runs;

/// <summary>
/// A run plan as a user typed it, from a query string, a JSON body or the command line; every value still text.
/// <see cref="Stages"/> is "seconds:rate" pairs ("10:5000,20:5000"), <see cref="Percentiles"/> a comma-separated list.
/// </summary>
public sealed record RunPlanInput(
    string? Strategy,
    string? Count,
    string? Concurrency = null,
    string? Warmup = null,
    string? DelayMs = null,
    string? PayloadBytes = null,
    string? IncludeStatuses = null)
{
    public string? Load { get; init; }

    public string? Rate { get; init; }

    public string? Duration { get; init; }

    public string? Stages { get; init; }

    public string? Percentiles { get; init; }

    public IReadOnlyList<string>? Thresholds { get; init; }

    /// <summary>A workload of <see cref="WorkloadList"/> instead of a strategy; the next four fields name its contender.</summary>
    public string? Workload { get; init; }

    public string? Protocol { get; init; }

    public string? Serializer { get; init; }

    public string? HttpVersion { get; init; }

    public string? Security { get; init; }

    public string? FileBytes { get; init; }

    public string? Connection { get; init; }

    public string? Clients { get; init; }

    public string? Variant { get; init; }

    public string? Users { get; init; }

    /// <summary>
    /// The strategies one input is planned for, each under its own load (a suite, the CLI's "all"): a concurrency is then
    /// meant for those whose own load uses it, and the sequential ones leave it aside. A single run refuses it instead.
    /// </summary>
    public IReadOnlyList<string> SharedBy { get; init; } = [];
}

/// <summary>The limits every plan obeys (the gateway's Runs section, or the CLI's own).</summary>
public sealed record PlanLimits(int MaxCount, int MaxConcurrency, int MaxWarmup, int MaxRunSeconds)
{
    /// <summary>The gateway's defaults, which the CLI uses as they are, so a plan one accepts the other accepts too.</summary>
    public static PlanLimits Defaults { get; } = new(MaxCount: 100_000, MaxConcurrency: 10_000, MaxWarmup: 10_000, MaxRunSeconds: 600);

    /// <summary>The most memory one run may be estimated to need (<see cref="RunMemoryEstimate"/>).</summary>
    public long MaxRunMemoryBytes { get; init; } = RunMemoryEstimate.DefaultLimitBytes;

    public const double MaxRate = 1_000_000;

    /// <summary>
    /// Most calls in flight under an arrival rate when the plan names none (k6's maxVUs): room for a 50 ms stall at
    /// 20 000 calls/s, and about 40 MB of calls in flight when a saturated service makes it fill.
    /// </summary>
    public const int DefaultArrivalInFlight = 1_000;
    public const int MaxStages = 100;
    public const int MaxPercentiles = 20;
}

/// <summary>Turns input into a <see cref="RunPlan"/>, or says what was wrong and what is allowed.</summary>
public static class RunPlanRules
{
    public const int MaxDelayMs = 60_000;
    public const int DefaultPayloadBytes = 100;
    public const int MaxPayloadBytes = 1024 * 1024;
    public const double MinDurationSeconds = 0.1;

    public static readonly string LoadNames = string.Join(", ", Enum.GetValues<LoadKind>().Select(Name));

    public static string Name(LoadKind load) => LoadFact.Of(load).Name;

    /// <summary>
    /// A strategy's plan, or a workload's: <paramref name="strategies"/> are the strategies this caller may run; a workload
    /// run names no strategy (its contender's name becomes its strategy) and runs under the workload's defaults.
    /// </summary>
    public static bool TryCreate(RunPlanInput input, PlanLimits limits, IReadOnlyCollection<string> strategies, out RunPlan plan, out string error)
    {
        plan = null!;
        if (InputBounds.Check(input) is { } tooMuch)
        {
            error = tooMuch;
            return false;
        }

        WorkloadChoice? workload = null;
        if (!string.IsNullOrEmpty(input.Workload))
        {
            if (!TryWorkload(input, out workload, out error))
            {
                return false;
            }
        }
        else if (WorkloadRules.FirstGiven(input) is { } field)
        {
            error = $"{field} applies to workload runs only; name a workload ({string.Join(", ", WorkloadList.Ids)}) or leave it out.";
            return false;
        }
        else if (string.IsNullOrWhiteSpace(input.Strategy) || !strategies.Contains(input.Strategy) || StrategyList.Find(input.Strategy) is null)
        {
            error = $"strategy was '{input.Strategy}'; it must be one of: {string.Join(", ", strategies)}.";
            return false;
        }

        var load = workload?.Workload.DefaultLoad ?? StrategyList.Find(input.Strategy)!.DefaultLoad;
        if (input.Load is { Length: > 0 } loadText && !TryLoad(loadText, out load))
        {
            error = $"load was '{loadText}'; it must be one of: {LoadNames}.";
            return false;
        }

        if (!TryOptionalWhole(input.Count, "count", 1, limits.MaxCount, out var count, out error)
            || !TrySeconds(input.Duration, "duration", limits.MaxRunSeconds, out var duration, out error)
            || !TryWhole(input.Warmup, "warmup", 0, limits.MaxWarmup, 0, out var warmup, out error)
            || !TryWhole(input.DelayMs, "delayMs", 0, MaxDelayMs, 0, out var delayMs, out error)
            || !TryWhole(input.PayloadBytes, "payloadBytes", 1, MaxPayloadBytes, DefaultPayloadBytes, out var payloadBytes, out error)
            || !TryRate(input.Rate, load, out var rate, out error)
            || !TryStages(input.Stages, load, limits, out var stages, out error)
            || !TryPercentiles(input.Percentiles, out var percentiles, out error))
        {
            return false;
        }

        if (count is null && duration is null && load != LoadKind.Ramping && workload is not null)
        {
            count = Math.Min(workload.Workload.DefaultCount, limits.MaxCount);
        }

        if (count is null && duration is null && load != LoadKind.Ramping)
        {
            error = $"{(load == LoadKind.Open ? "An" : "A")} {Name(load)} run needs a count (calls) or a duration (seconds) to end; neither was given.";
            return false;
        }

        if (!TryConcurrency(input.Concurrency, load, input.Load is { Length: > 0 }, SomeUseConcurrency(input.SharedBy), count, limits, out var concurrency, out error))
        {
            return false;
        }

        // A workload's answers are checked and dropped: there is no per-call status to keep.
        var includeStatuses = count is not null && workload is null;
        if (!string.IsNullOrEmpty(input.IncludeStatuses) && !bool.TryParse(input.IncludeStatuses, out includeStatuses))
        {
            error = $"includeStatuses was '{input.IncludeStatuses}'; it must be true or false.";
            return false;
        }

        if (includeStatuses && count is null)
        {
            error = "includeStatuses needs a count: a run bounded only by its duration would keep an answer for every call it makes.";
            return false;
        }

        if (!Threshold.TryParseAll(input.Thresholds, out var thresholds, out error))
        {
            return false;
        }

        plan = new RunPlan
        {
            Strategy = workload?.Contender.Name ?? input.Strategy!,
            Load = load,
            Count = count,
            Duration = duration,
            Concurrency = concurrency,
            Rate = rate,
            Stages = stages,
            Warmup = warmup,
            DelayMs = delayMs,
            PayloadBytes = payloadBytes,
            IncludeStatuses = includeStatuses,
            // A percentile a threshold judges is reported, asked for or not.
            Percentiles = [.. percentiles.Union(Threshold.PercentilesNeeded(thresholds)).Order()],
            Thresholds = [.. thresholds.Select(threshold => threshold.Text)],
            Workload = workload?.Workload.Id,
            Protocol = workload?.Contender.Protocol,
            Serializer = workload?.Contender.Serializer,
            HttpVersion = workload?.Contender.HttpVersion,
            Security = workload?.Contender.Security,
            FileBytes = workload?.FileBytes,
            Connection = workload?.Connection,
            Clients = workload?.Clients,
            Variant = workload?.Variant,
            Users = workload?.Users,
        };
        return RunMemoryEstimate.Fits(plan, limits.MaxRunMemoryBytes, out error);
    }

    private static bool TryWorkload(RunPlanInput input, out WorkloadChoice? workload, out string error)
    {
        workload = null;
        if (!string.IsNullOrEmpty(input.Strategy))
        {
            error = $"A workload run has no strategy: its contender (protocol, serializer, httpVersion, security) is what runs. strategy was '{input.Strategy}' with workload '{input.Workload}'.";
            return false;
        }

        if (!WorkloadRules.TryRead(input, out var choice, out error))
        {
            return false;
        }

        if (!string.IsNullOrEmpty(input.DelayMs) || !string.IsNullOrEmpty(input.PayloadBytes))
        {
            error = $"{(string.IsNullOrEmpty(input.DelayMs) ? "payloadBytes" : "delayMs")} applies to the strategies' calls; a workload's data and answers are fixed by the workload ({choice.Workload.Id}).";
            return false;
        }

        if (input.IncludeStatuses is "true" or "True")
        {
            error = "includeStatuses applies to the strategies' calls; a workload's answers are checked and dropped, so there are none to keep.";
            return false;
        }

        workload = choice;
        return true;
    }

    public static bool TryLoad(string text, out LoadKind load) =>
        Enum.TryParse(text, ignoreCase: true, out load) && Enum.IsDefined(load) && !int.TryParse(text, out _);

    /// <summary>A whole number in [<paramref name="min"/>, <paramref name="max"/>]; missing text means <paramref name="fallback"/> when there is one.</summary>
    public static bool TryWhole(string? text, string name, int min, int max, int? fallback, out int value, out string error, string hint = "")
    {
        error = string.Empty;
        if (string.IsNullOrEmpty(text) && fallback is { } defaultValue)
        {
            value = defaultValue;
            return true;
        }

        if (int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out value) && value >= min && value <= max)
        {
            return true;
        }

        error = $"{name} was '{text}'; it must be a whole number from {min.ToString(CultureInfo.InvariantCulture)} to {max.ToString(CultureInfo.InvariantCulture)}{hint}.";
        return false;
    }

    private static bool TryOptionalWhole(string? text, string name, int min, int max, out int? value, out string error)
    {
        value = null;
        error = string.Empty;
        if (string.IsNullOrEmpty(text))
        {
            return true;
        }

        if (!TryWhole(text, name, min, max, null, out var whole, out error))
        {
            return false;
        }

        value = whole;
        return true;
    }

    /// <summary>The loads a concurrency means something under: calls in flight (closed), the most in flight (arrival rates).</summary>
    public static IReadOnlyList<LoadKind> ConcurrencyLoads { get; } = [.. LoadFact.All.Where(load => load.UsesConcurrency).Select(load => load.Kind)];

    private static bool SomeUseConcurrency(IEnumerable<string> strategies) =>
        strategies.Any(name => StrategyList.Find(name) is { } strategy && ConcurrencyLoads.Contains(strategy.DefaultLoad));

    private static bool TryConcurrency(string? text, LoadKind load, bool loadNamed, bool sharedByStrategies, int? count, PlanLimits limits, out int concurrency, out string error)
    {
        concurrency = 1;
        error = string.Empty;
        if (load is LoadKind.Closed)
        {
            if (string.IsNullOrEmpty(text) && count is null)
            {
                error = $"A closed run bounded by its duration needs a concurrency (calls in flight), from 1 to {limits.MaxConcurrency}.";
                return false;
            }

            if (!TryWhole(text, "concurrency", 1, limits.MaxConcurrency, Math.Min(count ?? 1, limits.MaxConcurrency), out concurrency, out error,
                $" (leave it out for all calls at once, at most {limits.MaxConcurrency.ToString(CultureInfo.InvariantCulture)} in flight)"))
            {
                return false;
            }

            concurrency = Math.Min(concurrency, count ?? concurrency);
            return true;
        }

        // Under an arrival rate, concurrency is the most calls in flight (k6's maxVUs): a call due beyond it waits, then drops.
        if (LoadFact.Of(load).ArrivalRate)
        {
            return TryWhole(text, "concurrency", 1, limits.MaxConcurrency, Math.Min(PlanLimits.DefaultArrivalInFlight, limits.MaxConcurrency), out concurrency, out error,
                " (for an arrival rate, the most calls in flight: a call due beyond it waits, and is dropped when as many already wait)");
        }

        // Sequential calls are one in flight by definition, so a concurrency would do nothing: refused, unless the same
        // settings are shared by strategies of which some run under a load that uses it (still checked).
        if (!string.IsNullOrEmpty(text) && sharedByStrategies && !loadNamed)
        {
            return TryWhole(text, "concurrency", 1, limits.MaxConcurrency, null, out _, out error);
        }

        if (!string.IsNullOrEmpty(text))
        {
            error = $"concurrency applies only with load={string.Join('|', ConcurrencyLoads.Select(Name))} (calls in flight; under an arrival rate, the most in flight); " +
                (loadNamed ? $"load was '{Name(load)}'" : $"left out, this run's load is its own, {Name(load)}") +
                ", where each call waits for the previous answer, so it would do nothing. Leave it out, or name a load that uses it, e.g. load=closed.";
            return false;
        }

        return true;
    }

    private static bool TrySeconds(string? text, string name, int maxSeconds, out double? seconds, out string error)
    {
        seconds = null;
        error = string.Empty;
        if (string.IsNullOrEmpty(text))
        {
            return true;
        }

        if (double.TryParse(text, NumberStyles.AllowDecimalPoint, CultureInfo.InvariantCulture, out var value) && value >= MinDurationSeconds && value <= maxSeconds)
        {
            seconds = value;
            return true;
        }

        error = $"{name} was '{text}'; it must be a number of seconds from {MinDurationSeconds.ToString(CultureInfo.InvariantCulture)} to {maxSeconds} (Runs:MaxRunSeconds).";
        return false;
    }

    private static bool TryRate(string? text, LoadKind load, out double? rate, out string error)
    {
        rate = null;
        error = string.Empty;
        if (string.IsNullOrEmpty(text))
        {
            if (load == LoadKind.Open)
            {
                error = "An open run needs a rate: the calls per second to start, e.g. rate=1000.";
                return false;
            }

            return true;
        }

        if (!LoadFact.Of(load).ArrivalRate)
        {
            error = $"rate applies only to the open and ramping loads; load was '{Name(load)}'.";
            return false;
        }

        var minimum = load == LoadKind.Ramping ? 0 : 0.001;
        if (double.TryParse(text, NumberStyles.AllowDecimalPoint, CultureInfo.InvariantCulture, out var value) && value >= minimum && value <= PlanLimits.MaxRate)
        {
            rate = value;
            return true;
        }

        error = $"rate was '{text}'; it must be a number of calls per second from {minimum.ToString(CultureInfo.InvariantCulture)} to {PlanLimits.MaxRate.ToString(CultureInfo.InvariantCulture)}" +
            (load == LoadKind.Ramping ? " (for a ramping load, the rate it starts from)." : ".");
        return false;
    }

    private static bool TryStages(string? text, LoadKind load, PlanLimits limits, out IReadOnlyList<RampStage>? stages, out string error)
    {
        const string Form = "stages is a list of seconds:rate pairs, each stage moving the rate linearly to its target, e.g. \"10:5000,20:5000\" (0 → 5000/s over 10 s, hold 20 s)";
        stages = null;
        error = string.Empty;
        if (string.IsNullOrWhiteSpace(text))
        {
            if (load == LoadKind.Ramping)
            {
                error = $"A ramping run needs stages: {Form}.";
                return false;
            }

            return true;
        }

        if (load != LoadKind.Ramping)
        {
            error = $"stages applies only to the ramping load; load was '{Name(load)}'.";
            return false;
        }

        var parsed = new List<RampStage>();
        foreach (var pair in text.Split(',', StringSplitOptions.TrimEntries))
        {
            var parts = pair.Split(':', StringSplitOptions.TrimEntries);
            if (parts.Length != 2
                || !double.TryParse(parts[0], NumberStyles.AllowDecimalPoint, CultureInfo.InvariantCulture, out var seconds) || seconds < MinDurationSeconds
                || !double.TryParse(parts[1], NumberStyles.AllowDecimalPoint, CultureInfo.InvariantCulture, out var target) || target > PlanLimits.MaxRate)
            {
                error = $"stages was '{Excerpt.Of(text)}'; '{pair}' is not a stage. {Form}; seconds at least {MinDurationSeconds.ToString(CultureInfo.InvariantCulture)}, rates from 0 to {PlanLimits.MaxRate.ToString(CultureInfo.InvariantCulture)}.";
                return false;
            }

            parsed.Add(new RampStage(seconds, target));
        }

        if (parsed.Count > PlanLimits.MaxStages || parsed.Sum(stage => stage.Duration) > limits.MaxRunSeconds)
        {
            error = $"stages was '{Excerpt.Of(text)}'; at most {PlanLimits.MaxStages} stages lasting at most {limits.MaxRunSeconds} s in all (Runs:MaxRunSeconds).";
            return false;
        }

        stages = parsed;
        return true;
    }

    private static bool TryPercentiles(string? text, out IReadOnlyList<double> percentiles, out string error)
    {
        percentiles = RunPlan.DefaultPercentiles;
        error = string.Empty;
        if (string.IsNullOrWhiteSpace(text))
        {
            return true;
        }

        var values = new List<double>();
        foreach (var item in text.Split(',', StringSplitOptions.TrimEntries))
        {
            if (!double.TryParse(item.TrimStart('p', 'P'), NumberStyles.AllowDecimalPoint, CultureInfo.InvariantCulture, out var value) || value <= 0 || value > 100)
            {
                error = $"percentiles was '{Excerpt.Of(text)}'; '{item}' is not a percentile. Give numbers above 0 and at most 100, e.g. \"50,90,99,99.9\".";
                return false;
            }

            values.Add(value);
        }

        if (values.Distinct().Count() > PlanLimits.MaxPercentiles)
        {
            error = $"percentiles was '{Excerpt.Of(text)}'; at most {PlanLimits.MaxPercentiles} percentiles.";
            return false;
        }

        percentiles = [.. values.Distinct().Order()];
        return true;
    }
}
