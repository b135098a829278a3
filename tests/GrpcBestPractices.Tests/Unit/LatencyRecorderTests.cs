using System.Diagnostics;
using System.IO.Compression;
using ApiGateway.Runs;
using HdrHistogram;
using HdrHistogram.Utilities;

namespace GrpcBestPractices.Tests.Unit;

public sealed class LatencyRecorderTests
{
    // The promise from 10 µs up: never below the exact value, at most 1/1024 above it; plus the 10 ns unit's rounding.
    private const double Precision = 1.0 / 1024;
    private const double RoundingMs = 0.00001;

    private static long Ticks(double milliseconds) => (long)Math.Round(milliseconds * Stopwatch.Frequency / 1000);

    private static LatencyRecorder Recorded(IEnumerable<double> milliseconds)
    {
        var recorder = new LatencyRecorder();
        foreach (var value in milliseconds)
        {
            recorder.Record(Ticks(value));
        }

        return recorder;
    }

    private static void AssertWithinPrecision(double exact, double reported) =>
        Assert.InRange(reported, exact - RoundingMs, exact * (1 + Precision) + RoundingMs);

    private static double[] LogSpread(int seed, int count, double fromMs, double decades)
    {
        var random = new Random(seed);
        return Enumerable.Range(0, count).Select(_ => fromMs * Math.Pow(10, random.NextDouble() * decades)).ToArray();
    }

    [Fact]
    public void PercentilesOfEvenlySpacedLatenciesAreWithinATenthOfAPercent() =>
        AssertPercentilesWithinPrecision(Enumerable.Range(1, 100_000).Select(i => i * 0.001).Reverse().ToArray());

    [Fact]
    public void PercentilesOfLatenciesSpreadOverFiveDecadesAreWithinATenthOfAPercent() =>
        AssertPercentilesWithinPrecision(LogSpread(seed: 42, count: 100_000, fromMs: 0.01, decades: 5));

    private static void AssertPercentilesWithinPrecision(double[] values)
    {
        var summary = Recorded(values).Total().Summarize()!;

        Array.Sort(values);
        foreach (var (percentile, reported) in new[] { (50, summary.P50Ms), (90, summary.P90Ms), (99, summary.P99Ms), (99.9, summary.P999Ms) })
        {
            AssertWithinPrecision(values[(int)Math.Round(percentile / 100 * values.Length) - 1], reported);
        }

        Assert.Equal(values[0], summary.MinMs, RoundingMs);
        Assert.Equal(values[^1], summary.MaxMs, RoundingMs);
        Assert.Equal(values.Average(), summary.MeanMs, RoundingMs);
    }

    [Fact]
    public void MeanIsExactAndStandardDeviationIsWithinTheBuckets()
    {
        double[] values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0.25, 42.5];

        var summary = Recorded(values).Total().Summarize()!;

