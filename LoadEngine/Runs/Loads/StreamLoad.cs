using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using System.Threading.Channels;
using Grpc.Core;
using LoadEngine.Calls;

namespace LoadEngine.Runs;

/// <summary>
/// Messages on one bidirectional stream, answered in order. At most <c>window</c> may be unanswered at once
/// (1 = ping-pong); under an arrival rate, each is written when it is due. A message's latency runs from its write (or
/// when it was due) to its answer. A stream that loses messages fails every unanswered one and never completes.
/// </summary>
internal static class StreamLoad
{
    public static async Task RunAsync(Phase phase, IStreamSource source, int window)
    {
        var detector = phase.Detector;
        var recorder = phase.Recorder;
        var callTimeout = phase.Options.CallTimeout;
        detector.InFlightNoun = "stream message(s) were unanswered";
        var outstanding = new ConcurrentQueue<SentMessage>();
        var unanswered = 0;
        long answered = 0;
        using var slots = new SemaphoreSlim(Math.Max(1, window));
        // No deadline for the whole stream (its length depends on the plan); instead it may not stay silent longer than
        // one call's timeout while any message waits for its answer.
        using var silence = CancellationTokenSource.CreateLinkedTokenSource(phase.Stopping);
        using var stream = source.Open(new StreamContext(phase.Name, new CallOptions(cancellationToken: silence.Token), recorder.Observations));
        var reading = ReadAsync();
        CallFailure? ended = null;
        try
        {
            if (phase.Schedule is null)
            {
                while (!reading.IsCompleted && phase.TryTakeNext(out var index))
                {
                    await slots.WaitAsync(phase.Stopping);
                    var now = Stopwatch.GetTimestamp();
                    await WriteAsync(new SentMessage(index, now, now));
                }
            }
            else
            {
                await WriteWhenDueAsync();
            }

            await stream.CompleteAsync();
            await reading;
            // A count not reached is a lost message only while the duration (when there is one) has not ended the phase first.
            if (!phase.Stopped && (!outstanding.IsEmpty || (phase.Count is { } count && answered < count && !phase.DurationOver)))
            {
                ended = new CallFailure(StatusCode.Internal, $"The stream ended after {answered} answers, with {outstanding.Count} messages unanswered.");
            }
        }
        catch (OperationCanceledException) when (silence.IsCancellationRequested)
        {
            ended = new CallFailure(StatusCode.Cancelled, "The run was stopped.");
        }
        catch (Exception error) when (CallFailure.From(error, phase.Text, phase.Cleartext) is { } failure)
        {
            ended = failure;
        }

        if (ended is { } failed)
        {
            // Abort the stream so the reader ends too; only then is the count of answers final.
            stream.Dispose();
            await Quietly(reading);
            if (silence.IsCancellationRequested && !phase.Stopped)
            {
                failed = new CallFailure(StatusCode.DeadlineExceeded, $"The stream stayed silent longer than the call timeout ({callTimeout.TotalSeconds:0.###} s).");
            }

            // Every message that got no answer is a failed call, under the status that ended the stream: with a count,
            // those never sent too, as the plan asked for them.
            var unansweredCalls = phase.Count is { } planned && !phase.DurationOver ? planned - Interlocked.Read(ref answered) : outstanding.Count;
            var endedAt = Stopwatch.GetTimestamp();
            for (var message = 0L; message < unansweredCalls; message++)
            {
                if (!phase.Fail(failed, endedAt))
                {
                    break;
                }
            }

            // A stream that lost messages did not do what the plan asked: never a completed run.
            if (!phase.Stopped && unansweredCalls > 0)
            {
                detector.GiveUp($"The stream ended with {unansweredCalls} of {phase.Count?.ToString(CultureInfo.InvariantCulture) ?? "its"} messages unanswered: {failed.Status} ({failed.Detail}).");
            }
        }

        detector.NothingInFlight();

        async Task WriteAsync(SentMessage message)
        {
            outstanding.Enqueue(message);
            detector.CallStarted();
            if (Interlocked.Increment(ref unanswered) == 1)
            {
                silence.CancelAfter(callTimeout);
            }

            await stream.WriteAsync(message.Index);
        }

        // Each message is written when it is due, or as soon as the window has room (late); a due message that finds as
        // many already waiting, or still waits when the schedule ends, is dropped.
        async Task WriteWhenDueAsync()
        {
            var due = Channel.CreateBounded<(long Index, long DueAt)>(new BoundedChannelOptions(phase.MaxInFlight) { SingleReader = true, SingleWriter = true });
            var scheduleEnded = false;
            var scheduling = ArrivalLoad.ScheduleAsync(phase, (index, dueAt) =>
            {
                if (!due.Writer.TryWrite((index, dueAt)))
                {
                    recorder.RecordDropped();
                }
            });
            _ = scheduling.ContinueWith(_ => { Volatile.Write(ref scheduleEnded, true); due.Writer.TryComplete(); }, TaskScheduler.Default);
            await foreach (var (index, dueAt) in due.Reader.ReadAllAsync(phase.Stopping))
            {
                var waited = !slots.Wait(0);
                if (waited)
                {
                    await slots.WaitAsync(phase.Stopping);
                }

                if (reading.IsCompleted || (waited && Volatile.Read(ref scheduleEnded)))
                {
                    slots.Release();
                    recorder.RecordDropped();
                    continue;
                }

                var sentAt = Stopwatch.GetTimestamp();
                recorder.RecordSent(dueAt, sentAt);
                await WriteAsync(new SentMessage(index, dueAt, sentAt));
            }

            await scheduling;
        }

        async Task ReadAsync()
        {
            while (await stream.MoveNextAsync(silence.Token))
            {
                if (!outstanding.TryDequeue(out var sent))
                {
                    throw new CallFailedException(StatusCode.Internal, "The service sent an answer to a message that was never written.");
                }

                var status = StatusCode.OK;
                try
                {
                    stream.CheckAnswer(sent.Index);
                    recorder.RecordSuccess(sent.Index, sent.DueAt, sent.SentAt, detector.Succeeded());
                    Interlocked.Increment(ref answered);
                }
                catch (CallFailedException wrong)
                {
                    // An answer that is not what its message asked for is that message's failure; the stream goes on.
                    status = wrong.Status;
                    phase.Fail(CallFailure.From(wrong, phase.Text, phase.Cleartext)!.Value, sent.SentAt);
                    Interlocked.Increment(ref answered);
                }

                detector.CallEnded(status);
                // Silence only counts while a message waits for its answer.
                silence.CancelAfter(Interlocked.Decrement(ref unanswered) > 0 ? callTimeout : Timeout.InfiniteTimeSpan);
                slots.Release();
            }
        }
    }

    private static async Task Quietly(Task reading)
    {
        try
        {
            await reading;
        }
        catch (Exception ended) when (ended is OperationCanceledException || CallFailure.Is(ended))
        {
        }
    }

    private readonly record struct SentMessage(long Index, long DueAt, long SentAt);
}
