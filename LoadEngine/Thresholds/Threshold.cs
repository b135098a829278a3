using System.Globalization;

namespace LoadEngine.Thresholds;

/// <summary>The figure of a run a threshold is judged on.</summary>
public enum ThresholdMetric
{
    /// <summary>A latency percentile; <see cref="Threshold.Percentile"/> says which.</summary>
    Percentile,
    Mean,
    Min,
    Max,
    StdDev,
    ErrorRate,
    Throughput,
    Failed,
    Late,
    Dropped,
}

public enum ThresholdOperator
{
    Less,
    LessOrEqual,
    Greater,
    GreaterOrEqual,
}

/// <summary>
/// One k6-style pass/fail condition, "&lt;metric&gt; &lt;op&gt; &lt;value&gt;" such as "p99 &lt; 5ms", read once
/// from the plan and judged on the run's statistics by <see cref="ThresholdJudge"/>. No HTTP here: the gateway
/// answers a bad one with a 400, the CLI with its usage error, both with <see cref="TryParseAll"/>'s sentence.
/// </summary>
/// <param name="Text">As the user wrote it.</param>
/// <param name="Percentile">In percent (99.9 for p99.9); null for every metric but <see cref="ThresholdMetric.Percentile"/>.</param>
/// <param name="Limit">In <see cref="Unit"/>, whatever unit the user wrote it in.</param>
public sealed record Threshold(string Text, ThresholdMetric Metric, double? Percentile, ThresholdOperator Operator, double Limit)
{
    /// <summary>A plan judges at most this many thresholds; a longer list is refused, not cut.</summary>
    public const int MaxPerPlan = 20;

    public const string AcceptedForm =
        "A threshold is \"<metric> <op> <value>\": metric pN (any percentile above 0 up to 100: p50, p99.9), mean, min, max, "
        + "stdDev (ms, us or s; a bare number is ms), errorRate (0.01 or 1%), throughput (calls/s: 10000 or 10k/s), "
        + "failed, late, dropped (calls); op <, <=, > or >=; e.g. \"p99 < 5ms\", \"errorRate < 1%\".";

    /// <summary>The metric as written canonically: p99.9, stdDev, errorRate.</summary>
    public string Name => Metric switch
    {
        ThresholdMetric.Percentile => "p" + Percentile!.Value.ToString(CultureInfo.InvariantCulture),
        ThresholdMetric.StdDev => "stdDev",
        ThresholdMetric.ErrorRate => "errorRate",
        _ => Metric.ToString().ToLowerInvariant(),
    };

    public string OperatorSymbol => Operator switch
    {
        ThresholdOperator.Less => "<",
        ThresholdOperator.LessOrEqual => "<=",
        ThresholdOperator.Greater => ">",
        _ => ">=",
    };

    /// <summary>The metric's reporting unit: ms for latency, fraction for errorRate, calls/s for throughput, calls for counts.</summary>
    public string Unit => Metric switch
    {
        ThresholdMetric.ErrorRate => "fraction",
        ThresholdMetric.Throughput => "calls/s",
        ThresholdMetric.Failed or ThresholdMetric.Late or ThresholdMetric.Dropped => "calls",
        _ => "ms",
    };

    public bool IsLatency => Metric is ThresholdMetric.Percentile or ThresholdMetric.Mean or ThresholdMetric.Min
        or ThresholdMetric.Max or ThresholdMetric.StdDev;

    /// <summary>Whether <paramref name="measured"/>, in <see cref="Unit"/>, keeps the threshold: "&lt;" fails at the limit, "&lt;=" holds.</summary>
    public bool HoldsFor(double measured) => Operator switch
    {
        ThresholdOperator.Less => measured < Limit,
        ThresholdOperator.LessOrEqual => measured <= Limit,
        ThresholdOperator.Greater => measured > Limit,
        _ => measured >= Limit,
    };

    /// <summary>
    /// Reads a plan's thresholds (null or empty: none), or gives the sentence for the first bad one, naming it by its
    /// text and its position in the list (thresholds[2]). More than <see cref="MaxPerPlan"/> are refused.
    /// </summary>
    public static bool TryParseAll(IReadOnlyList<string?>? texts, out IReadOnlyList<Threshold> thresholds, out string error)
    {
        thresholds = [];
        error = string.Empty;
        if (texts is null or [])
        {
            return true;
        }

        if (texts.Count > MaxPerPlan)
        {
            error = $"thresholds has {texts.Count.ToString(CultureInfo.InvariantCulture)} entries; a plan takes at most {MaxPerPlan.ToString(CultureInfo.InvariantCulture)}.";
            return false;
        }

        var read = new List<Threshold>(texts.Count);
        for (var i = 0; i < texts.Count; i++)
        {
            if (!TryParse(texts[i], out var threshold, out error, i))
            {
                return false;
            }

            read.Add(threshold);
        }

        thresholds = read;
        return true;
    }

    /// <summary>
    /// The percentiles (in percent, ascending, each once) these thresholds are judged on. The engine adds them to the
    /// plan's <see cref="Runs.RunPlan.Percentiles"/> so that the run reports every one.
    /// </summary>
    public static IReadOnlyList<double> PercentilesNeeded(IEnumerable<Threshold> thresholds) =>
        [.. thresholds.Select(threshold => threshold.Percentile).OfType<double>().Distinct().Order()];

    /// <summary>Reads one threshold, or says what was wrong with it (at <paramref name="position"/> of a list) and shows <see cref="AcceptedForm"/>.</summary>
    public static bool TryParse(string? text, out Threshold threshold, out string error, int? position = null)
    {
        text ??= string.Empty;
        var problem = ThresholdReader.Read(text, out threshold);
        if (problem is null)
        {
            error = string.Empty;
            return true;
        }

        var where = position is { } index ? $" (thresholds[{index.ToString(CultureInfo.InvariantCulture)}])" : string.Empty;
        error = $"threshold '{text}'{where} could not be read: {problem}. {AcceptedForm}";
        return false;
    }
}
