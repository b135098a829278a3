using System.Diagnostics;
using System.Globalization;
using Grpc.Core;
using LoadEngine.Calls;

namespace LoadEngine.Runs;

/// <summary>
/// Decides, from what happens to a phase's calls, when the service is no longer there to answer and the phase must stop:
/// unreachable (a call fails to connect before any has succeeded; or, after successes, calls fail to connect and none
/// succeeds again before the calls run out or for a window: the silence window when the connections are refused, the
/// longer connect-failure window when they time out or are reset, as a storm does to a service that is still answering),
/// or hung (calls in flight and none ends within the silence window, or too many miss their deadline in a row with no
/// call answered while they waited). Everything else that fails is counted by status, and the phase goes on.
/// </summary>
/// <param name="stopping">The phase's stop: once it is stopping, what its calls do no longer says anything about the service.</param>
internal sealed class FailureDetector(
    RunPhase phase, EngineOptions options, string service, TimeSpan silenceWindow, bool answeredBefore, RunRecorder recorder, CancellationTokenSource stopping)
{
    private readonly long _start = Stopwatch.GetTimestamp();
    private readonly object _connectGate = new();
    private long _lastSuccessEnded;
    private long _lastConnectFailureSent;
    private long _connectFailures;
    private string? _firstConnectFailure;
    private long _failingAfter;
    private long _failingSince;
    private long _failingStreak;
    private bool _failingRefusedOnly;
    private string? _unreachable;
    private string? _gaveUp;
    private int _pending;
    private long _lastEnded = Stopwatch.GetTimestamp();
    private int _timeoutsInARow;

    /// <summary>What is waiting while nothing ends, in the silence sentence: calls in flight, or stream messages unanswered.</summary>
    public string InFlightNoun { get; set; } = "call(s) were in flight";

    /// <summary>Why the phase stopped on a service no call could connect to (the sentence says what was seen); null if it did not.</summary>
    public string? Unreachable => Volatile.Read(ref _unreachable);

    /// <summary>Why the phase gave up on a service that stopped answering, or a stream that lost messages; null if it did not.</summary>
    public string? GaveUp => Volatile.Read(ref _gaveUp);

    /// <summary>Calls that failed to connect while other calls showed the service alive, and what was seen; null when none did.</summary>
    public ConnectFailures? ConnectFailures
    {
        get
        {
            lock (_connectGate)
            {
                var lastSuccess = Volatile.Read(ref _lastSuccessEnded);
                return _firstConnectFailure is null
                    ? null
                    : new ConnectFailures(_connectFailures, _firstConnectFailure, lastSuccess == 0 ? null : Stopwatch.GetElapsedTime(_start, lastSuccess));
            }
        }
    }

    public void CallStarted()
    {
        // Silence is counted only while something is in flight: from the first call after none was.
        if (Interlocked.Increment(ref _pending) == 1)
        {
            Volatile.Write(ref _lastEnded, Stopwatch.GetTimestamp());
        }
    }

    /// <param name="sentAt">When the call went out (0 for a stream message's answer).</param>
    public void CallEnded(StatusCode status, long sentAt = 0)
    {
        Volatile.Write(ref _lastEnded, Stopwatch.GetTimestamp());
        Interlocked.Decrement(ref _pending);
        if (status != StatusCode.DeadlineExceeded)
        {
            Volatile.Write(ref _timeoutsInARow, 0);
        }
        else if (sentAt <= Volatile.Read(ref _lastSuccessEnded))
        {
            // Another call was answered while this one waited: a service too busy for some calls (a connection storm's
            // queued connections time out together), not one that stopped answering. Counted, but not towards a hang.
        }
        else if (options.MaxConsecutiveTimeouts > 0 && Interlocked.Increment(ref _timeoutsInARow) == options.MaxConsecutiveTimeouts && !Stopped)
        {
            GiveUp($"The service stopped answering: {options.MaxConsecutiveTimeouts} calls in a row to {service} missed their " +
                $"{options.CallTimeout.TotalSeconds:0.###} s deadline.");
        }
    }

    /// <summary>A stream's messages that will never be answered no longer count as in flight.</summary>
    public void NothingInFlight() => Volatile.Write(ref _pending, 0);

    /// <summary>Marks a call's success now, the proof the service answers; returns the timestamp.</summary>
    public long Succeeded()
    {
        var now = Stopwatch.GetTimestamp();
        LatencyRecorder.Extend(ref _lastSuccessEnded, now, lower: false);
        return now;
    }

    /// <summary>
    /// A failed call, already counted under its status. One that failed to connect before any call of the run succeeded
    /// stops the phase: nothing shows the service can be reached.
    /// </summary>
    /// <param name="sentAt">When the call went out: a success that ends after it shows the service alive while it failed.</param>
    public void Failed(CallFailure failure, long sentAt)
    {
        // A failed TLS handshake (grpc-dotnet counts it Internal) fails to connect as surely as a refused connection.
        if (failure.Status != StatusCode.Unavailable && !failure.Handshake)
        {
            return;
        }

        var now = Stopwatch.GetTimestamp();
        bool neverAnswered;
        lock (_connectGate)
        {
            _connectFailures++;
            _firstConnectFailure ??= failure.Described;
            _lastConnectFailureSent = Math.Max(_lastConnectFailureSent, sentAt);
            // The streak of failures since the latest success, for the sentence of a service that went away.
            var lastSuccess = Volatile.Read(ref _lastSuccessEnded);
            if (_failingStreak == 0 || lastSuccess != _failingAfter)
            {
                (_failingAfter, _failingSince, _failingStreak) = (lastSuccess, now, 0);
                Volatile.Write(ref _failingRefusedOnly, true);
            }

            _failingStreak++;
            if (!failure.Refused)
            {
                Volatile.Write(ref _failingRefusedOnly, false);
            }

            neverAnswered = lastSuccess == 0 && !answeredBefore;
        }

        if (neverAnswered)
        {
            StopUnreachable(null, now);
        }
    }

    /// <summary>
    /// Called every tick: gives up when calls are in flight and none has ended, answered or failed, for the silence window
    /// (a stopped or hung service answers nothing, and each call would otherwise wait out its whole deadline), and when
    /// calls keep failing to connect with none succeeding for the window that fits how they fail.
    /// </summary>
    public void Check()
    {
        var pending = Volatile.Read(ref _pending);
        if (pending > 0 && !Stopped && Stopwatch.GetElapsedTime(Volatile.Read(ref _lastEnded)) >= silenceWindow)
        {
            GiveUp($"The service stopped answering: no answer from {service} for {silenceWindow.TotalSeconds:0.###} s while {pending} {InFlightNoun}.");
        }

        // Refused connections prove nothing listens; connections that time out or are reset may be a storm the service's
        // accept queue cannot take (its other calls go on), so those get a longer window before the service counts as gone.
        if (!Stopped && FailingToConnect() is { } since && Stopwatch.GetElapsedTime(Math.Max(Volatile.Read(ref _lastSuccessEnded), _start)) is var none)
        {
            var refusedOnly = Volatile.Read(ref _failingRefusedOnly);
            var window = refusedOnly ? silenceWindow : TimeSpan.FromTicks(Math.Max(silenceWindow.Ticks, options.ConnectFailureWindow.Ticks));
            if (none >= window)
            {
                StopUnreachable(
                    $"and none succeeded for {none.TotalSeconds:0.0##} s, past the {window.TotalSeconds:0.###} s window for " +
                    (refusedOnly ? "refused connections (the silence window)" : "connections that time out or are reset"),
                    since);
            }
        }
    }

    /// <summary>
    /// Called once the phase's calls have ended: calls that failed to connect after the last success, with none
    /// succeeding since, mean the service went away before the end; a completed run would hide that.
    /// </summary>
    public void CheckGoneAtEnd()
    {
        if (!Stopped && FailingToConnect() is { } since)
        {
            StopUnreachable($"and none succeeded again before the {PhaseWords} ended", since);
        }
    }

    public void GiveUp(string reason)
    {
        if (Interlocked.CompareExchange(ref _gaveUp, reason, null) is null)
        {
            stopping.Cancel();
        }
    }

    /// <summary>When the calls that failed to connect after the latest success began failing, if one went out after it; else null.</summary>
    private long? FailingToConnect()
    {
        lock (_connectGate)
        {
            return _connectFailures > 0 && _lastConnectFailureSent > Volatile.Read(ref _lastSuccessEnded) ? _failingSince : null;
        }
    }

    /// <summary>Stops the phase as unreachable, saying how many calls succeeded and how many failed to connect, since when.</summary>
    /// <param name="noneSince">How the calls failed after the last success ("and none succeeded for 5 s"); null when none ever succeeded.</param>
    private void StopUnreachable(string? noneSince, long since)
    {
        string reason;
        lock (_connectGate)
        {
            var lastSuccess = Volatile.Read(ref _lastSuccessEnded);
            reason = noneSince is null || lastSuccess == 0
                ? $"The service is unreachable: {_firstConnectFailure}. No call had succeeded {(answeredBefore ? $"in the {PhaseWords}" : "yet")}; " +
                    $"{Calls(_connectFailures)} failed to connect, the first {Seconds(since)} s into the {PhaseWords}."
                : $"The service is unreachable: {_firstConnectFailure}. {Calls(recorder.Succeeded)} had succeeded, the last {Seconds(lastSuccess)} s into the {PhaseWords}; " +
                    $"from {Seconds(_failingSince)} s on, {Calls(_failingStreak)} failed to connect {noneSince}.";
        }

        if (Interlocked.CompareExchange(ref _unreachable, reason, null) is null)
        {
            stopping.Cancel();
        }
    }

    private bool Stopped => stopping.IsCancellationRequested;

    private string PhaseWords => phase == RunPhase.Warmup ? "warm-up" : "run";

    private string Seconds(long timestamp) => Math.Max(0, Stopwatch.GetElapsedTime(_start, timestamp).TotalSeconds).ToString("0.###", CultureInfo.InvariantCulture);

    private static string Calls(long calls) => calls == 1 ? "1 call" : $"{calls.ToString("N0", CultureInfo.InvariantCulture)} calls";
}

/// <summary>Calls that failed to connect, the first one's detail, and when the last call of the phase succeeded (from its start).</summary>
internal sealed record ConnectFailures(long Calls, string Detail, TimeSpan? LastSuccess);
