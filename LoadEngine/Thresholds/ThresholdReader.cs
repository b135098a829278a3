using System.Globalization;
using System.Text.RegularExpressions;

namespace LoadEngine.Thresholds;

/// <summary>
/// Reads "&lt;metric&gt; &lt;op&gt; &lt;value&gt;[unit]" part by part, so that a bad threshold gets a reason that points
/// at the part that was wrong, not just "does not match".
/// </summary>
internal static class ThresholdReader
{
    private static readonly Dictionary<string, ThresholdMetric> Metrics = new(StringComparer.OrdinalIgnoreCase)
    {
        ["mean"] = ThresholdMetric.Mean,
        ["min"] = ThresholdMetric.Min,
        ["max"] = ThresholdMetric.Max,
        ["stdDev"] = ThresholdMetric.StdDev,
        ["errorRate"] = ThresholdMetric.ErrorRate,
        ["throughput"] = ThresholdMetric.Throughput,
        ["failed"] = ThresholdMetric.Failed,
        ["late"] = ThresholdMetric.Late,
        ["dropped"] = ThresholdMetric.Dropped,
    };

    private static readonly Dictionary<string, ThresholdOperator> Operators = new()
    {
        ["<"] = ThresholdOperator.Less,
        ["<="] = ThresholdOperator.LessOrEqual,
        [">"] = ThresholdOperator.Greater,
        [">="] = ThresholdOperator.GreaterOrEqual,
    };

    private const decimal MaxNumber = 1_000_000_000_000;

    // Each part after any white space: the metric (up to an operator), the operator, the number, the unit right after it
    // ("5ms", "5 ms", "1%" and "10k/s" all read), and what is left, which must be nothing. Every part may be empty, so the
    // first greedy match is the reading, and each refusal can point at the part that was wrong.
    private static readonly Regex Parts = new(
        @"^\s*(?<metric>[^\s<>=!]*)\s*(?<op>[<>=!]*)\s*(?<number>[0-9.-]*)\s*(?<unit>\S*)\s*(?<rest>.*)$", RegexOptions.Singleline | RegexOptions.CultureInvariant);

    // Digits with at most one point between them: p99 and p99.9, not p99., p.9, p1e2 or p9-9.
    private static readonly Regex PercentileForm = new(@"^[pP](?<n>[0-9]+(\.[0-9]+)?)$", RegexOptions.CultureInvariant);

    /// <summary>Null when <paramref name="text"/> is a threshold; otherwise the reason, without a full stop.</summary>
    public static string? Read(string text, out Threshold threshold)
    {
        threshold = null!;
        var parts = Parts.Match(text).Groups;
        var (metricText, operatorText, numberText) = (parts["metric"].Value, parts["op"].Value, parts["number"].Value);
        if (metricText.Length == 0)
        {
            return Found(text, parts["metric"]) is { Length: > 0 } found ? $"expected a metric first{found}" : "it is empty";
        }

        var problem = Metric(metricText, out var metric, out var percentile);
        if (problem is not null)
        {
            return problem;
        }

        if (operatorText.Length == 0)
        {
            return $"expected an operator after '{metricText}'{Found(text, parts["op"])}";
        }

        if (!Operators.TryGetValue(operatorText, out var op))
        {
            return $"'{operatorText}' is not an operator";
        }

        if (numberText.Length == 0)
        {
            return Found(text, parts["number"]) is { Length: > 0 } found ? $"expected a number after '{operatorText}'{found}" : $"expected a value after '{operatorText}'";
        }

        if (!decimal.TryParse(numberText, NumberStyles.AllowDecimalPoint | NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out var number))
        {
            return $"'{numberText}' is not a number";
        }

        if (number < 0)
        {
            return $"the limit {numberText} is negative; a limit is 0 or more";
        }

        // Bounded so that scaling by a unit cannot overflow and every whole limit is exact as a double.
        if (number > MaxNumber)
        {
            return $"the limit {numberText} is too large; a limit is at most {MaxNumber.ToString(CultureInfo.InvariantCulture)} before its unit";
        }

        if (parts["rest"].Length > 0)
        {
            return $"'{parts["rest"].Value.TrimEnd()}' after the value is not understood";
        }

        problem = Limit(metric, metricText, number, parts["unit"].Value.ToLowerInvariant(), out var limit);
        if (problem is not null)
        {
            return problem;
        }

        threshold = new Threshold(text, metric, percentile, op, (double)limit);
        return null;
    }

    private static string? Metric(string text, out ThresholdMetric metric, out double? percentile)
    {
        percentile = null;
        if (Metrics.TryGetValue(text, out metric))
        {
            return null;
        }

        metric = ThresholdMetric.Percentile;
        if (PercentileForm.Match(text) is not { Success: true } form
            || !decimal.TryParse(form.Groups["n"].Value, NumberStyles.AllowDecimalPoint, CultureInfo.InvariantCulture, out var value))
        {
            return $"'{text}' is not a metric";
        }

        if (value is <= 0 or > 100)
        {
            return $"{text} is not a percentile; N in pN is above 0 and at most 100";
        }

        percentile = (double)value;
        return null;
    }

    /// <summary>The limit in the metric's reporting unit, or why the unit (or the number) does not fit the metric.</summary>
    private static string? Limit(ThresholdMetric metric, string metricText, decimal number, string unit, out decimal limit)
    {
        var written = number.ToString(CultureInfo.InvariantCulture);
        switch (metric)
        {
            case ThresholdMetric.ErrorRate:
                limit = unit == "%" ? number / 100 : number;
                return unit switch
                {
                    "" when number > 1 => $"errorRate {written} is above 1; write a fraction (0.01) or a percent (1%)",
                    "%" when number > 100 => $"errorRate {written}% is above 100%",
                    "" or "%" => null,
                    _ => $"'{unit}' is not a unit of errorRate; write a fraction (0.01) or a percent (1%)",
                };
            case ThresholdMetric.Throughput:
                limit = unit is "k" or "k/s" ? number * 1000 : number;
                return unit is "" or "/s" or "k" or "k/s" ? null : $"'{unit}' is not a unit of throughput; it is calls/s (10000, 10000/s or 10k/s)";
            case ThresholdMetric.Failed or ThresholdMetric.Late or ThresholdMetric.Dropped:
                limit = number;
                return unit.Length > 0 ? $"'{unit}' is not a unit of {metricText}; it counts calls: a bare whole number"
                    : number != decimal.Truncate(number) ? $"{metricText} counts calls; {written} is not a whole number"
                    : null;
            default:
                limit = unit switch
                {
                    "us" or "µs" or "μs" => number / 1000,
                    "s" => number * 1000,
                    _ => number,
                };
                return unit is "" or "ms" or "us" or "µs" or "μs" or "s" ? null : $"'{unit}' is not a unit of {metricText}; it takes ms, us or s (a bare number is ms)";
        }
    }

    /// <summary>", found '…'": the text from <paramref name="part"/> on, when there is any.</summary>
    private static string Found(string text, Group part) => text[part.Index..].TrimEnd() is { Length: > 0 } rest ? $", found '{rest}'" : string.Empty;
}
