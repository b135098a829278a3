using System.Diagnostics;
using Grpc.Core;
using LoadEngine.Metrics;

namespace LoadEngine.Runs;

/// <summary>
/// Collects one phase of a run from many threads at once: latency, outcomes by status, what the answers told of the
/// service (<see cref="Observations"/>), and (for arrival-rate loads) how well the schedule was kept. Memory is fixed by
/// design (histograms, counters, one time-series point per second) unless the caller asked to keep the answers.
/// </summary>
public sealed class RunRecorder
{
    /// <summary>A send that went out more than this after it was due counts as late.</summary>
    public const double LateAfterMs = 1;

    /// <summary>A phase shorter than this keeps its time series in 100 ms buckets; a longer one in 1 s buckets.</summary>
    public const double FineSeriesLimitMs = 5_000;

    private static readonly long LateAfterTicks = (long)(LateAfterMs * Stopwatch.Frequency / 1000);

    /// <summary>How many status codes there are: arrays indexed by code are this long.</summary>
    internal static readonly int StatusCodes = Enum.GetValues<StatusCode>().Max(code => (int)code) + 1;

    private readonly LatencyRecorder _latency = new();
    private readonly LatencyRecorder? _fromActualSend;
    private readonly LatencyRecorder? _sendLag;
    private readonly long[] _statusCounts = new long[StatusCodes];
    private readonly StatusDetails _statusDetails = new();
    private readonly CallMetrics? _metrics;
    private readonly object _seriesGate = new();
    private readonly List<TimePoint> _fine = [];
    private readonly List<TimePoint> _coarse = [];
    private long[] _statusesAtTick = new long[StatusCodes];
    private long[] _statusesAtSecond = new long[StatusCodes];
    private long _completedAtTick;
    private long _completedAtSecond;
    private double _nextSecondMs = 1000;
    private long _firstCallTicks = -1;
    private long _completed;
    private long _failed;
    private long _due;
    private long _sent;
    private long _late;
    private long _dropped;

    /// <param name="count">The phase's calls when a count bounds it.</param>
    /// <param name="arrivalRate">Whether calls are due on a schedule (open and ramping loads): then send lag and latency from the actual send are kept too.</param>
    /// <param name="observations">Where the target notes what its answers tell of the service (and keeps the answers the caller asked for).</param>
    /// <param name="metrics">The run's tags for the engine's OpenTelemetry instruments: the measured phase's calls are exported too.</param>
    public RunRecorder(int? count, bool arrivalRate = false, RunObservations? observations = null, CallMetrics? metrics = null)
    {
        Count = count;
        if (arrivalRate)
        {
            _fromActualSend = new LatencyRecorder();
            _sendLag = new LatencyRecorder();
        }

        Observations = observations ?? new RunObservations();
        _metrics = metrics;
    }

    /// <summary>What the phase's answers told of the service: the connections that carried them, its load, the kept answers.</summary>
    public RunObservations Observations { get; }

    public int? Count { get; }

    public long Completed => Interlocked.Read(ref _completed);

    public long Failed => Interlocked.Read(ref _failed);

    public long Succeeded => Completed - Failed;

    public long Late => Interlocked.Read(ref _late);

    public long Dropped => Interlocked.Read(ref _dropped);

    public bool IsArrivalRate => _sendLag is not null;

    public int ConnectionsUsed => Observations.ConnectionsUsed;

    /// <summary>
    /// A call that succeeded. Its latency runs from when it was due (<paramref name="dueAt"/>; for a closed load that is
    /// when it went out) to <paramref name="endedAt"/>; the first call of the phase is reported apart.
    /// </summary>
    public void RecordSuccess(long index, long dueAt, long sentAt, long endedAt)
    {
        RecordLatency(index, dueAt, sentAt, endedAt);
        Interlocked.Increment(ref _statusCounts[(int)StatusCode.OK]);
        _metrics?.Succeeded(endedAt - dueAt);
        Interlocked.Increment(ref _completed);
    }

    /// <summary>
    /// A failed call counts under its status and never as a success; its latency is not in the distribution.
    /// <paramref name="detail"/> is the server's message, masked and escaped already (<see cref="StatusDetails"/> keeps the first few).
    /// </summary>
    public void RecordFailure(StatusCode status, string? detail = null)
    {
        Interlocked.Increment(ref _statusCounts[(int)status]);
        _statusDetails.Record(status, detail);
        _metrics?.Failed(status);
        Interlocked.Increment(ref _failed);
        Interlocked.Increment(ref _completed);
    }

    /// <summary>Arrival-rate loads: a call fell due.</summary>
    public void RecordDue() => Interlocked.Increment(ref _due);

    /// <summary>Arrival-rate loads: a due call went out at <paramref name="sentAt"/>.</summary>
    public void RecordSent(long dueAt, long sentAt)
    {
        Interlocked.Increment(ref _sent);
        _sendLag?.Record(sentAt - dueAt);
        if (sentAt - dueAt > LateAfterTicks)
        {
            Interlocked.Increment(ref _late);
        }
    }

    /// <summary>Arrival-rate loads: a due call could not be started (the client already had its maximum in flight).</summary>
    public void RecordDropped() => Interlocked.Increment(ref _dropped);

    public IReadOnlyDictionary<string, long> StatusCounts => Named(Snapshot(), includeOk: true);

    /// <summary>The failed calls by status with the first few distinct messages the server sent.</summary>
    public IReadOnlyList<StatusDetail> StatusDetails => _statusDetails.ToList();

