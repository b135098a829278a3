using System.Diagnostics;
using ApiGateway.Runs;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Reports;
using HdrHistogram;

namespace GrpcBestPractices.Benchmarks;

/// <summary>What recording one call's latency costs the run engine: on one thread, and with every core recording into one run at once.</summary>
[MemoryDiagnoser]
public class HistogramBenchmarks
{
    private const int Spread = 1024;
    private const int RecordsPerThread = 100_000;
    private static readonly int Threads = Environment.ProcessorCount;

    // Latencies from 50 µs to 5 ms, so records land in many buckets as a run's do.
    private readonly long[] _ticks = Enumerable.Range(0, Spread)
        .Select(i => (long)(Stopwatch.Frequency * 50e-6 * Math.Pow(100, (double)i / Spread))).ToArray();

    private readonly long[] _units = new long[Spread];
    private LatencyRecorder _latency = null!;
    private Recorder _recorder = null!;

    [GlobalSetup]
    public void Setup()
    {
        _latency = new LatencyRecorder();
        _recorder = new Recorder(1, LatencyRecorder.HighestUnits, LatencyRecorder.SignificantDigits, (id, lowest, highest, digits) => new IntConcurrentHistogram(id, lowest, highest, digits));
        for (var i = 0; i < Spread; i++)
        {
            _units[i] = (long)(_ticks[i] * 1e9 / Stopwatch.Frequency / LatencyRecorder.NanosecondsPerUnit);
        }
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Spread, Description = "HdrHistogram Recorder.RecordValue alone")]
    public void RecorderAlone()
    {
        for (var i = 0; i < Spread; i++)
        {
            _recorder.RecordValue(_units[i]);
        }
    }

    [Benchmark(OperationsPerInvoke = Spread, Description = "LatencyRecorder.Record, 1 thread")]
    public void Record()
    {
        for (var i = 0; i < Spread; i++)
        {
            _latency.Record(_ticks[i]);
        }
    }

    // Per record on each thread: the threads record at the same time, so this is what each call pays under contention.
    [Benchmark(OperationsPerInvoke = RecordsPerThread, Description = "LatencyRecorder.Record, every core at once")]
    public void RecordContended() => Parallel.For(0, Threads, new ParallelOptions { MaxDegreeOfParallelism = Threads }, _ =>
    {
        for (var i = 0; i < RecordsPerThread; i++)
        {
            _latency.Record(_ticks[i % Spread]);
        }
    });

    public static IEnumerable<Row> Rows(Summary summary)
    {
        (double Nanoseconds, long Bytes) Measured(string method)
        {
            var report = summary.Reports.Single(r => r.BenchmarkCase.Descriptor.WorkloadMethod.Name == method);
            return (report.ResultStatistics!.Median, report.GcStats.GetBytesAllocatedPerOperation(report.BenchmarkCase) ?? 0);
        }

        var alone = Measured(nameof(RecorderAlone));
        var record = Measured(nameof(Record));
        var contended = Measured(nameof(RecordContended));
        yield return new($"latency record, 1 thread: HdrHistogram Recorder + exact sum, min, max ({record.Bytes} B allocated)", record.Nanoseconds, "ns",
            $"Recorder.RecordValue alone ({alone.Bytes} B allocated)", alone.Nanoseconds, "–", null);
        yield return new($"latency record, {Threads} threads into one run at once ({contended.Bytes} B allocated)", contended.Nanoseconds, "ns",
            "latency record, 1 thread", record.Nanoseconds, "–", null);
    }
}
