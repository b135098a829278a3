using System.ComponentModel;
using System.ComponentModel.DataAnnotations;
using System.Globalization;
using System.Reflection;
using System.Text.Json;
using System.Text.Json.Serialization;
using LoadEngine.Protocols;
using LoadEngine.Strategies;
using LoadEngine.Thresholds;

namespace LoadEngine.Runs;

/// <summary>
/// A run plan as a caller asked for it, typed: a JSON body, a query string or a command line as <see cref="RunPlanText"/>
/// bound it, or a plan a lesson, a comparison or the warm-up builds. Null means left out. NSwag describes it as the body
/// of POST /api/runs, bounds included (<see cref="InputBounds"/>).
/// </summary>
public record RunPlanInput(
    [property: StringLength(InputBounds.MaxValueLength)] string? Strategy,
    [property: PlanLimit(1, nameof(PlanLimits.MaxCount))] int? Count,
    [property: PlanLimit(1, nameof(PlanLimits.MaxConcurrency))] int? Concurrency = null,
    bool? IncludeStatuses = null) : DescribedSettings
{
    public LoadKind? Load { get; init; }

    public double? Rate { get; init; }

    public double? Duration { get; init; }

    [MaxLength(PlanLimits.MaxStages)]
    public IReadOnlyList<RampStage>? Stages { get; init; }

    [MaxLength(PlanLimits.MaxPercentiles)]
    public IReadOnlyList<double>? Percentiles { get; init; }

    [MaxLength(InputBounds.MaxThresholds)]
    public IReadOnlyList<string>? Thresholds { get; init; }

    /// <summary>A workload of <see cref="WorkloadList"/> instead of a strategy; the next four fields name its contender.</summary>
    [StringLength(InputBounds.MaxValueLength)]
    public string? Workload { get; init; }

    public ApiProtocol? Protocol { get; init; }

    public PayloadSerializer? Serializer { get; init; }

    public WireVersion? HttpVersion { get; init; }

    public WireSecurity? Security { get; init; }

    public long? FileBytes { get; init; }

    public ConnectionUse? Connection { get; init; }

    [Range(1, WorkloadParameters.MaxClients)]
    public int? Clients { get; init; }

    public BulkReadVariant? Variant { get; init; }

    public int? Users { get; init; }

    /// <summary>The configured target a strategy calls, by name; left out, the built-in PerformanceService.</summary>
    [StringLength(InputBounds.MaxValueLength)]
    public string? Target { get; init; }

    /// <summary>The target's method, "pkg.Service/Method"; left out, the built-in service's own.</summary>
    [StringLength(InputBounds.MaxCallLength)]
    public string? Call { get; init; }

    /// <summary>The call's request: a JSON object, or an array of them (a stream's messages, or unary calls' in turn), with ghz's templates.</summary>
    [StringLength(InputBounds.MaxDataLength)]
    public string? Data { get; init; }

    /// <summary>
    /// The strategies one input is planned for, each under its own load (a suite, the CLI's "all"): a concurrency is then
    /// meant for those whose own load uses it, and the sequential ones leave it aside. A single run refuses it instead.
    /// The caller's, never the request's.
    /// </summary>
    [JsonIgnore]
    public IReadOnlyList<string> SharedBy { get; init; } = [];
}

/// <summary>
/// The plan's settings that describe themselves, each of the kind its type says: a whole number (<c>int?</c>), a length of
/// time in seconds (<c>double?</c>), one of an enum's wire names (<see cref="WireName{TEnum}"/>?) or a list of labels
/// (<c>string[]?</c>). Its range ([Range], or [PlanLimit] for a configured most; a list's [MaxLength] items), default and
/// meaning are its attributes. A body, a chapter route's query (<c>ChapterQuery</c> inherits them) and the CLI take each by
/// its name, and <see cref="PlanSetting"/> documents and checks it by its kind, so a new one added here is bound, documented,
/// checked and offered everywhere without a line elsewhere.
/// </summary>
public record DescribedSettings
{
    [PlanLimit(0, nameof(PlanLimits.MaxWarmup)), DefaultValue(0), Description("Calls made first, under the same load, and kept out of the figures.")]
    public int? Warmup { get; init; }

    [Range(0, RunPlanRules.MaxDelayMs), DefaultValue(0), Description("Milliseconds the service waits before each answer.")]
    public int? DelayMs { get; init; }

    [Range(1, RunPlanRules.MaxPayloadBytes), DefaultValue(RunPlanRules.DefaultPayloadBytes), Description("Size of each of the answer's two bytes fields.")]
    public int? PayloadBytes { get; init; }

