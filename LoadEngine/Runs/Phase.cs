using System.Diagnostics;
using System.Runtime.ExceptionServices;
using Grpc.Core;
using LoadEngine.Calls;
using LoadEngine.Targets;

namespace LoadEngine.Runs;

/// <summary>
/// One phase of a run (warm-up or measured): its bounds (a count, a duration), which call comes next, the clock that times
/// each call and the recorder that keeps what happened; a load driver (<see cref="ClosedLoad"/>, <see cref="ArrivalLoad"/>,
/// <see cref="StreamLoad"/>) decides when calls start, and the <see cref="FailureDetector"/> when the service is gone.
/// </summary>
internal sealed class Phase : IDisposable
{
    private readonly long? _durationTicks;
    private readonly CancellationTokenSource _stop;
    private long _lastTick;
    private long _next = -1;
    private ExceptionDispatchInfo? _crash;

    /// <param name="service">The service's address as a sentence names it.</param>
    /// <param name="silenceWindow">How long calls may be in flight with none ending before the service counts as hung.</param>
    /// <param name="answeredBefore">Whether a call of an earlier phase of the run succeeded: then a call that fails to connect first is no proof that none can.</param>
    /// <param name="text">What the target's failures say, masked and escaped as they enter the engine.</param>
    public Phase(
        RunPlan plan, RunPhase name, RunRecorder recorder, int? count, double? durationSeconds, EngineOptions options, string service, TimeSpan silenceWindow,
        TargetText text, CancellationToken cancellation, bool answeredBefore = false)
    {
        Text = text;
        // A workload's TLS contender calls the service's TLS listener whatever the engine's own address is.
        Cleartext = options.ServerUri.Scheme == Uri.UriSchemeHttp && plan.Workload?.Contender?.Security != Protocols.WireSecurity.Tls;
        Plan = plan;
        Name = name;
        Recorder = recorder;
        Count = count;
        _durationTicks = durationSeconds is { } seconds ? (long)(seconds * Stopwatch.Frequency) : null;
        Options = options;
        _stop = CancellationTokenSource.CreateLinkedTokenSource(cancellation);
        // Under an arrival rate the plan's concurrency is the most in flight, within the engine's own limit.
        Schedule = LoadDrivers.Schedule(plan, count, durationSeconds);
        MaxInFlight = Math.Clamp(Schedule is null ? options.MaxInFlight : plan.Concurrency, 1, options.MaxInFlight);
        _lastTick = Start;
        Detector = new FailureDetector(name, options, service, silenceWindow, answeredBefore, recorder, _stop);
    }

    public RunPlan Plan { get; }

    public RunPhase Name { get; }

    public RunRecorder Recorder { get; }

    public FailureDetector Detector { get; }

    public EngineOptions Options { get; }

    /// <summary>How the target's words (its failures' details) are masked and escaped as they enter the engine.</summary>
    public TargetText Text { get; }

    /// <summary>Whether the calls go out as cleartext HTTP/2 (http://), which tells a TLS port's refusal apart in their failures.</summary>
    public bool Cleartext { get; }

    /// <summary>The calls the phase makes when a count bounds it.</summary>
    public int? Count { get; }

    /// <summary>Most calls (or unanswered stream messages) in flight at once.</summary>
    public int MaxInFlight { get; }

    /// <summary>Arrival-rate loads: when each call is due.</summary>
    public ArrivalSchedule? Schedule { get; }

    /// <summary>Arrival-rate loads: how long the schedule ran until its last call was due (or the phase stopped).</summary>
    public TimeSpan Sending { get; set; }

    public long Start { get; } = Stopwatch.GetTimestamp();

    public TimeSpan Elapsed => Stopwatch.GetElapsedTime(Start);

    public bool Stopped => _stop.IsCancellationRequested;

    public CancellationToken Stopping => _stop.Token;

    /// <summary>Whether the plan's duration has passed: a phase bounded by both ends at whichever comes first, its count then not reached.</summary>
    public bool DurationOver => _durationTicks is { } duration && Stopwatch.GetTimestamp() - Start >= duration;

