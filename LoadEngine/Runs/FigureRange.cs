namespace LoadEngine.Runs;

/// <summary>The median over the repetitions (of a comparison's contender, of a lesson's arm) and the smallest and largest value (an even count's median is the mean of the middle two).</summary>
public sealed record FigureRange(double Median, double Min, double Max)
{
    public static FigureRange? Of(IReadOnlyCollection<double> values)
    {
        if (values.Count == 0)
        {
            return null;
        }

        var sorted = values.Order().ToArray();
        // Four decimals, as the runs' own figures are kept.
        return new FigureRange(Math.Round(MedianOfSorted(sorted), 4), Math.Round(sorted[0], 4), Math.Round(sorted[^1], 4));
    }

    public static double MedianOf(IReadOnlyCollection<double> values) => MedianOfSorted([.. values.Order()]);

    private static double MedianOfSorted(double[] sorted)
    {
        var middle = sorted.Length / 2;
        return sorted.Length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }
}