    private static readonly PropertyInfo[] Declared = typeof(DescribedSettings).GetProperties(BindingFlags.Public | BindingFlags.Instance | BindingFlags.DeclaredOnly);

    /// <summary>Each setting declared here, in its order, under <paramref name="limits"/>.</summary>
    public static IEnumerable<PlanSetting> All(PlanLimits limits) => Declared.Select(property => PlanSetting.Of(property, limits)!);

    /// <summary>A copy of <paramref name="input"/> that takes these settings, each by its property.</summary>
    public RunPlanInput Into(RunPlanInput input)
    {
        var copy = input with { };
        Array.ForEach(Declared, property => property.SetValue(copy, property.GetValue(this)));
        return copy;
    }
}

/// <summary>The kinds of setting <see cref="DescribedSettings"/> holds, by their types.</summary>
public enum SettingKind { Whole, Seconds, Named, Labels }

/// <summary>A setting of <see cref="RunPlanInput"/> that states its range: its JSON name, range (a list's: how many items), default and meaning.</summary>
public sealed record PlanSetting(string Name, double Min, double Max, object? Default, string Description)
{
    [JsonIgnore]
    public PropertyInfo Property { get; init; } = null!;

    [JsonIgnore]
    public SettingKind Kind { get; init; }

    /// <summary>A named setting's enum; null for the other kinds.</summary>
    [JsonIgnore]
    public Type? EnumType => WireName.EnumOf(Property.PropertyType);

    /// <summary>A field of <see cref="RunPlanInput"/> by its JSON name, as its attributes state it; null for one of no kind with a range or meaning.</summary>
    public static PlanSetting? Find(string field, PlanLimits limits) =>
        typeof(RunPlanInput).GetProperty(field, BindingFlags.Public | BindingFlags.Instance | BindingFlags.IgnoreCase) is { } property ? Of(property, limits) : null;

    public static PlanSetting? Of(PropertyInfo property, PlanLimits limits)
    {
        var type = property.PropertyType;
        SettingKind? kind = type == typeof(int?) ? SettingKind.Whole : type == typeof(double?) ? SettingKind.Seconds : type == typeof(string[]) ? SettingKind.Labels
            : WireName.EnumOf(type) is not null ? SettingKind.Named : null;
        var (min, max) = property.GetCustomAttribute<RangeAttribute>() is { } range ? (Convert.ToDouble(range.Minimum), Convert.ToDouble(range.Maximum))
            : property.GetCustomAttribute<PlanLimitAttribute>()?.Of(limits) ?? (0, property.GetCustomAttribute<MaxLengthAttribute>()?.Length ?? 0);
        var description = property.GetCustomAttribute<DescriptionAttribute>()?.Description;
        return kind is null || (max == 0 && description is null) ? null : new PlanSetting(JsonNamingPolicy.CamelCase.ConvertName(property.Name), min, max,
            property.GetCustomAttribute<DefaultValueAttribute>()?.Value, description ?? "") { Property = property, Kind = kind.Value };
    }

    /// <summary>The sentence for text this setting does not read, or for a value beyond its range written as text.</summary>
    public string Refused(string text) => Kind switch
    {
        SettingKind.Whole => RunPlanRules.WholeRefused(Name, text, (long)Min, (long)Max),
        SettingKind.Seconds => $"{Name} was '{Excerpt.Of(text)}'; it must be a number of seconds from {Number(Min)} to {Number(Max)}.",
        SettingKind.Named => $"{Name} was '{Excerpt.Of(text)}'; it must be {WireName.Listed(EnumType!)}.",
        _ => $"{Name} must be an array of strings, at most {Number(Max)}; it held {Excerpt.Of(text)}.",
    };

    /// <summary>The sentence for a value beyond this setting's range (a list: more items than it takes, or a label too long); null when it fits or is left out.</summary>
    public string? Check(object? value) => value switch
    {
        int whole when whole < Min || whole > Max => Refused(Number(whole)),
        double seconds when !(seconds >= Min && seconds <= Max) => Refused(Number(seconds)),
        string[] labels when labels.Length > Max => $"{Name} holds {Number(labels.Length)} items; at most {Number(Max)} are allowed.",
        string[] labels => labels.Select((label, index) => InputBounds.TooLong($"{Name}[{index}]", label, InputBounds.MaxValueLength)).FirstOrDefault(problem => problem is not null),
        _ => null,
    };

    private static string Number(double value) => value.ToString(CultureInfo.InvariantCulture);
}

