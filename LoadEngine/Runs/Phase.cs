using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using System.Runtime.ExceptionServices;
using System.Threading.Channels;
using Grpc.Core;
using LoadEngine.Strategies;
using Performance;

namespace LoadEngine.Runs;

/// <summary>
/// One phase of a run (warm-up or measured) under one load model: which call comes next, when it is due, and what
/// happened to it. Failed calls are counted by status and the phase goes on, a call that failed to connect
/// (<see cref="StatusCode.Unavailable"/>) too while other calls show the service alive. It stops when the service is
/// unreachable (a call fails to connect before any has succeeded, or calls fail to connect and none succeeds for the
/// silence window or until the end) or hung (no call ends within the silence window while some are in flight, or too
/// many miss their deadline in a row), as no later call can succeed.
/// </summary>
internal sealed class Phase : IDisposable
{
    private readonly RunPlan _plan;
    private readonly RunPhase _name;
    private readonly int? _count;
    private readonly long? _durationTicks;
    private readonly EngineOptions _options;
    private readonly CancellationTokenSource _stop;
    private readonly string _clientName;
    private readonly int _maxInFlight;
    private readonly string _service;
    private readonly TimeSpan _silenceWindow;
    private readonly long _start = Stopwatch.GetTimestamp();
    private readonly TaskCompletionSource _drained = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly object _admission = new();
    private readonly Queue<DueCall> _waiting = new();
    private readonly object _connectGate = new();
    private readonly bool _answeredBefore;
    private long _lastTick;
    private long _next = -1;
    private int _inFlight;
    private bool _scheduleEnded;
    private long _lastSuccessEnded;
    private long _lastConnectFailureSent;
    private long _connectFailures;
    private RpcException? _firstConnectFailure;
    private long _failingAfter;
    private long _failingSince;
    private long _failingStreak;
    private bool _failingRefusedOnly;
    private string? _unreachable;
    private string? _gaveUp;
    private int _pending;
    private long _lastEnded;
    private int _timeoutsInARow;
    private string _inFlightNoun = "call(s) were in flight";
    private ExceptionDispatchInfo? _crash;

    /// <param name="service">The service's address as a sentence names it.</param>
    /// <param name="silenceWindow">How long calls may be in flight with none ending before the service counts as hung.</param>
    /// <param name="answeredBefore">Whether a call of an earlier phase of the run succeeded: then a call that fails to connect first is no proof that none can.</param>
    public Phase(
        RunPlan plan, RunPhase name, RunRecorder recorder, int? count, double? durationSeconds, EngineOptions options, string service, TimeSpan silenceWindow,
        CancellationToken cancellation, bool answeredBefore = false)
    {
        _answeredBefore = answeredBefore;
        _plan = plan;
        _name = name;
        Recorder = recorder;
        _count = count;
        _durationTicks = durationSeconds is { } seconds ? (long)(seconds * Stopwatch.Frequency) : null;
        _options = options;
        _stop = CancellationTokenSource.CreateLinkedTokenSource(cancellation);
        _clientName = name == RunPhase.Warmup ? plan.Strategy + " warm-up #" : plan.Strategy + " #";
        // Under an arrival rate the plan's concurrency is the most in flight, within the engine's own limit.
        _maxInFlight = Math.Clamp(plan.IsOpen ? plan.Concurrency : options.MaxInFlight, 1, options.MaxInFlight);
        _lastTick = _start;
        _lastEnded = _start;
        _service = service;
        _silenceWindow = silenceWindow;
        Schedule = plan.Load switch
        {
            LoadKind.Open => ArrivalSchedule.Constant(plan.Rate ?? 0, durationSeconds ?? (count ?? 0) / (plan.Rate ?? 1)),
            LoadKind.Ramping => ArrivalSchedule.Ramping(plan.Rate ?? 0, plan.Stages ?? [], durationSeconds),
            _ => null,
        };
    }

    public RunRecorder Recorder { get; }

    /// <summary>Arrival-rate loads: when each call is due.</summary>
    public ArrivalSchedule? Schedule { get; }

    /// <summary>Arrival-rate loads: how long the schedule ran until its last call was due (or the phase stopped).</summary>
    public TimeSpan Sending { get; private set; }

