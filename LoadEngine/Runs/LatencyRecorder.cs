using System.Diagnostics;
using HdrHistogram;

namespace LoadEngine.Runs;

/// <summary>
/// One phase's latencies, each recorded once, from many threads, into HdrHistogram's <see cref="Recorder"/>;
/// <see cref="TakeWindow"/> collects what came since the last window and adds it to the total. Unit, range and
/// precision are fixed (not this machine's <see cref="Stopwatch.Frequency"/>), so histograms recorded anywhere add
/// up exactly. Memory is fixed: four histograms of 120 KiB however many calls.
/// </summary>
public sealed class LatencyRecorder
{
    /// <summary>
    /// 10 ns, not 1: HdrHistogram 2.5.0 computes a bucket's width with a 32-bit shift, which overflows from 2^41
    /// units, so nanoseconds would go wrong past 36 minutes. At 10 ns an hour stays below that, and any latency
    /// from 10 µs up is still within 0.1%.
    /// </summary>
    public const double NanosecondsPerUnit = 10;

    /// <summary>One hour; a longer latency is recorded as one hour.</summary>
    public const long HighestUnits = 360_000_000_000;

    /// <summary>3 significant digits: any value is known within 1/1024 (0.1%) above 1024 units (10 µs).</summary>
    public const int SignificantDigits = 3;

    private const double MillisecondsPerUnit = NanosecondsPerUnit / 1_000_000;
    private static readonly double UnitsPerTick = 1_000_000_000 / NanosecondsPerUnit / Stopwatch.Frequency;

    private readonly Recorder _recorder = new(1, HighestUnits, SignificantDigits, (id, lowest, highest, digits) => new IntConcurrentHistogram(id, lowest, highest, digits));
    private readonly IntHistogram _window = NewHistogram();
    private readonly IntHistogram _bucket = NewHistogram();
    private readonly IntHistogram _total = NewHistogram();
    private readonly object _gate = new();
    private HistogramBase _interval;
    private long _sumUnits;
    private long _minUnits = long.MaxValue;
    private long _maxUnits = -1;

    public LatencyRecorder()
    {
        // The recorder makes a third histogram at its first interval and keeps recycling it: pay for it now, not mid-run.
        _interval = _recorder.GetIntervalHistogram();
    }

    public static double Milliseconds(double units) => units * MillisecondsPerUnit;

    /// <summary>Safe from many threads at once; allocates nothing.</summary>
    public void Record(long ticks)
    {
        var units = Math.Clamp((long)(ticks * UnitsPerTick + 0.5), 0, HighestUnits);
        _recorder.RecordValue(units);
        Interlocked.Add(ref _sumUnits, units);
        Extend(ref _minUnits, units, lower: true);
        Extend(ref _maxUnits, units, lower: false);
    }

    /// <summary>The latencies recorded since the last window; they move on into the total and the current bucket.</summary>
    public LatencyWindow TakeWindow()
    {
        lock (_gate)
        {
            Collect();
            var window = Describe(_window);
            _total.Add(_window);
            _bucket.Add(_window);
            _window.Reset();
            return window;
        }
    }

    /// <summary>Everything the windows took since the last bucket (a time-series point longer than one window), then empty.</summary>
    public LatencyWindow TakeBucket()
    {
        lock (_gate)
        {
            var bucket = Describe(_bucket);
            _bucket.Reset();
            return bucket;
        }
    }

    /// <summary>Everything recorded so far: a copy, so it can be read while recording goes on.</summary>
    public LatencyDistribution Total()
    {
        lock (_gate)
        {
            Collect();
            var all = _total.Copy();
            all.Add(_window);
            return new LatencyDistribution(all, Interlocked.Read(ref _minUnits), Interlocked.Read(ref _maxUnits), Interlocked.Read(ref _sumUnits));
        }
    }

    private static LatencyWindow Describe(IntHistogram histogram) => histogram.TotalCount == 0
        ? default
        : new LatencyWindow(
            histogram.TotalCount,
            Milliseconds(histogram.GetValueAtPercentile(50)),
            Milliseconds(histogram.GetValueAtPercentile(90)),
            Milliseconds(histogram.GetValueAtPercentile(99)),
            Milliseconds(histogram.GetMaxValue()));

    // 32-bit counts: a phase records at most one latency per call, and its call count is an int.
    private static IntHistogram NewHistogram() => new(1, HighestUnits, SignificantDigits);

    // The total holds every window taken; what came since is in the window. Reading the recorder's histogram
    // takes a lock per bucket, so it is read once, into the window.
    private void Collect()
    {
        _interval = _recorder.GetIntervalHistogram(_interval);
        _window.Add(_interval);
    }

