using System.Globalization;

namespace LoadEngine.Runs;

/// <summary>
/// How much a request may say. Every string and list a run, suite, comparison or experiment can carry is bounded by what a
/// real plan needs, checked before anything is stored, and stated in the OpenAPI document: nothing a request sends is
/// then kept, echoed or held beyond these. A sentence that quotes the request quotes an <see cref="Excerpt"/> of it.
/// </summary>
public static class InputBounds
{
    /// <summary>A name or a number written as text: a strategy, load, workload or contender field, "1000", "99.9".</summary>
    public const int MaxValueLength = 64;

    /// <summary>k6-style conditions: "p99.99 <= 1500ms" is 16 characters; 20 cover every metric twice over.</summary>
    public const int MaxThresholds = 20;

    public const int MaxThresholdLength = 100;

    /// <summary>A suite's strategies or a comparison's contenders: each is named at most once, and there are fewer than this.</summary>
    public const int MaxNames = 32;

    /// <summary>The most of the request a sentence quotes.</summary>
    public const int MaxExcerpt = 200;

    /// <summary>A stage is "seconds:rate", two numbers.</summary>
    public const int MaxStageLength = 2 * MaxValueLength + 1;

    /// <summary>A call's name, "pkg.Service/Method": gRPC's full method names are rarely a tenth of this.</summary>
    public const int MaxCallLength = 512;

    /// <summary>A call's request data (JSON, an array for a stream's messages): 64 KiB, as it is kept with every run's plan.</summary>
    public const int MaxDataLength = 64 * 1024;

    /// <summary>The first value of <paramref name="input"/> beyond its bound, as the sentence its sender gets; null when all fit.</summary>
    public static string? Check(RunPlanInput input) =>
        TooLong("strategy", input.Strategy, MaxValueLength)
        ?? TooLong("workload", input.Workload, MaxValueLength)
        ?? TooLong("target", input.Target, MaxValueLength)
        ?? TooLong("call", input.Call, MaxCallLength)
        ?? TooLong("data", input.Data, MaxDataLength)
        ?? Items("stages", input.Stages?.Count ?? 0, PlanLimits.MaxStages, "\"10:5000,20:5000\"")
        ?? Items("percentiles", input.Percentiles?.Count ?? 0, PlanLimits.MaxPercentiles, "\"50,90,99,99.9\"")
        ?? Items("thresholds", input.Thresholds?.Count ?? 0, MaxThresholds, "[\"p99 < 5ms\", \"errorRate < 1%\"]")
        ?? input.Thresholds?.Select((text, index) => TooLong($"thresholds[{index}]", text, MaxThresholdLength)).FirstOrDefault(problem => problem is not null);

    /// <summary>A list of names (a suite's strategies, a comparison's contenders) beyond its bound, as a sentence; null when it fits.</summary>
    public static string? Names(string field, IReadOnlyCollection<string> names) =>
        names.Count > MaxNames
            ? $"{field} holds {Count(names.Count)} names; at most {MaxNames} are allowed, each named once."
            : names.Select(name => TooLong($"a name in {field}", name, MaxValueLength)).FirstOrDefault(problem => problem is not null);

    /// <summary>A list's item count beyond its bound, before its items are read: the sentence names the field and the bound.</summary>
    private static string? Items(string field, int count, int max, string example) =>
        count > max ? $"{field} holds {Count(count)} items; at most {max} are allowed, e.g. {example}." : null;

    /// <summary>A text value beyond <paramref name="max"/> characters, as a sentence quoting its start; null when it fits.</summary>
    public static string? TooLong(string field, string? text, int max) =>
        text is { } value && value.Length > max
            ? $"{field} is {Count(value.Length)} characters long; at most {max} are allowed. It began: {Excerpt.Of(value, 40)}"
            : null;

    private static string Count(int count) => count.ToString("#,0", CultureInfo.InvariantCulture);
}

/// <summary>What a sentence may quote of a request: the text itself when short, else its start, marked as cut.</summary>
public static class Excerpt
{
    public static string Of(string? text, int max = InputBounds.MaxExcerpt) =>
        text is null ? "" : text.Length <= max ? text : $"{text[..max]}… (cut; {text.Length.ToString("#,0", CultureInfo.InvariantCulture)} characters in all)";
}