    public TimeSpan Elapsed => Stopwatch.GetElapsedTime(_start);

    public bool Stopped => _stop.IsCancellationRequested;

    /// <summary>Why the phase stopped on a service no call could connect to (the sentence says what was seen); null if it did not.</summary>
    public string? Unreachable => Volatile.Read(ref _unreachable);

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
                    : new ConnectFailures(_connectFailures, Describe(_firstConnectFailure), lastSuccess == 0 ? null : Stopwatch.GetElapsedTime(_start, lastSuccess));
            }
        }
    }

    /// <summary>Why the phase gave up on a service that stopped answering, or a stream that lost messages; null if it did not.</summary>
    public string? GaveUp => Volatile.Read(ref _gaveUp);

    /// <summary>
    /// Called every tick: gives up when calls are in flight and none has ended, answered or failed, for the silence window
    /// (a stopped or hung service answers nothing, and each call would otherwise wait out its whole deadline).
    /// </summary>
    public void CheckSilence()
    {
        var pending = Volatile.Read(ref _pending);
        if (pending > 0 && !Stopped && Stopwatch.GetElapsedTime(Volatile.Read(ref _lastEnded)) >= _silenceWindow)
        {
            GiveUp($"The service stopped answering: no answer from {_service} for {_silenceWindow.TotalSeconds:0.###} s while {pending} {_inFlightNoun}.");
        }

        // Calls keep failing to connect and none has succeeded for the window: the service went away mid-run. Refused
        // connections prove nothing listens; connections that time out or are reset may be a storm the service's accept
        // queue cannot take (its other calls go on), so those get a longer window before the service counts as gone.
        if (!Stopped && FailingToConnect() is { } since && Stopwatch.GetElapsedTime(Math.Max(Volatile.Read(ref _lastSuccessEnded), _start)) is var none)
        {
            var refusedOnly = Volatile.Read(ref _failingRefusedOnly);
            var window = refusedOnly ? _silenceWindow : TimeSpan.FromTicks(Math.Max(_silenceWindow.Ticks, _options.ConnectFailureWindow.Ticks));
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

    /// <summary>Live figures for one tick: totals so far, and the rate and latency since the last tick.</summary>
    public ProgressSnapshot Snapshot(TickFigures tick, TimeSpan elapsed)
    {
        var now = Stopwatch.GetTimestamp();
        var seconds = Stopwatch.GetElapsedTime(Interlocked.Exchange(ref _lastTick, now), now).TotalSeconds;
        var arrivalRate = Recorder.IsArrivalRate;
        return new ProgressSnapshot(
            0,
            _name,
            _count ?? 0,
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

    /// <summary>Sequential (one worker) and closed loads: each worker starts its next call when its last one ended.</summary>
    /// <param name="calls">A unary or a workload strategy.</param>
    public Task RunClosedAsync(IClientStrategy calls, int workers)
    {
        var tasks = new Task[Math.Max(1, Math.Min(workers, _count ?? workers))];
        for (var worker = 0; worker < tasks.Length; worker++)
        {
            tasks[worker] = WorkAsync();
        }

        return Task.WhenAll(tasks);

        async Task WorkAsync()
        {
            while (TryTakeNext(out var index))
            {
                await CallAsync(calls, index, dueAt: 0);
            }
        }
    }

    /// <summary>
    /// Open and ramping loads: calls start when they are due, whether or not earlier ones have answered. A call due while
    /// the client already has its maximum in flight waits for one to end and starts late (counted late; its latency still
    /// runs from when it was due); one that finds that many already waiting, or is still waiting when the schedule ends,
    /// is dropped (counted, never sent).
    /// </summary>
    /// <param name="calls">A unary or a workload strategy.</param>
    public async Task RunOpenAsync(IClientStrategy calls)
    {
        try
        {
            await ScheduleAsync((index, dueAt) =>
            {
                var call = new DueCall(this, calls, index, dueAt);
                lock (_admission)
                {
                    if (_inFlight >= _maxInFlight)
                    {
                        if (_waiting.Count < _maxInFlight)
                        {
                            _waiting.Enqueue(call);
                        }
                        else
                        {
                            Recorder.RecordDropped();
                        }

                        return;
                    }

                    _inFlight++;
                }

                Start(call);
            });
        }
        finally
        {
            lock (_admission)
            {
                // Calls still waiting when the schedule ends could not be started within the run: dropped.
                while (_waiting.TryDequeue(out _))
                {
                    Recorder.RecordDropped();
                }

                _scheduleEnded = true;
                if (_inFlight == 0)
                {
                    _drained.TrySetResult();
                }
            }
        }

        await _drained.Task;
    }

    /// <summary>
    /// Messages on one bidirectional stream, answered in order. At most <paramref name="window"/> may be unanswered at
    /// once (1 = ping-pong); under an arrival rate, each is written when it is due.
    /// </summary>
    public async Task RunStreamAsync(IStreamingStrategy streaming, int window)
    {
        _inFlightNoun = "stream message(s) were unanswered";
        var outstanding = new ConcurrentQueue<SentMessage>();
        var unanswered = 0;
        long answered = 0;
        using var slots = new SemaphoreSlim(Math.Max(1, window));
        // No deadline for the whole stream (its length depends on the plan); instead it may not stay silent longer than
        // one call's timeout while any message waits for its answer.
        using var silence = CancellationTokenSource.CreateLinkedTokenSource(_stop.Token);
        using var call = streaming.OpenStream(new CallOptions(cancellationToken: silence.Token));
        var reading = ReadAsync();
        RpcException? ended = null;
        try
        {
            if (Schedule is null)
            {
                while (!reading.IsCompleted && TryTakeNext(out var index))
                {
                    await slots.WaitAsync(_stop.Token);
                    var now = Stopwatch.GetTimestamp();
                    await WriteAsync(new SentMessage(index, now, now));
                }
            }
            else
            {
                await WriteWhenDueAsync();
            }

            await call.RequestStream.CompleteAsync();
            await reading;
            if (!Stopped && (!outstanding.IsEmpty || (_count is { } count && answered < count)))
            {
                ended = new RpcException(new Status(StatusCode.Internal, $"The stream ended after {answered} answers, with {outstanding.Count} messages unanswered."));
            }
        }
        catch (RpcException error)
        {
            ended = error;
        }
        catch (OperationCanceledException) when (silence.IsCancellationRequested)
        {
            ended = new RpcException(new Status(StatusCode.Cancelled, "The run was stopped."));
        }

        if (ended is not null)
        {
            // Abort the stream so the reader ends too; only then is the count of answers final.
            call.Dispose();
            await Quietly(reading);
            if (silence.IsCancellationRequested && !_stop.IsCancellationRequested)
            {
                ended = new RpcException(new Status(StatusCode.DeadlineExceeded, $"The stream stayed silent longer than the call timeout ({_options.CallTimeout.TotalSeconds:0.###} s)."));
            }

            // Every message that got no answer is a failed call, under the status that ended the stream: with a count,
            // those never sent too, as the plan asked for them.
            var unansweredCalls = _count is { } planned ? planned - Interlocked.Read(ref answered) : outstanding.Count;
            var endedAt = Stopwatch.GetTimestamp();
            for (var failed = 0L; failed < unansweredCalls; failed++)
            {
                if (!Fail(ended, endedAt))
                {
                    break;
                }
            }

            // A stream that lost messages did not do what the plan asked: never a completed run.
            if (!Stopped && unansweredCalls > 0)
            {
                GiveUp($"The stream ended with {unansweredCalls} of {_count?.ToString(CultureInfo.InvariantCulture) ?? "its"} messages unanswered: {ended.StatusCode} ({ended.Status.Detail}).");
            }
        }

        Volatile.Write(ref _pending, 0);

        async Task WriteAsync(SentMessage message)
        {
            outstanding.Enqueue(message);
            CallStarted();
            if (Interlocked.Increment(ref unanswered) == 1)
            {
                silence.CancelAfter(_options.CallTimeout);
            }

            await call.RequestStream.WriteAsync(NewRequest(message.Index));
        }

        // Each message is written when it is due, or as soon as the window has room (late); a due message that finds as
        // many already waiting, or still waits when the schedule ends, is dropped.
        async Task WriteWhenDueAsync()
        {
            var due = Channel.CreateBounded<(long Index, long DueAt)>(new BoundedChannelOptions(_maxInFlight) { SingleReader = true, SingleWriter = true });
            var scheduleEnded = false;
            var scheduling = ScheduleAsync((index, dueAt) =>
            {
                if (!due.Writer.TryWrite((index, dueAt)))
                {
                    Recorder.RecordDropped();
                }
            });
            _ = scheduling.ContinueWith(_ => { Volatile.Write(ref scheduleEnded, true); due.Writer.TryComplete(); }, TaskScheduler.Default);
            await foreach (var (index, dueAt) in due.Reader.ReadAllAsync(_stop.Token))
            {
                var waited = !slots.Wait(0);
                if (waited)
                {
                    await slots.WaitAsync(_stop.Token);
                }

                if (reading.IsCompleted || (waited && Volatile.Read(ref scheduleEnded)))
                {
                    slots.Release();
                    Recorder.RecordDropped();
                    continue;
                }

                var sentAt = Stopwatch.GetTimestamp();
                Recorder.RecordSent(dueAt, sentAt);
                await WriteAsync(new SentMessage(index, dueAt, sentAt));
            }

            await scheduling;
        }

        async Task ReadAsync()
        {
            while (await call.ResponseStream.MoveNext(silence.Token))
            {
                if (!outstanding.TryDequeue(out var sent))
                {
                    throw new RpcException(new Status(StatusCode.Internal, "The service sent an answer to a message that was never written."));
                }

                Recorder.RecordSuccess(sent.Index, sent.DueAt, sent.SentAt, Succeeded(), call.ResponseStream.Current);
                Interlocked.Increment(ref answered);
                CallEnded(StatusCode.OK);
                // Silence only counts while a message waits for its answer.
                silence.CancelAfter(Interlocked.Decrement(ref unanswered) > 0 ? _options.CallTimeout : Timeout.InfiniteTimeSpan);
                slots.Release();
            }
        }
    }

    /// <summary>Re-throws, once the phase has ended, anything other than a gRPC failure that a call threw.</summary>
    public void ThrowIfCrashed() => _crash?.Throw();

    public void Dispose() => _stop.Dispose();

    // Started from the thread pool, so the scheduler's thread only keeps time.
    private static void Start(DueCall call) =>
        ThreadPool.UnsafeQueueUserWorkItem(static due => _ = due.Phase.FireAsync(due), call, preferLocal: false);

    private async Task FireAsync(DueCall due)
    {
        try
        {
            await CallAsync(due.Calls, due.Index, due.DueAt);
        }
        catch (Exception crash)
        {
            Interlocked.CompareExchange(ref _crash, ExceptionDispatchInfo.Capture(crash), null);
            await _stop.CancelAsync();
        }

        // The call's slot goes to the longest-waiting due call, if any.
        DueCall next;
        lock (_admission)
        {
            if (!_waiting.TryDequeue(out next))
            {
                if (--_inFlight == 0 && _scheduleEnded)
                {
                    _drained.TrySetResult();
                }

                return;
            }
        }

        Start(next);
    }

    /// <summary>
    /// One unary call, or one workload call, timed from when it was due (<paramref name="dueAt"/>, 0 for a closed load:
    /// when it went out). A workload call that makes many service calls gets as many call timeouts.
    /// </summary>
    private async Task CallAsync(IClientStrategy calls, long index, long dueAt)
    {
        var unary = calls as IUnaryStrategy;
        var workload = calls as IWorkloadStrategy;
        var request = unary is null ? null : NewRequest(index);
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
        CallStarted();
        try
        {
            var options = new CallOptions(deadline: DateTime.UtcNow + _options.CallTimeout * (workload?.ServiceCallsPerCall ?? 1), cancellationToken: _stop.Token);
            if (workload is not null)
            {
                await workload.CallAsync(index, options);
                Recorder.RecordSuccess(index, dueAt, sentAt, Succeeded());
            }
            else
            {
                var response = await unary!.CallAsync(request!, options);
                Recorder.RecordSuccess(index, dueAt, sentAt, Succeeded(), response);
            }
        }
        catch (RpcException error)
        {
            ended = error.StatusCode;
            Fail(error, sentAt);
        }
        finally
        {
            CallEnded(ended, sentAt);
        }
    }

    private void CallStarted()
    {
        // Silence is counted only while something is in flight: from the first call after none was.
        if (Interlocked.Increment(ref _pending) == 1)
        {
            Volatile.Write(ref _lastEnded, Stopwatch.GetTimestamp());
        }
    }

    /// <param name="sentAt">When the call went out (0 for a stream message's answer).</param>
    private void CallEnded(StatusCode status, long sentAt = 0)
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
        else if (_options.MaxConsecutiveTimeouts > 0 && Interlocked.Increment(ref _timeoutsInARow) == _options.MaxConsecutiveTimeouts && !Stopped)
        {
            GiveUp($"The service stopped answering: {_options.MaxConsecutiveTimeouts} calls in a row to {_service} missed their " +
                $"{_options.CallTimeout.TotalSeconds:0.###} s deadline.");
        }
    }

    private void GiveUp(string reason)
    {
        if (Interlocked.CompareExchange(ref _gaveUp, reason, null) is null)
        {
            _stop.Cancel();
        }
    }

    /// <summary>
    /// Counts a failed call under its status. A call that failed to connect before any call of the run succeeded stops
    /// the phase: nothing shows the service can be reached. False when the phase is stopping.
    /// </summary>
    /// <param name="sentAt">When the call went out: a success that ends after it shows the service alive while it failed.</param>
    private bool Fail(RpcException error, long sentAt)
    {
        // Calls cut short because the phase is stopping are not the service's failures.
        if (error.StatusCode == StatusCode.Cancelled && Stopped)
        {
            return false;
        }

        Recorder.RecordFailure(error.StatusCode);
        if (error.StatusCode != StatusCode.Unavailable)
        {
            return true;
        }

        var now = Stopwatch.GetTimestamp();
        bool neverAnswered;
        lock (_connectGate)
        {
            _connectFailures++;
            _firstConnectFailure ??= error;
            _lastConnectFailureSent = Math.Max(_lastConnectFailureSent, sentAt);
            // The streak of failures since the latest success, for the sentence of a service that went away.
            var lastSuccess = Volatile.Read(ref _lastSuccessEnded);
            if (_failingStreak == 0 || lastSuccess != _failingAfter)
            {
                (_failingAfter, _failingSince, _failingStreak) = (lastSuccess, now, 0);
                Volatile.Write(ref _failingRefusedOnly, true);
            }

            _failingStreak++;
            if (!ConnectErrors.IsRefused(error))
            {
                Volatile.Write(ref _failingRefusedOnly, false);
            }
            neverAnswered = lastSuccess == 0 && !_answeredBefore;
        }

        if (neverAnswered)
        {
            StopUnreachable(null, now);
        }

        return true;
    }

    /// <summary>Marks a call's success now, the proof the service answers; returns the timestamp.</summary>
    private long Succeeded()
    {
        var now = Stopwatch.GetTimestamp();
        var last = Volatile.Read(ref _lastSuccessEnded);
        while (now > last)
        {
            var seen = Interlocked.CompareExchange(ref _lastSuccessEnded, now, last);
            if (seen == last)
            {
                break;
            }

            last = seen;
        }

        return now;
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
            var detail = Describe(_firstConnectFailure!);
            var lastSuccess = Volatile.Read(ref _lastSuccessEnded);
            reason = noneSince is null || lastSuccess == 0
                ? $"The service is unreachable: {detail}. No call had succeeded {(_answeredBefore ? $"in the {PhaseWords}" : "yet")}; " +
                    $"{Calls(_connectFailures)} failed to connect, the first {Seconds(since)} s into the {PhaseWords}."
                : $"The service is unreachable: {detail}. {Calls(Recorder.Succeeded)} had succeeded, the last {Seconds(lastSuccess)} s into the {PhaseWords}; " +
                    $"from {Seconds(_failingSince)} s on, {Calls(_failingStreak)} failed to connect {noneSince}.";
        }

        if (Interlocked.CompareExchange(ref _unreachable, reason, null) is null)
        {
            _stop.Cancel();
        }
    }

    private string PhaseWords => _name == RunPhase.Warmup ? "warm-up" : "run";

    private string Seconds(long timestamp) => Math.Max(0, Stopwatch.GetElapsedTime(_start, timestamp).TotalSeconds).ToString("0.###", CultureInfo.InvariantCulture);

    private static string Calls(long calls) => calls == 1 ? "1 call" : $"{calls.ToString("N0", CultureInfo.InvariantCulture)} calls";

    /// <summary>
    /// A failed connection's status detail, and the client's own exception beneath it when the detail does not say it:
    /// "Error connecting to subchannel" comes with "Connection refused" or "A connection could not be established within
    /// the configured ConnectTimeout" (whose own inner exception only says the operation was cancelled).
    /// </summary>
    internal static string Describe(RpcException error)
    {
        var detail = error.Status.Detail.TrimEnd('.');
        var because = error.Status.DebugException?.Message.TrimEnd('.');
        return string.IsNullOrEmpty(because) || detail.Contains(because, StringComparison.Ordinal) ? detail : $"{detail} ({because})";
    }

    private bool TryTakeNext(out long index)
    {
        index = -1;
        if (Stopped || (_durationTicks is { } duration && Stopwatch.GetTimestamp() - _start >= duration))
        {
            return false;
        }

        index = Interlocked.Increment(ref _next);
        return _count is not { } count || index < count;
    }

    private PerformanceStatusRequest NewRequest(long index) => new()
    {
        ClientName = _clientName + (index + 1),
        DelayMs = _plan.DelayMs,
        PayloadBytes = _plan.PayloadBytes,
    };

    /// <summary>
    /// Calls <paramref name="due"/> for each call as it falls due, on a thread of its own that only keeps time: it sleeps
    /// until a millisecond before, then yields until the moment.
    /// </summary>
    private Task ScheduleAsync(Action<long, long> due)
    {
        var schedule = Schedule!;
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var thread = new Thread(() =>
        {
            try
            {
                for (var index = 0L; _count is not { } count || index < count; index++)
                {
                    if (schedule.DueAt(index) is not { } seconds || !WaitUntil(_start + (long)(seconds * Stopwatch.Frequency)))
                    {
                        break;
                    }

                    Recorder.RecordDue();
                    due(index, _start + (long)(seconds * Stopwatch.Frequency));
                }

                Sending = Elapsed;
                done.TrySetResult();
            }
            catch (Exception crash)
            {
                done.TrySetException(crash);
            }
        })
        {
            IsBackground = true,
            Name = "LoadEngine arrival schedule",
        };
        thread.Start();
        return done.Task;
    }

    private bool WaitUntil(long timestamp)
    {
        while (!Stopped)
        {
            var remaining = Stopwatch.GetElapsedTime(Stopwatch.GetTimestamp(), timestamp);
            if (remaining <= TimeSpan.Zero)
            {
                return true;
            }

            if (remaining > TimeSpan.FromMilliseconds(1.5))
            {
                _stop.Token.WaitHandle.WaitOne(remaining - TimeSpan.FromMilliseconds(1));
            }
            else
            {
                Thread.Yield();
            }
        }

        return false;
    }

    private static async Task Quietly(Task reading)
    {
        try
        {
            await reading;
        }
        catch (Exception ended) when (ended is RpcException or OperationCanceledException)
        {
        }
    }

    private readonly record struct SentMessage(long Index, long DueAt, long SentAt);

    private readonly record struct DueCall(Phase Phase, IClientStrategy Calls, long Index, long DueAt);
}

/// <summary>
/// Calls of a phase that failed to connect (<see cref="StatusCode.Unavailable"/>): how many, the first one's status in
/// words, and when the last call that succeeded ended, from the phase's start.
/// </summary>
internal sealed record ConnectFailures(long Calls, string Detail, TimeSpan? LastSuccess);

/// <summary>What a call that failed to connect says about the service.</summary>
public static class ConnectErrors
{
    /// <summary>Whether the connection was refused: nothing listens at the address (a closed port answers at once).</summary>
    public static bool IsRefused(RpcException error)
    {
        for (Exception? cause = error.Status.DebugException; cause is not null; cause = cause.InnerException)
        {
            if (cause is System.Net.Sockets.SocketException { SocketErrorCode: System.Net.Sockets.SocketError.ConnectionRefused })
            {
                return true;
            }
        }

        return false;
    }
}