    /// <summary>Lowers (or raises) <paramref name="field"/> to <paramref name="value"/>, lock-free: trying again only while the value still goes beyond the one stored.</summary>
    internal static void Extend(ref long field, long value, bool lower)
    {
        var current = Interlocked.Read(ref field);
        while (lower ? value < current : value > current)
        {
            var seen = Interlocked.CompareExchange(ref field, value, current);
            if (seen == current)
            {
                return;
            }

            current = seen;
        }
    }
}

/// <summary>Live figures of one progress tick; the percentiles are 0 when the window is empty.</summary>
public readonly record struct LatencyWindow(long Count, double P50Ms, double P90Ms, double P99Ms, double MaxMs);

/// <summary>
/// A phase's latencies: the HdrHistogram, in <see cref="LatencyRecorder"/> units, with the exact min, max and sum
/// kept beside it (HdrHistogram knows each only within its 0.1% buckets).
/// </summary>
[System.Text.Json.Serialization.JsonConverter(typeof(LatencyDistributionJsonConverter))]
public sealed record LatencyDistribution(HistogramBase Histogram, long MinUnits, long MaxUnits, long SumUnits)
{
    public long Count => Histogram.TotalCount;

    /// <summary>The histogram in HdrHistogram's compressed V2 encoding, base64 (see <see cref="HistogramCodec"/>).</summary>
    public string Encode() => HistogramCodec.Encode(Histogram);

    public static LatencyDistribution Decode(string histogram, long minUnits, long maxUnits, long sumUnits) =>
        new(HistogramCodec.Decode(histogram), minUnits, maxUnits, sumUnits);

    /// <summary>
    /// One distribution holding every value the parts hold: HdrHistogram adds bucket counts, which is exact, since every
    /// recorder uses the same unit, range and precision. An empty part (no latency recorded) leaves min and max alone.
    /// </summary>
    public static LatencyDistribution Merge(IEnumerable<LatencyDistribution> parts)
    {
        var merged = new LongHistogram(1, LatencyRecorder.HighestUnits, LatencyRecorder.SignificantDigits);
        long min = long.MaxValue, max = -1, sum = 0;
        foreach (var part in parts)
        {
            merged.Add(part.Histogram);
            sum += part.SumUnits;
            if (part.Count > 0)
            {
                min = Math.Min(min, part.MinUnits);
                max = Math.Max(max, part.MaxUnits);
            }
        }

        return new LatencyDistribution(merged, min, max, sum);
    }

    /// <summary>
    /// Min, mean and max exact; percentiles the highest value of their bucket (never below the exact value, at most
    /// 0.1% above, capped at the max); the standard deviation from bucket midpoints, as HdrHistogram computes it.
    /// </summary>
    public LatencySummary? Summarize(IReadOnlyList<double>? percentiles = null) => Count == 0
        ? null
        : new LatencySummary(
            LatencyRecorder.Milliseconds(MinUnits),
            LatencyRecorder.Milliseconds((double)SumUnits / Count),
            LatencyRecorder.Milliseconds(Histogram.GetStdDeviation()),
            Percentile(50), Percentile(90), Percentile(99), Percentile(99.9),
            LatencyRecorder.Milliseconds(MaxUnits))
        {
            Percentiles = [.. (percentiles ?? RunPlan.DefaultPercentiles).Order().Select(p => new PercentileValue(p, Percentile(p)))],
        };

    /// <summary>The distribution in at most <paramref name="maxBins"/> bins of equal width on a log scale, from min to max.</summary>
    public IReadOnlyList<HistogramBin> ToBins(int maxBins = 40)
    {
        if (Count == 0)
        {
            return [];
        }

        var min = Math.Max(MinUnits, 1);
        var max = Math.Max(MaxUnits, min + 1);
        var ratio = Math.Pow((double)max / min, 1.0 / maxBins);
        var edges = Enumerable.Range(0, maxBins + 1).Select(i => i == maxBins ? max + 1.0 : min * Math.Pow(ratio, i)).ToArray();
        edges[0] = 0;
        var counts = new long[maxBins];
        var bin = 0;
        foreach (var bucket in Histogram.RecordedValues())
        {
            // A bucket goes to the bin that holds its midpoint.
            var mid = Histogram.MedianEquivalentValue(bucket.ValueIteratedTo);
            while (bin < maxBins - 1 && mid >= edges[bin + 1])
            {
                bin++;
            }

            counts[bin] += bucket.CountAddedInThisIterationStep;
        }

        return counts
            .Select((count, i) => new HistogramBin(
                Math.Round(LatencyRecorder.Milliseconds(Math.Max(edges[i], min)), 4),
                Math.Round(LatencyRecorder.Milliseconds(Math.Min(edges[i + 1], max)), 4),
                count))
            .Where(b => b.Count > 0)
            .ToList();
    }

    private double Percentile(double percentile) => LatencyRecorder.Milliseconds(Math.Min(Histogram.GetValueAtPercentile(percentile), MaxUnits));
}