        var mean = values.Average();
        var stdDev = Math.Sqrt(values.Sum(v => (v - mean) * (v - mean)) / values.Length);
        var rootMeanSquare = Math.Sqrt(values.Sum(v => v * v) / values.Length);
        Assert.Equal(mean, summary.MeanMs, 1e-9);
        // Each value stands at its bucket's midpoint, at most half a bucket away: the deviation moves by no more than that.
        Assert.Equal(stdDev, summary.StdDevMs, rootMeanSquare * Precision / 2);
        Assert.Equal(0.25, summary.MinMs, 1e-9);
        Assert.Equal(42.5, summary.MaxMs, 1e-9);
    }

    [Fact]
    public void AnHourLongLatencyKeepsItsPrecisionAndLongerOnesCountAsAnHour()
    {
        var recorder = Recorded([0.1, 59 * 60_000.0, 59 * 60_000.0]);

        var summary = recorder.Total().Summarize()!;

        AssertWithinPrecision(59 * 60_000.0, summary.P90Ms);
        Assert.Equal(59 * 60_000.0, summary.MaxMs, RoundingMs);
        recorder.Record(Ticks(2 * 3_600_000.0));
        Assert.Equal(3_600_000.0, recorder.Total().Summarize()!.MaxMs, RoundingMs);
    }

    [Fact]
    public void BinsHoldEveryValueOnceInOrderFromMinToMax()
    {
        var values = LogSpread(seed: 7, count: 10_000, fromMs: 0.05, decades: 2.5);

        var latency = Recorded(values).Total();
        var bins = latency.ToBins(30);

        Assert.Equal(10_000, bins.Sum(bin => bin.Count));
        Assert.InRange(bins.Count, 20, 30);
        Assert.All(bins, bin => Assert.True(bin.FromMs < bin.ToMs, $"{bin.FromMs} to {bin.ToMs}"));
        Assert.All(bins.Zip(bins.Skip(1)), pair => Assert.True(pair.First.ToMs <= pair.Second.FromMs + 1e-9));
        Assert.Equal(values.Min(), bins[0].FromMs, 0.0001);
        Assert.Equal(values.Max(), bins[^1].ToMs, 0.0001);
        Assert.InRange(latency.ToBins().Count, 31, 40);
    }

    [Fact]
    public async Task RecordingFromManyThreadsWhileWindowsAreTakenLosesNoValue()
    {
        const int threads = 4, perThread = 250_000, calls = threads * perThread;
        var recorder = new LatencyRecorder();
        using var start = new Barrier(threads + 1);
        // Two latencies, so the threads keep meeting on the same counters: the exact mean is 1.5 ms.
        var recording = Enumerable.Range(0, threads).Select(_ => Task.Factory.StartNew(() =>
        {
            start.SignalAndWait();
            for (var i = 0; i < perThread; i++)
            {
                recorder.Record(Ticks(i % 2 + 1));
            }
        }, TaskCreationOptions.LongRunning)).ToArray();
        var done = Task.WhenAll(recording);

        start.SignalAndWait();
        long windowed = 0;
        do
        {
            windowed += recorder.TakeWindow().Count;
        }
        while (!done.IsCompleted);
        await done;
        windowed += recorder.TakeWindow().Count;

        var total = recorder.Total();
        Assert.Equal(calls, total.Count);
        Assert.Equal(calls, windowed);
        Assert.Equal(calls, total.ToBins().Sum(bin => bin.Count));
        Assert.Equal(1.5, total.Summarize()!.MeanMs, 1e-9);
    }

    [Fact]
    public void AWindowSeesOnlyWhatCameSinceTheLastOneAndTheTotalSeesEverything()
    {
        var recorder = Recorded(Enumerable.Repeat(1.0, 100));

        var first = recorder.TakeWindow();
        foreach (var _ in Enumerable.Range(0, 50))
        {
            recorder.Record(Ticks(5));
        }

        var second = recorder.TakeWindow();
        var empty = recorder.TakeWindow();
        recorder.Record(Ticks(9));
        var total = recorder.Total();
        var afterTotal = recorder.TakeWindow();

        Assert.Equal(100, first.Count);
        AssertWithinPrecision(1, first.P50Ms);
        AssertWithinPrecision(1, first.P99Ms);
        Assert.Equal(50, second.Count);
        AssertWithinPrecision(5, second.P50Ms);
        AssertWithinPrecision(5, second.P99Ms);
        Assert.Equal(0, empty.Count);
        Assert.Equal(151, total.Count);
        Assert.Equal((100 * 1.0 + 50 * 5.0 + 9) / 151, total.Summarize()!.MeanMs, 1e-9);
        // Reading the total took nothing from the next window.
        Assert.Equal(1, afterTotal.Count);
        AssertWithinPrecision(9, afterTotal.P50Ms);
    }

    [Fact]
    public void HistogramsRecordedApartAddUpExactlyAfterTheirCompressedEncoding()
    {
        // A million calls from 20 µs to 200 ms (their encoding is past 8 KB), and a few close to the hour, where a wrong unit or range would show.
        double[] values = [.. LogSpread(seed: 3, count: 1_000_000, fromMs: 0.02, decades: 4), 50 * 60_000.0, 55 * 60_000.0, 59 * 60_000.0];
        new Random(5).Shuffle(values);
        var together = Recorded(values).Total().Histogram;

        // Through the codec the agents' merge uses, so a distributed run of such calls merges too.
        var merged = HistogramCodec.Decode(HistogramCodec.Encode(Recorded(values[..600_000]).Total().Histogram));
        merged.Add(HistogramCodec.Decode(HistogramCodec.Encode(Recorded(values[600_000..]).Total().Histogram)));

        Assert.Equal(values.Length, merged.TotalCount);
        Assert.Equal(Buckets(together), Buckets(merged));
    }

    [Fact]
    public void NothingRecordedHasNoSummaryBinsOrWindowFigures()
    {
        var recorder = new LatencyRecorder();

        Assert.Null(recorder.Total().Summarize());
        Assert.Empty(recorder.Total().ToBins());
        Assert.Equal(default, recorder.TakeWindow());
    }

    private static List<(long Value, long Count)> Buckets(HistogramBase histogram) =>
        histogram.RecordedValues().Select(bucket => (bucket.ValueIteratedTo, bucket.CountAddedInThisIterationStep)).ToList();
}