    /// <summary>Takes the next call's index; false once the count is reached, the duration is over, or the phase is stopping.</summary>
    public bool TryTakeNext(out long index)
    {
        index = -1;
        if (Stopped || DurationOver)
        {
            return false;
        }

        index = Interlocked.Increment(ref _next);
        return Count is not { } count || index < count;
    }

    /// <summary>
    /// One call, timed from when it was due (<paramref name="dueAt"/>, 0 for a closed load: when it went out). A call that
    /// makes many service calls gets as many call timeouts. A failure is counted under its status, never as a success.
    /// </summary>
    public async Task CallAsync(ICallSource calls, long index, long dueAt)
    {
        var sentAt = Stopwatch.GetTimestamp();
        if (dueAt == 0)
        {
            dueAt = sentAt;
        }
        else
        {
            Recorder.RecordSent(dueAt, sentAt);
        }

        var ended = StatusCode.OK;
        Detector.CallStarted();
        try
        {
            var options = new CallOptions(deadline: DateTime.UtcNow + Options.CallTimeout * calls.ServiceCallsPerCall, cancellationToken: _stop.Token);
            await calls.CallAsync(new CallContext(index, Name, options, Recorder.Observations));
            Recorder.RecordSuccess(index, dueAt, sentAt, Detector.Succeeded());
        }
        catch (Exception error) when (CallFailure.From(error, Text, Cleartext) is { } failure)
        {
            ended = failure.Status;
            Fail(failure, sentAt);
        }
        finally
        {
            Detector.CallEnded(ended, sentAt);
        }
    }

    /// <summary>Counts a failed call under its status and tells the detector; false when the phase is stopping and the call was only cut short.</summary>
    public bool Fail(CallFailure failure, long sentAt)
    {
        // Calls cut short because the phase is stopping are not the service's failures.
        if (failure.Status == StatusCode.Cancelled && Stopped)
        {
            return false;
        }

        Recorder.RecordFailure(failure.Status, failure.Detail);
        Detector.Failed(failure, sentAt);
        return true;
    }

    /// <summary>Live figures for one tick: totals so far, and the rate and latency since the last tick.</summary>
    public ProgressSnapshot Snapshot(TickFigures tick, TimeSpan elapsed)
    {
        var now = Stopwatch.GetTimestamp();
        var seconds = Stopwatch.GetElapsedTime(Interlocked.Exchange(ref _lastTick, now), now).TotalSeconds;
        var arrivalRate = Recorder.IsArrivalRate;
        return new ProgressSnapshot(
            0,
            Name,
            Count ?? 0,
            Recorder.Completed,
            Recorder.Succeeded,
            Recorder.Failed,
            Math.Round(elapsed.TotalMilliseconds, 3),
            seconds > 0 ? Math.Round(tick.Calls / seconds, 1) : 0,
            tick.Latency.Count > 0 ? Math.Round(tick.Latency.P50Ms, 4) : null,
            tick.Latency.Count > 0 ? Math.Round(tick.Latency.P99Ms, 4) : null)
        {
            DurationMs = _durationTicks is { } duration ? Math.Round(duration * 1000.0 / Stopwatch.Frequency, 3) : Schedule?.Seconds * 1000,
            Late = arrivalRate ? Recorder.Late : null,
            Dropped = arrivalRate ? Recorder.Dropped : null,
        };
    }

    /// <summary>Keeps what a call threw that is no call's failure (a bug), and stops the phase; <see cref="ThrowIfCrashed"/> re-throws it.</summary>
    public void Crashed(Exception crash)
    {
        Interlocked.CompareExchange(ref _crash, ExceptionDispatchInfo.Capture(crash), null);
        _stop.Cancel();
    }

    /// <summary>Re-throws, once the phase has ended, anything other than a call's failure that a call threw.</summary>
    public void ThrowIfCrashed() => _crash?.Throw();

    public void Dispose() => _stop.Dispose();
}
