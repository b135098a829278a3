using System.Diagnostics;
using System.Text.Json.Serialization;

namespace ApiGateway.Runs;

[JsonConverter(typeof(JsonStringEnumConverter<RunPhase>))]
public enum RunPhase
{
    Starting,
    Warmup,
    Measured,
    Finished,
}

/// <summary>A moment of a running run, as the live view shows it: rolling figures cover the last tick only.</summary>
public sealed record ProgressSnapshot(
    long Sequence,
    RunPhase Phase,
    int Total,
    long Completed,
    long Succeeded,
    long Failed,
    double ElapsedMs,
    double CurrentThroughputPerSecond,
    double? RollingP50Ms,
    double? RollingP99Ms);

/// <summary>
/// The live state of one run. One ticker (the run's own) calls <see cref="Tick"/> a few times a second, so
/// every viewer sees the same rolling window however many are watching.
/// </summary>
public sealed class RunProgress
{
    private readonly long _started = Stopwatch.GetTimestamp();
    private readonly TaskCompletionSource _finished = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private RunRecorder? _recorder;
    private RunPhase _phase = RunPhase.Starting;
    private long _lastTick = Stopwatch.GetTimestamp();
    private long _lastCompleted;
    private long _sequence;
    private ProgressSnapshot? _latest;

    public ProgressSnapshot Latest => Volatile.Read(ref _latest) ?? new ProgressSnapshot(0, _phase, 0, 0, 0, 0, 0, 0, null, null);

    public Task Finished => _finished.Task;

    public void Enter(RunPhase phase, RunRecorder recorder)
    {
        lock (_finished)
        {
            _phase = phase;
            _recorder = recorder;
            _lastCompleted = 0;
            _lastTick = Stopwatch.GetTimestamp();
        }
    }

    public ProgressSnapshot Tick()
    {
        lock (_finished)
        {
            var now = Stopwatch.GetTimestamp();
            var recorder = _recorder;
            var window = recorder?.TakeWindow() ?? default;
            var completed = recorder?.Completed ?? 0;
            var seconds = Stopwatch.GetElapsedTime(_lastTick, now).TotalSeconds;
            var snapshot = new ProgressSnapshot(
                ++_sequence,
                _phase,
                recorder?.Count ?? 0,
                completed,
                recorder?.Succeeded ?? 0,
                recorder?.Failed ?? 0,
                Math.Round(Stopwatch.GetElapsedTime(_started, now).TotalMilliseconds, 3),
                seconds > 0 ? Math.Round((completed - _lastCompleted) / seconds, 1) : 0,
                window.Count > 0 ? Math.Round(window.P50Ms, 4) : null,
                window.Count > 0 ? Math.Round(window.P99Ms, 4) : null);
            _lastTick = now;
            _lastCompleted = completed;
            Volatile.Write(ref _latest, snapshot);
            return snapshot;
        }
    }

    public void Finish()
    {
        lock (_finished)
        {
            _phase = RunPhase.Finished;
        }

        Tick();
        _finished.TrySetResult();
    }
}
