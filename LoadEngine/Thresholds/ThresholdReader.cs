using System.Globalization;

namespace LoadEngine.Thresholds;

/// <summary>
/// Reads "&lt;metric&gt; &lt;op&gt; &lt;value&gt;[unit]" token by token, so that a bad threshold gets a reason that points
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

    /// <summary>Null when <paramref name="text"/> is a threshold; otherwise the reason, without a full stop.</summary>
    public static string? Read(string text, out Threshold threshold)
    {
        threshold = null!;
        var position = 0;

        var metricText = Token(text, ref position, IsMetricChar);
        if (metricText.Length == 0)
        {
            return position == text.Length ? "it is empty" : $"expected a metric first, found '{Rest(text, position)}'";
        }

        var problem = Metric(metricText, out var metric, out var percentile);
        if (problem is not null)
        {
            return problem;
        }

        var operatorText = Token(text, ref position, IsOperatorChar);
        if (operatorText.Length == 0)
        {
            return position == text.Length
                ? $"expected an operator after '{metricText}'"
                : $"expected an operator after '{metricText}', found '{Rest(text, position)}'";
        }

        if (!Operators.TryGetValue(operatorText, out var op))
        {
            return $"'{operatorText}' is not an operator";
        }

        var numberText = Token(text, ref position, IsNumberChar);
        if (numberText.Length == 0)
        {
            return position == text.Length
                ? $"expected a value after '{operatorText}'"
                : $"expected a number after '{operatorText}', found '{Rest(text, position)}'";
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

        // Right after the number: "5ms", "5 ms", "1%" and "10k/s" all read; anything after the unit is garbage.
        var unit = Token(text, ref position, c => !char.IsWhiteSpace(c));
        SkipSpace(text, ref position);
        if (position < text.Length)
        {
            return $"'{Rest(text, position)}' after the value is not understood";
        }

        problem = Limit(metric, metricText, number, unit.ToLowerInvariant(), out var limit);
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
        var digits = text.AsSpan(1);
        if (text[0] is not ('p' or 'P') || !IsPlainDecimal(digits)
            || !decimal.TryParse(digits, NumberStyles.AllowDecimalPoint, CultureInfo.InvariantCulture, out var value))
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

    /// <summary>Skips white space, then takes the characters that fit.</summary>
    private static string Token(string text, ref int position, Func<char, bool> fits)
    {
        SkipSpace(text, ref position);
        var start = position;
        while (position < text.Length && fits(text[position]))
        {
            position++;
        }

        return text[start..position];
    }

    private static void SkipSpace(string text, ref int position)
    {
        while (position < text.Length && char.IsWhiteSpace(text[position]))
        {
            position++;
        }
    }

    private static string Rest(string text, int position) => text[position..].TrimEnd();

    private static bool IsMetricChar(char c) => !char.IsWhiteSpace(c) && !IsOperatorChar(c);

    private static bool IsOperatorChar(char c) => c is '<' or '>' or '=' or '!';

    private static bool IsNumberChar(char c) => char.IsAsciiDigit(c) || c is '.' or '-';

    /// <summary>Digits with at most one point between them: 99 and 99.9, not 99., .9, 1e2 or 9-9.</summary>
    private static bool IsPlainDecimal(ReadOnlySpan<char> text) =>
        text.Length > 0 && char.IsAsciiDigit(text[0]) && char.IsAsciiDigit(text[^1])
        && text.Count('.') <= 1 && !text.ContainsAnyExcept("0123456789.");
}
