using System.Diagnostics;
using LoadEngine.Calls;

namespace LoadEngine.Runs;

/// <summary>
/// Open and ramping loads: calls start when they are due, whether or not earlier ones have answered. A call due while
/// the client already has its maximum in flight waits for one to end and starts late (counted late; its latency still
/// runs from when it was due); one that finds that many already waiting, or is still waiting when the schedule ends,
/// is dropped (counted, never sent).
/// </summary>
internal sealed class ArrivalLoad(Phase phase, ICallSource calls)
{
    private readonly TaskCompletionSource _drained = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly object _admission = new();
    private readonly Queue<DueCall> _waiting = new();
    private int _inFlight;
    private bool _scheduleEnded;

    public async Task RunAsync()
    {
        try
        {
            await ScheduleAsync(phase, (index, dueAt) =>
            {
                var call = new DueCall(this, index, dueAt);
                lock (_admission)
                {
                    if (_inFlight >= phase.MaxInFlight)
                    {
                        if (_waiting.Count < phase.MaxInFlight)
                        {
                            _waiting.Enqueue(call);
                        }
                        else
                        {
                            phase.Recorder.RecordDropped();
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
                    phase.Recorder.RecordDropped();
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
    /// Calls <paramref name="due"/> for each call as it falls due, on a thread of its own that only keeps time: it sleeps
    /// until a millisecond before, then yields until the moment.
    /// </summary>
    public static Task ScheduleAsync(Phase phase, Action<long, long> due)
    {
        var schedule = phase.Schedule!;
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var thread = new Thread(() =>
        {
            try
            {
                for (var index = 0L; phase.Count is not { } count || index < count; index++)
                {
                    if (schedule.DueAt(index) is not { } seconds || !WaitUntil(phase, phase.Start + (long)(seconds * Stopwatch.Frequency)))
                    {
                        break;
                    }

                    phase.Recorder.RecordDue();
                    due(index, phase.Start + (long)(seconds * Stopwatch.Frequency));
                }

                phase.Sending = phase.Elapsed;
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

    private static bool WaitUntil(Phase phase, long timestamp)
    {
        while (!phase.Stopped)
        {
            var remaining = Stopwatch.GetElapsedTime(Stopwatch.GetTimestamp(), timestamp);
            if (remaining <= TimeSpan.Zero)
            {
                return true;
            }

            if (remaining > TimeSpan.FromMilliseconds(1.5))
            {
                phase.Stopping.WaitHandle.WaitOne(remaining - TimeSpan.FromMilliseconds(1));
            }
            else
            {
                Thread.Yield();
            }
        }

        return false;
    }

    // Started from the thread pool, so the scheduler's thread only keeps time.
    private static void Start(DueCall call) =>
        ThreadPool.UnsafeQueueUserWorkItem(static due => _ = due.Load.FireAsync(due), call, preferLocal: false);

    private async Task FireAsync(DueCall due)
    {
        try
        {
            await phase.CallAsync(calls, due.Index, due.DueAt);
        }
        catch (Exception crash)
        {
            phase.Crashed(crash);
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

    private readonly record struct DueCall(ArrivalLoad Load, long Index, long DueAt);
}
