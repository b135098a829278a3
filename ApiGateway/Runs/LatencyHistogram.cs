using System.Diagnostics;

namespace ApiGateway.Runs;

/// <summary>
/// A log-linear latency histogram (the HdrHistogram layout; that package is not served here): each power of
/// two of Stopwatch ticks is split into 128 linear buckets, so any recorded value is known within 1/128 (0.8%)
/// with fixed memory (58 KiB) however many calls a run makes. Recording is lock-free and safe from many threads.
/// </summary>
public sealed class LatencyHistogram
{
    private const int SubBucketBits = 8;
    private const int SubBuckets = 1 << SubBucketBits;
    private static readonly double MillisecondsPerTick = 1000.0 / Stopwatch.Frequency;

    private readonly long[] _counts = new long[SubBuckets + (64 - SubBucketBits) * (SubBuckets >> 1)];
    private long _total;
    private long _sumTicks;
    private long _minTicks = long.MaxValue;
    private long _maxTicks;

    public long Count => Interlocked.Read(ref _total);

    public void Record(long ticks)
    {
        ticks = Math.Max(0, ticks);
        Interlocked.Increment(ref _counts[IndexOf(ticks)]);
        Interlocked.Increment(ref _total);
        Interlocked.Add(ref _sumTicks, ticks);
        UpdateMin(ticks);
        UpdateMax(ticks);
    }

    /// <summary>The value at or below which <paramref name="percentile"/> percent of recorded values lie (upper edge of its bucket, capped at the max).</summary>
    public double PercentileMs(double percentile)
    {
        var total = Count;
        if (total == 0)
        {
            return 0;
        }

        var rank = Math.Max(1, (long)Math.Ceiling(percentile / 100 * total));
        long seen = 0;
        for (var index = 0; index < _counts.Length; index++)
        {
            seen += Volatile.Read(ref _counts[index]);
            if (seen >= rank)
            {
                return Math.Min(UpperTicks(index), Interlocked.Read(ref _maxTicks)) * MillisecondsPerTick;
            }
        }

        return MaxMs;
    }

    public double MinMs => Count == 0 ? 0 : Interlocked.Read(ref _minTicks) * MillisecondsPerTick;

    public double MaxMs => Interlocked.Read(ref _maxTicks) * MillisecondsPerTick;

    public double MeanMs => Count == 0 ? 0 : (double)Interlocked.Read(ref _sumTicks) / Count * MillisecondsPerTick;

    public LatencySummary? Summarize()
    {
        if (Count == 0)
        {
            return null;
        }

        // Bucket midpoints stand in for the values: the standard deviation is as exact as the buckets (0.8%).
        var mean = MeanMs;
        double squares = 0;
        for (var index = 0; index < _counts.Length; index++)
        {
            var count = Volatile.Read(ref _counts[index]);
            if (count > 0)
            {
                var mid = (LowerTicks(index) + UpperTicks(index)) / 2.0 * MillisecondsPerTick - mean;
                squares += count * mid * mid;
            }
        }

        return new LatencySummary(
            MinMs, mean, Math.Sqrt(squares / Count),
            PercentileMs(50), PercentileMs(90), PercentileMs(99), PercentileMs(99.9), MaxMs);
    }

    /// <summary>The distribution in at most <paramref name="maxBins"/> bins of equal width on a log scale, from min to max.</summary>
    public IReadOnlyList<HistogramBin> ToBins(int maxBins = 40)
    {
        var total = Count;
        if (total == 0)
        {
            return [];
        }

        var min = Math.Max(Interlocked.Read(ref _minTicks), 1);
        var max = Math.Max(Interlocked.Read(ref _maxTicks), min + 1);
        var ratio = Math.Pow((double)max / min, 1.0 / maxBins);
        var edges = Enumerable.Range(0, maxBins + 1).Select(i => i == maxBins ? max + 1.0 : min * Math.Pow(ratio, i)).ToArray();
        edges[0] = 0;
        var counts = new long[maxBins];
        var bin = 0;
        for (var index = 0; index < _counts.Length; index++)
        {
            var count = Volatile.Read(ref _counts[index]);
            if (count == 0)
            {
                continue;
            }

            // A bucket goes to the bin that holds its midpoint.
            var mid = (LowerTicks(index) + UpperTicks(index)) / 2.0;
            while (bin < maxBins - 1 && mid >= edges[bin + 1])
            {
                bin++;
            }

            counts[bin] += count;
        }

        return counts
            .Select((count, i) => new HistogramBin(
                Math.Round(Math.Max(edges[i], min) * MillisecondsPerTick, 4),
                Math.Round(Math.Min(edges[i + 1], max) * MillisecondsPerTick, 4),
                count))
            .Where(b => b.Count > 0)
            .ToList();
    }

    private static int IndexOf(long ticks)
    {
        if (ticks < SubBuckets)
        {
            return (int)ticks;
        }

        var magnitude = 63 - System.Numerics.BitOperations.LeadingZeroCount((ulong)ticks) - SubBucketBits + 1;
        var subBucket = (int)(ticks >> magnitude) - (SubBuckets >> 1);
        return (magnitude * (SubBuckets >> 1)) + (SubBuckets >> 1) + subBucket;
    }

    private static long LowerTicks(int index)
    {
        if (index < SubBuckets)
        {
            return index;
        }

        var half = SubBuckets >> 1;
        var magnitude = (index - SubBuckets) / half + 1;
        var subBucket = (index - SubBuckets) % half + half;
        return (long)subBucket << magnitude;
    }

    private static long UpperTicks(int index) => index < SubBuckets ? index : LowerTicks(index) + (1L << ((index - SubBuckets) / (SubBuckets >> 1) + 1)) - 1;

    private void UpdateMin(long ticks)
    {
        var current = Interlocked.Read(ref _minTicks);
        while (ticks < current)
        {
            var seen = Interlocked.CompareExchange(ref _minTicks, ticks, current);
            if (seen == current)
            {
                return;
            }

            current = seen;
        }
    }

    private void UpdateMax(long ticks)
    {
        var current = Interlocked.Read(ref _maxTicks);
        while (ticks > current)
        {
            var seen = Interlocked.CompareExchange(ref _maxTicks, ticks, current);
            if (seen == current)
            {
                return;
            }

            current = seen;
        }
    }
}