    /// <summary>
    /// One tick of the clock, <paramref name="elapsedMs"/> into the phase: the latencies and outcomes since the last tick
    /// (for live progress), which also become the time series' points. <paramref name="last"/> closes the series.
    /// </summary>
    public TickFigures Tick(double elapsedMs, bool last = false)
    {
        lock (_seriesGate)
        {
            var window = _latency.TakeWindow();
            var statuses = Snapshot();
            var completed = statuses.Sum();
            var calls = completed - _completedAtTick;
            if (elapsedMs <= FineSeriesLimitMs + 1000)
            {
                _fine.Add(Point(elapsedMs, calls, statuses, _statusesAtTick, window));
            }

            _completedAtTick = completed;
            _statusesAtTick = statuses;
            if (elapsedMs >= _nextSecondMs || last)
            {
                _coarse.Add(Point(elapsedMs, completed - _completedAtSecond, statuses, _statusesAtSecond, _latency.TakeBucket()));
                _completedAtSecond = completed;
                _statusesAtSecond = statuses;
                _nextSecondMs = (Math.Floor(elapsedMs / 1000) + 1) * 1000;
            }

            return new TickFigures(calls, window);
        }
    }

    /// <summary>The phase's figures over time: 100 ms buckets if it lasted under 5 s, else 1 s buckets.</summary>
    public TimeSeries ToSeries(TimeSpan wallTime)
    {
        lock (_seriesGate)
        {
            return wallTime.TotalMilliseconds < FineSeriesLimitMs
                ? new TimeSeries(100, [.. _fine.Where(point => point.AtMs <= wallTime.TotalMilliseconds + 1)])
                : new TimeSeries(1000, [.. _coarse]);
        }
    }

    /// <param name="schedule">Arrival-rate loads: the requested calls per second and how long sending lasted.</param>
    public RunStats ToStats(TimeSpan wallTime, long allocatedBytes, int warmupCalls, TimeSpan warmupTime, IReadOnlyList<double> percentiles, (double RequestedRate, TimeSpan Sending)? schedule = null) =>
        ToFigures(wallTime, allocatedBytes, warmupCalls, warmupTime, schedule).ToStats(percentiles);

    /// <summary>
    /// What the phase recorded, unsummarised: the figures an agent writes to the shared store, and the ones
    /// <see cref="ToStats"/> summarises. The measured span ends now and began <paramref name="wallTime"/> ago.
    /// </summary>
    public RunFigures ToFigures(TimeSpan wallTime, long allocatedBytes, int warmupCalls, TimeSpan warmupTime, (double RequestedRate, TimeSpan Sending)? schedule = null)
    {
        var firstCall = Interlocked.Read(ref _firstCallTicks);
        var to = DateTimeOffset.UtcNow;
        return new RunFigures(
            to - wallTime,
            to,
            wallTime.TotalMilliseconds,
            Completed,
            Failed,
            firstCall < 0 ? null : Stopwatch.GetElapsedTime(0, firstCall).TotalMilliseconds,
            _latency.Total(),
            _fromActualSend?.Total(),
            _sendLag?.Total(),
            StatusCounts,
            ConnectionsUsed,
            allocatedBytes,
            Observations.ServiceLoadFigures(),
            warmupCalls,
            warmupTime.TotalMilliseconds,
            _sendLag is null ? null : new SendCounts(
                Interlocked.Read(ref _due), Interlocked.Read(ref _sent), Late, Dropped,
                schedule?.RequestedRate ?? 0, schedule?.Sending.TotalMilliseconds ?? 0))
        {
            FirstAnswer = Observations.FirstAnswer,
            Answers = Observations.AnswerMessages,
            StatusDetails = StatusDetails,
        };
    }

    private void RecordLatency(long index, long dueAt, long sentAt, long endedAt)
    {
        // The first call pays for what later calls reuse (connection, JIT, pools): it is kept apart from the distribution.
        var apart = index == 0 && Interlocked.CompareExchange(ref _firstCallTicks, endedAt - dueAt, -1) == -1 && Count is not 1;
        if (!apart)
        {
            _latency.Record(endedAt - dueAt);
            _fromActualSend?.Record(endedAt - sentAt);
        }
    }

    private long[] Snapshot()
    {
        var counts = new long[StatusCodes];
        for (var code = 0; code < counts.Length; code++)
        {
            counts[code] = Interlocked.Read(ref _statusCounts[code]);
        }

        return counts;
    }

    private static Dictionary<string, long> Named(long[] counts, bool includeOk) =>
        Enumerable.Range(includeOk ? 0 : 1, counts.Length - (includeOk ? 0 : 1))
            .Where(code => counts[code] > 0)
            .ToDictionary(code => ((StatusCode)code).ToString(), code => counts[code]);

    private static TimePoint Point(double atMs, long calls, long[] statuses, long[] before, LatencyWindow latency)
    {
        var errors = new long[statuses.Length];
        for (var code = 1; code < statuses.Length; code++)
        {
            errors[code] = statuses[code] - before[code];
        }

        return new TimePoint(
            RunFigures.Round(atMs),
            calls,
            errors.Sum(),
            Named(errors, includeOk: false),
            latency.Count == 0 ? null : RunFigures.Round(latency.P50Ms),
            latency.Count == 0 ? null : RunFigures.Round(latency.P90Ms),
            latency.Count == 0 ? null : RunFigures.Round(latency.P99Ms),
            latency.Count == 0 ? null : RunFigures.Round(latency.MaxMs));
    }
}

/// <summary>What one tick of the clock saw: calls that ended since the last tick, and their latencies.</summary>
public readonly record struct TickFigures(long Calls, LatencyWindow Latency);
