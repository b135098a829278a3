using System.Collections.Concurrent;
using System.Diagnostics;
using System.Runtime.InteropServices;
using Grpc.Core;
using Performance;

namespace ApiGateway.Runs;

/// <summary>
/// Collects one phase of a run from many threads at once. Memory is fixed by design (the latency recorder, counters,
/// the distinct connection ids) unless the caller asked for the per-call statuses.
/// </summary>
public sealed class RunRecorder
{
    private static readonly TimeSpan LoadSampleSpacing = TimeSpan.FromMilliseconds(10);
    private readonly LatencyRecorder _latency = new();
    private readonly long[] _statusCounts = new long[17];
    private readonly ConcurrentDictionary<string, byte> _connections = new(StringComparer.Ordinal);
    private readonly PerformanceStatus?[]? _statuses;
    private readonly object _loadGate = new();
    private long _firstCallTicks = -1;
    private long _completed;
    private long _failed;
    private long _lastLoadSample;
    private double _cpuSum;
    private double _cpuMax;
    private double _memoryMax;
    private int _loadSamples;

    public RunRecorder(int count, bool keepStatuses)
    {
        Count = count;
        _statuses = keepStatuses ? new PerformanceStatus?[count] : null;
    }

    public int Count { get; }

    public long Completed => Interlocked.Read(ref _completed);

    public long Failed => Interlocked.Read(ref _failed);

    public long Succeeded => Completed - Failed;

    public int ConnectionsUsed => _connections.Count;

    public void RecordSuccess(int index, long startTimestamp, PerformanceStatusResponse response)
    {
        RecordLatency(index, Stopwatch.GetTimestamp() - startTimestamp);
        Interlocked.Increment(ref _statusCounts[(int)StatusCode.OK]);
        _connections.TryAdd(response.ConnectionId, 0);
        SampleServiceLoad(response);
        if (_statuses is not null)
        {
            _statuses[index] = PerformanceStatus.From(response);
        }

        Interlocked.Increment(ref _completed);
    }

    /// <summary>A failed call counts under its status and never as a success; its latency is not in the distribution.</summary>
    public void RecordFailure(StatusCode status)
    {
        Interlocked.Increment(ref _statusCounts[(int)status]);
        Interlocked.Increment(ref _failed);
        Interlocked.Increment(ref _completed);
    }

    public IReadOnlyList<PerformanceStatus> Statuses =>
        _statuses is null ? [] : _statuses.Where(status => status is not null).Select(status => status!).ToList();

    public IReadOnlyDictionary<string, long> StatusCounts =>
        Enumerable.Range(0, _statusCounts.Length)
            .Where(code => Interlocked.Read(ref _statusCounts[code]) > 0)
            .ToDictionary(code => ((StatusCode)code).ToString(), code => Interlocked.Read(ref _statusCounts[code]));

    /// <summary>The non-OK status seen most often, for a one-line summary of a failed run.</summary>
    public StatusCode? MostCommonError =>
        Enumerable.Range(1, _statusCounts.Length - 1)
            .Where(code => Interlocked.Read(ref _statusCounts[code]) > 0)
            .OrderByDescending(code => Interlocked.Read(ref _statusCounts[code]))
            .Select(code => (StatusCode?)code)
            .FirstOrDefault();

    /// <summary>Latencies since the last call, for live progress; the window restarts empty.</summary>
    public LatencyWindow TakeWindow() => _latency.TakeWindow();

    public RunStats ToStats(TimeSpan wallTime, long allocatedBytes, int warmupCalls, TimeSpan warmupTime)
    {
        var calls = Completed;
        var firstCall = Interlocked.Read(ref _firstCallTicks);
        var latency = _latency.Total();
        return new RunStats(
            Round(wallTime.TotalMilliseconds),
            Round(wallTime > TimeSpan.Zero ? Succeeded / wallTime.TotalSeconds : 0),
            calls,
            Succeeded,
            Failed,
            firstCall < 0 ? null : Round(Stopwatch.GetElapsedTime(0, firstCall).TotalMilliseconds),
            Rounded(latency.Summarize()),
            latency.ToBins(),
            StatusCounts,
            ConnectionsUsed,
            Round(calls > 0 ? (double)allocatedBytes / calls : 0),
            ServiceLoad(),
            warmupCalls,
            Round(warmupTime.TotalMilliseconds));
    }

    private void RecordLatency(int index, long ticks)
    {
        // The first call of the phase pays for what later calls reuse (connection, JIT, pools): reported apart.
        if (index == 0 && Interlocked.CompareExchange(ref _firstCallTicks, ticks, -1) == -1 && Count > 1)
        {
            return;
        }

        _latency.Record(ticks);
    }

    // The service refreshes its figures a few times a second; sampling every answer would only add contention.
    private void SampleServiceLoad(PerformanceStatusResponse response)
    {
        var now = Stopwatch.GetTimestamp();
        var last = Interlocked.Read(ref _lastLoadSample);
        if (last != 0 && Stopwatch.GetElapsedTime(last, now) < LoadSampleSpacing)
        {
            return;
        }

        if (Interlocked.CompareExchange(ref _lastLoadSample, now, last) != last)
        {
            return;
        }

        lock (_loadGate)
        {
            _cpuSum += response.CpuPercentageUsage;
            _cpuMax = Math.Max(_cpuMax, response.CpuPercentageUsage);
            _memoryMax = Math.Max(_memoryMax, response.MemoryUsage);
            _loadSamples++;
        }
    }

    private ServiceLoad ServiceLoad()
    {
        lock (_loadGate)
        {
            return _loadSamples == 0
                ? new ServiceLoad(null, null, null, 0)
                : new ServiceLoad(Round(_cpuSum / _loadSamples), Round(_cpuMax), Round(_memoryMax), _loadSamples);
        }
    }

    private static LatencySummary? Rounded(LatencySummary? s) => s is null
        ? null
        : new LatencySummary(Round(s.MinMs), Round(s.MeanMs), Round(s.StdDevMs), Round(s.P50Ms), Round(s.P90Ms), Round(s.P99Ms), Round(s.P999Ms), Round(s.MaxMs));

    private static double Round(double value) => Math.Round(value, 4);
}

/// <summary>One answer, in the chapter's JSON shape. Byte fields serialize as base64.</summary>
public sealed record PerformanceStatus(
    double CpuPercentageUsage,
    double MemoryUsage,
    int ProcessesRunning,
    int ActiveConnections,
    byte[] DataLoad1,
    byte[] DataLoad2)
{
    public static PerformanceStatus From(PerformanceStatusResponse response) => new(
        response.CpuPercentageUsage,
        response.MemoryUsage,
        response.ProcessesRunning,
        response.ActiveConnections,
        // Copies: always safe, always allocates.
        response.DataLoad1.ToByteArray(),
        WithoutCopy(response.DataLoad2));

    // The parsed ByteString owns its array; take it when the segment is the whole array, copy only the slice otherwise.
    private static byte[] WithoutCopy(Google.Protobuf.ByteString bytes) =>
        MemoryMarshal.TryGetArray(bytes.Memory, out var segment) && segment.Array is { } array && segment.Offset == 0 && segment.Count == array.Length
            ? array
            : bytes.Memory.ToArray();
}
