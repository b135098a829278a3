using System.Diagnostics;
using ApiGateway.Runs;

namespace GrpcBestPractices.Tests.Unit;

public sealed class LatencyHistogramTests
{
    private static long Ticks(double milliseconds) => (long)(milliseconds * Stopwatch.Frequency / 1000);

    [Fact]
    public void PercentilesAreWithinOnePercentOfTheExactValues()
    {
        var random = new Random(42);
        var values = Enumerable.Range(0, 50_000).Select(_ => Math.Exp(random.NextDouble() * 9) / 100).ToArray(); // 0.01 ms .. 81 ms, log-spread
        var histogram = new LatencyHistogram();
        foreach (var value in values)
        {
            histogram.Record(Ticks(value));
        }

        Array.Sort(values);
        foreach (var percentile in new[] { 50, 90, 99, 99.9 })
        {
            var exact = values[(int)Math.Ceiling(percentile / 100 * values.Length) - 1];
            Assert.InRange(histogram.PercentileMs(percentile), exact * 0.99, exact * 1.01);
        }

        Assert.Equal(values.Length, histogram.Count);
        Assert.InRange(histogram.MinMs, values[0] * 0.999, values[0] * 1.001);
        Assert.InRange(histogram.MaxMs, values[^1] * 0.999, values[^1] * 1.001);
    }

    [Fact]
    public void MeanIsExactAndStandardDeviationIsClose()
    {
        var histogram = new LatencyHistogram();
        double[] values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
        foreach (var value in values)
        {
            histogram.Record(Ticks(value));
        }

        var summary = histogram.Summarize()!;
        var mean = values.Average();
        var stdDev = Math.Sqrt(values.Sum(v => (v - mean) * (v - mean)) / values.Length);
        Assert.Equal(mean, summary.MeanMs, 6);
        Assert.InRange(summary.StdDevMs, stdDev * 0.99, stdDev * 1.01);
        Assert.True(summary.MinMs <= summary.P50Ms && summary.P50Ms <= summary.P90Ms && summary.P90Ms <= summary.P99Ms && summary.P99Ms <= summary.MaxMs);
    }

    [Fact]
    public void BinsHoldEveryValueExactlyOnceInOrder()
    {
        var histogram = new LatencyHistogram();
        var random = new Random(7);
        for (var i = 0; i < 10_000; i++)
        {
            histogram.Record(Ticks(0.05 + random.NextDouble() * 20));
        }

        var bins = histogram.ToBins(30);

        Assert.Equal(10_000, bins.Sum(bin => bin.Count));
        Assert.InRange(bins.Count, 2, 30);
        Assert.All(bins.Zip(bins.Skip(1)), pair => Assert.True(pair.First.ToMs <= pair.Second.FromMs + 1e-9));
    }

    [Fact]
    public void RecordingFromManyThreadsLosesNothing()
    {
        var histogram = new LatencyHistogram();

        Parallel.For(0, 200_000, i => histogram.Record(i % 5000 * 1000L));

        Assert.Equal(200_000, histogram.Count);
        Assert.Equal(200_000, histogram.ToBins().Sum(bin => bin.Count));
    }

    [Fact]
    public void EmptyHistogramHasNoSummary()
    {
        var histogram = new LatencyHistogram();

        Assert.Null(histogram.Summarize());
        Assert.Empty(histogram.ToBins());
        Assert.Equal(0, histogram.PercentileMs(99));
    }
}