/// <summary>A setting's range whose most is one of <see cref="PlanLimits"/>' configured limits, named; a fixed range is a [Range].</summary>
[AttributeUsage(AttributeTargets.Property)]
public sealed class PlanLimitAttribute(double minimum, string limit) : Attribute
{
    public (double Min, double Max) Of(PlanLimits limits) => (minimum, Convert.ToDouble(typeof(PlanLimits).GetProperty(limit)!.GetValue(limits)));
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

    /// <summary>How stages are written, in the sentences that refuse them.</summary>
    public const string StagesForm = "stages is a list of seconds:rate pairs, each stage moving the rate linearly to its target, e.g. \"10:5000,20:5000\" (0 → 5000/s over 10 s, hold 20 s)";

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

        WorkloadContender? workload = null;
        if (!(string.IsNullOrEmpty(input.Workload) ? TryStrategy(input, strategies, out error) : TryWorkload(input, out workload, out error))
            || !Targets.Described.DescribedPlan.TryRead(input, workload is not null, out var described, out error))
        {
            return false;
        }

        var workloadInfo = workload is null ? null : WorkloadList.Find(workload.Id)!;
        var load = input.Load ?? workloadInfo?.DefaultLoad ?? StrategyList.Find(input.Strategy)!.DefaultLoad;
        if (!Setting(input.Count, "count", limits, out var count, out error)
            || !Seconds(input.Duration, limits.MaxRunSeconds, out error)
            || !Described(input, limits, out error)
            || !TryRate(input.Rate, load, out error)
            || !TryStages(input.Stages, load, limits, out error)
            || !TryPercentiles(input.Percentiles, out var percentiles, out error))
        {
            return false;
        }

        // Left unbounded, a workload runs its own count; a strategy's run is refused.
        if (count is null && input.Duration is null && load != LoadKind.Ramping)
        {
            if (workloadInfo is null)
            {
                error = $"{(load == LoadKind.Open ? "An" : "A")} {Name(load)} run needs a count (calls) or a duration (seconds) to end; neither was given.";
                return false;
            }

            count = Math.Min(workloadInfo.DefaultCount, limits.MaxCount);
        }

        if (!TryConcurrency(input.Concurrency, load, input.Load is not null, SomeUseConcurrency(input.SharedBy), count, limits, out var concurrency, out error))
        {
            return false;
        }

