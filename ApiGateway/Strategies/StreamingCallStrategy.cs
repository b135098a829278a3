using System.Diagnostics;
using ApiGateway.Runs;
using Grpc.Core;
using Performance;

namespace ApiGateway.Strategies;

/// <summary>One bidirectional stream carries every request and every response; writing and reading overlap.</summary>
/// <param name="client">The wrapper's client in the app (see AddStrategies): the stream runs on the long-lived channel.</param>
public sealed class StreamingCallStrategy(Monitor.MonitorClient client) : IClientStrategy, IDescribedStrategy
{
    public static StrategyInfo Info { get; } = new(
        "streaming-call",
        "Performance",
        "one bidirectional stream carrying count requests and count responses.",
        "For many messages, one long-lived stream beats many unary calls: no per-call headers, no new HTTP/2 stream per message.",
        "https://learn.microsoft.com/aspnet/core/grpc/performance#streaming");

    public string DescribeMeasurement() =>
        "One bidirectional stream on the long-lived channel. Each request is written with WriteAsync, which Grpc.Net.Client flushes at once " +
        "(it ignores WriteOptions.BufferHint), while the responses are read as they come; the service writes each answer as soon as it is made. " +
        "A message's latency runs from its write to its answer, so it includes the wait behind messages written before it.";

    public async Task ExecuteAsync(RunContext run)
    {
        // Responses come back in order, so message i's latency is from its write to the i-th answer.
        var sentAt = new long[run.Count];
        var received = 0;
        // No deadline for the whole stream (its length depends on count); instead it may not stay silent longer than one call's timeout.
        using var silence = CancellationTokenSource.CreateLinkedTokenSource(run.Cancellation);
        silence.CancelAfter(run.CallTimeout);
        using var call = client.GetManyPerformanceStats(new CallOptions(cancellationToken: silence.Token));
        Task? reading = null;
        try
        {
            reading = ReadAllAsync();
            for (var index = 0; index < run.Count && !reading.IsCompleted; index++)
            {
                // Pipelined: the next request goes out without waiting for the previous answer.
                Volatile.Write(ref sentAt[index], Stopwatch.GetTimestamp());
                await call.RequestStream.WriteAsync(run.CreateRequest(index));
            }

            await call.RequestStream.CompleteAsync();
            await reading;
            if (received < run.Count)
            {
                FailUnanswered(new RpcException(new Status(StatusCode.Internal, $"The stream ended after {received} of {run.Count} responses.")));
            }
        }
        catch (RpcException error)
        {
            await StopReadingAsync();
            FailUnanswered(IsSilenceTimeout() ? Silent() : error);
        }
        catch (OperationCanceledException) when (silence.IsCancellationRequested)
        {
            await StopReadingAsync();
            FailUnanswered(IsSilenceTimeout() ? Silent() : new RpcException(new Status(StatusCode.Cancelled, "The run was stopped.")));
        }

        // Abort the stream so the reader ends too; only then is the count of answers final.
        async Task StopReadingAsync()
        {
            call.Dispose();
            if (reading is not null)
            {
                try
                {
                    await reading;
                }
                catch (Exception ended) when (ended is RpcException or OperationCanceledException)
                {
                }
            }
        }

        async Task ReadAllAsync()
        {
            while (await call.ResponseStream.MoveNext(silence.Token))
            {
                if (received == run.Count)
                {
                    throw new RpcException(new Status(StatusCode.Internal, $"The service sent more than the {run.Count} responses asked for."));
                }

                run.Recorder.RecordSuccess(received, Volatile.Read(ref sentAt[received]), call.ResponseStream.Current);
                received++;
                silence.CancelAfter(run.CallTimeout);
            }
        }

        // Every message that got no answer is a failed call, under the status that ended the stream.
        void FailUnanswered(RpcException error)
        {
            for (var index = received; index < run.Count && !(error.StatusCode == StatusCode.Cancelled && run.Stopped); index++)
            {
                run.Fail(error);
            }
        }

        bool IsSilenceTimeout() => silence.IsCancellationRequested && !run.Cancellation.IsCancellationRequested;

        RpcException Silent() =>
            new(new Status(StatusCode.DeadlineExceeded, $"The stream stayed silent longer than the call timeout ({run.CallTimeout.TotalSeconds:0.###} s)."));
    }
}