        // A workload's answers are checked and dropped: there is no per-call status to keep.
        var includeStatuses = input.IncludeStatuses ?? (count is not null && workload is null);
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
            Strategy = workload?.Contender?.Name ?? input.Strategy!,
            Called = workload ?? (PlanCall?)described ?? new BuiltInCall(input.DelayMs ?? 0, input.PayloadBytes ?? DefaultPayloadBytes),
            Load = load,
            Count = count,
            Duration = input.Duration,
            Concurrency = concurrency,
            Rate = input.Rate,
            Stages = input.Stages,
            Warmup = input.Warmup ?? 0,
            IncludeStatuses = includeStatuses,
            // A percentile a threshold judges is reported, asked for or not.
            Percentiles = [.. percentiles.Union(Threshold.PercentilesNeeded(thresholds)).Order()],
            Thresholds = [.. thresholds.Select(threshold => threshold.Text)],
        };
        return RunMemoryEstimate.Fits(plan, limits.MaxRunMemoryBytes, out error);
    }

    private static bool TryStrategy(RunPlanInput input, IReadOnlyCollection<string> strategies, out string error)
    {
        error = WorkloadRules.FirstGiven(input) is { } field
            ? $"{field} applies to workload runs only; name a workload ({string.Join(", ", WorkloadList.Ids)}) or leave it out."
            : string.IsNullOrWhiteSpace(input.Strategy) || !strategies.Contains(input.Strategy) || StrategyList.Find(input.Strategy) is null
                ? $"strategy was '{input.Strategy}'; it must be one of: {string.Join(", ", strategies)}."
                : string.Empty;
        return error.Length == 0;
    }

    private static bool TryWorkload(RunPlanInput input, out WorkloadContender? workload, out string error)
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

        workload = choice;
        error = input.DelayMs is not null || input.PayloadBytes is not null
            ? $"{(input.DelayMs is null ? "payloadBytes" : "delayMs")} applies to the strategies' calls; a workload's data and answers are fixed by the workload ({choice.Id})."
            : input.IncludeStatuses is true ? "includeStatuses applies to the strategies' calls; a workload's answers are checked and dropped, so there are none to keep."
            : string.Empty;
        return error.Length == 0;
    }

    /// <summary>Every setting <see cref="DescribedSettings"/> declares, checked by its kind: the first beyond its range is the sentence.</summary>
    private static bool Described(RunPlanInput input, PlanLimits limits, out string error)
    {
        error = DescribedSettings.All(limits).Select(setting => setting.Check(setting.Property.GetValue(input))).FirstOrDefault(problem => problem is not null) ?? string.Empty;
        return error.Length == 0;
    }

    private static bool Setting(int? given, string field, PlanLimits limits, out int? value, out string error)
    {
        var setting = PlanSetting.Find(field, limits)!;
        return Whole(given, field, (long)setting.Min, (long)setting.Max, setting.Default as int?, out value, out error);
    }

    /// <summary>A whole number written as text, in [<paramref name="min"/>, <paramref name="max"/>]; missing text means <paramref name="fallback"/> when there is one.</summary>
    public static bool TryWhole(string? text, string name, int min, int max, int? fallback, out int value, out string error, string hint = "")
    {
        (value, error) = string.IsNullOrEmpty(text) && fallback is { } defaultValue ? (defaultValue, string.Empty)
            : int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var read) && read >= min && read <= max ? (read, string.Empty)
            : (0, WholeRefused(name, text, min, max, hint));
        return error.Length == 0;
    }

    /// <summary>A whole number in [<paramref name="min"/>, <paramref name="max"/>], or <paramref name="fallback"/> when left out.</summary>
    public static bool Whole(long? given, string name, long min, long max, int? fallback, out int? value, out string error, string hint = "")
    {
        value = given is { } number ? (int)Math.Clamp(number, int.MinValue, int.MaxValue) : fallback;
        error = given is { } whole && (whole < min || whole > max) ? WholeRefused(name, whole.ToString(CultureInfo.InvariantCulture), min, max, hint) : string.Empty;
        return error.Length == 0;
    }

    public static string WholeRefused(string name, string? text, long min, long max, string hint = "") =>
        $"{name} was '{Excerpt.Of(text)}'; it must be a whole number from {min.ToString(CultureInfo.InvariantCulture)} to {max.ToString(CultureInfo.InvariantCulture)}{hint}.";

    /// <summary>The loads a concurrency means something under: calls in flight (closed), the most in flight (arrival rates).</summary>
    public static IReadOnlyList<LoadKind> ConcurrencyLoads { get; } = [.. LoadFact.All.Where(load => load.UsesConcurrency).Select(load => load.Kind)];

    private static bool SomeUseConcurrency(IEnumerable<string> strategies) =>
        strategies.Any(name => StrategyList.Find(name) is { } strategy && ConcurrencyLoads.Contains(strategy.DefaultLoad));

    private static bool TryConcurrency(int? given, LoadKind load, bool loadNamed, bool sharedByStrategies, int? count, PlanLimits limits, out int concurrency, out string error)
    {
        concurrency = 1;
        error = string.Empty;
        var closed = load is LoadKind.Closed;
        if (closed && given is null && count is null)
        {
            error = $"A closed run bounded by its duration needs a concurrency (calls in flight), from 1 to {limits.MaxConcurrency}.";
            return false;
        }

        // Under an arrival rate, concurrency is the most calls in flight (k6's maxVUs): a call due beyond it waits, then drops.
        if (ConcurrencyLoads.Contains(load))
        {
            var fits = Whole(given, "concurrency", 1, limits.MaxConcurrency, Math.Min(closed ? count ?? 1 : PlanLimits.DefaultArrivalInFlight, limits.MaxConcurrency), out var value, out error, closed
                ? $" (leave it out for all calls at once, at most {limits.MaxConcurrency.ToString(CultureInfo.InvariantCulture)} in flight)"
                : " (for an arrival rate, the most calls in flight: a call due beyond it waits, and is dropped when as many already wait)");
            concurrency = closed ? Math.Min(value!.Value, count ?? value.Value) : value!.Value;
            return fits;
        }

        // Sequential calls are one in flight by definition, so a concurrency would do nothing: refused, unless the same
        // settings are shared by strategies of which some run under a load that uses it (still checked).
        if (given is not null && sharedByStrategies && !loadNamed)
        {
            return Whole(given, "concurrency", 1, limits.MaxConcurrency, null, out _, out error);
        }

        if (given is not null)
        {
            error = $"concurrency applies only with load={string.Join('|', ConcurrencyLoads.Select(Name))} (calls in flight; under an arrival rate, the most in flight); " +
                (loadNamed ? $"load was '{Name(load)}'" : $"left out, this run's load is its own, {Name(load)}") +
                ", where each call waits for the previous answer, so it would do nothing. Leave it out, or name a load that uses it, e.g. load=closed.";
            return false;
        }

        return true;
    }

    public static string SecondsRefused(string? text, int maxSeconds) =>
        $"duration was '{Excerpt.Of(text)}'; it must be a number of seconds from {MinDurationSeconds.ToString(CultureInfo.InvariantCulture)} to {maxSeconds} (Runs:MaxRunSeconds).";

    private static bool Seconds(double? seconds, int maxSeconds, out string error)
    {
        error = seconds is { } value && !(value >= MinDurationSeconds && value <= maxSeconds) ? SecondsRefused(Text(value), maxSeconds) : string.Empty;
        return error.Length == 0;
    }

    public static string RateRefused(string? text, LoadKind load) =>
        $"rate was '{Excerpt.Of(text)}'; it must be a number of calls per second from {(load == LoadKind.Ramping ? "0" : "0.001")} to {PlanLimits.MaxRate.ToString(CultureInfo.InvariantCulture)}" +
        (load == LoadKind.Ramping ? " (for a ramping load, the rate it starts from)." : ".");

    private static bool TryRate(double? rate, LoadKind load, out string error)
    {
        error = rate switch
        {
            null => load == LoadKind.Open ? "An open run needs a rate: the calls per second to start, e.g. rate=1000." : string.Empty,
            _ when !LoadFact.Of(load).ArrivalRate => $"rate applies only to the open and ramping loads; load was '{Name(load)}'.",
            { } value when !(value >= (load == LoadKind.Ramping ? 0 : 0.001) && value <= PlanLimits.MaxRate) => RateRefused(Text(value), load),
            _ => string.Empty,
        };
        return error.Length == 0;
    }

    /// <summary>The sentence for a stage that is not one: <paramref name="text"/> is every stage as written, <paramref name="item"/> the one refused.</summary>
    public static string NotAStage(string text, string item) =>
        $"stages was '{Excerpt.Of(text)}'; '{Excerpt.Of(item)}' is not a stage. {StagesForm}; seconds at least {MinDurationSeconds.ToString(CultureInfo.InvariantCulture)}, rates from 0 to {PlanLimits.MaxRate.ToString(CultureInfo.InvariantCulture)}.";

    /// <summary>Stages as a query string writes them: "10:5000,20:5000".</summary>
    public static string Text(IEnumerable<RampStage> stages) => string.Join(',', stages.Select(stage => $"{Text(stage.Duration)}:{Text(stage.Target)}"));

    private static string Text(double value) => value.ToString(CultureInfo.InvariantCulture);

    private static bool TryStages(IReadOnlyList<RampStage>? stages, LoadKind load, PlanLimits limits, out string error)
    {
        error = stages switch
        {
            null or { Count: 0 } => load == LoadKind.Ramping ? $"A ramping run needs stages: {StagesForm}." : string.Empty,
            _ when load != LoadKind.Ramping => $"stages applies only to the ramping load; load was '{Name(load)}'.",
            _ when stages.FirstOrDefault(stage => !(stage.Duration >= MinDurationSeconds) || !(stage.Target >= 0 && stage.Target <= PlanLimits.MaxRate)) is { } wrong =>
                NotAStage(Text(stages), Text([wrong])),
            // How many stages there may be is InputBounds' to check, once; this is how long they last in all.
            _ when stages.Sum(stage => stage.Duration) > limits.MaxRunSeconds =>
                $"stages was '{Excerpt.Of(Text(stages))}'; at most {PlanLimits.MaxStages} stages lasting at most {limits.MaxRunSeconds} s in all (Runs:MaxRunSeconds).",
            _ => string.Empty,
        };
        return error.Length == 0;
    }

    public static string NotAPercentile(string text, string item) =>
        $"percentiles was '{Excerpt.Of(text)}'; '{Excerpt.Of(item)}' is not a percentile. Give numbers above 0 and at most 100, e.g. \"50,90,99,99.9\".";

    private static bool TryPercentiles(IReadOnlyList<double>? given, out IReadOnlyList<double> percentiles, out string error)
    {
        percentiles = given is { Count: > 0 } ? [.. given.Distinct().Order()] : RunPlan.DefaultPercentiles;
        var text = given is null ? "" : string.Join(',', given.Select(Text));
        var wrong = given?.Where(value => !(value > 0 && value <= 100)).Select(Text).FirstOrDefault();
        error = wrong is not null ? NotAPercentile(text, wrong) : string.Empty;
        return error.Length == 0;
    }
}
