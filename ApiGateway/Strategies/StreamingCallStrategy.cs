using ApiGateway.Clients;
using ApiGateway.Runs;
using GrpcDependencies.Grpc;
using Performance;

namespace ApiGateway.Strategies;

/// <summary>One bidirectional stream carries every request and every response; writing and reading overlap.</summary>
public sealed class StreamingCallStrategy(MonitorClientWrapper wrapper) : IClientStrategy, IDescribedStrategy
{
    public static StrategyInfo Info { get; } = new(
        "streaming-call",
        "Performance",
        "one bidirectional stream carrying count requests and count responses.",
        "For many messages, one long-lived stream beats many unary calls: no per-call headers, no new HTTP/2 stream per message.",
        "https://learn.microsoft.com/aspnet/core/grpc/performance#streaming");

    public string DescribeMeasurement() => "One bidirectional stream on the long-lived channel; requests are written while responses are read.";

    public async Task ExecuteAsync(RunContext run)
    {
        // No deadline for the whole stream (its length depends on count); instead it may not stay silent longer than one call's timeout.
        using var silence = CancellationTokenSource.CreateLinkedTokenSource(run.Cancellation);
        silence.CancelAfter(run.CallTimeout);
        using var call = wrapper.CreateClient().GetManyPerformanceStats(new CallOptions(CancellationToken: silence.Token));
        try
        {
            var reading = ReadAllAsync(run, call, silence);
            for (var index = 0; index < run.Count && !reading.IsCompleted; index++)
            {
                await call.RequestStream.WriteAsync(run.CreateRequest(index), silence.Token);
            }

            await call.RequestStream.CompleteAsync();
            var received = await reading;
            if (received != run.Count)
            {
                run.Fail(received, new RpcException(StatusCode.Internal, $"The stream ended after {received} of {run.Count} responses."));
            }
        }
        catch (RpcException error)
        {
            run.Fail(run.CompletedCalls, IsSilenceTimeout(silence, run) ? Silent(run) : error);
        }
        catch (OperationCanceledException) when (IsSilenceTimeout(silence, run))
        {
            run.Fail(run.CompletedCalls, Silent(run));
        }
    }

    private static async Task<int> ReadAllAsync(RunContext run, AsyncDuplexStreamingCall<PerformanceStatusRequest, PerformanceStatusResponse> call, CancellationTokenSource silence)
    {
        var received = 0;
        while (await call.ResponseStream.MoveNext(silence.Token))
        {
            if (received == run.Count)
            {
                throw new RpcException(StatusCode.Internal, $"The service sent more than the {run.Count} responses asked for.");
            }

            run.Record(received++, call.ResponseStream.Current);
            silence.CancelAfter(run.CallTimeout);
        }

        return received;
    }

    private static bool IsSilenceTimeout(CancellationTokenSource silence, RunContext run) =>
        silence.IsCancellationRequested && !run.Cancellation.IsCancellationRequested;

    private static RpcException Silent(RunContext run) =>
        new(StatusCode.DeadlineExceeded, $"The stream stayed silent longer than the call timeout ({run.CallTimeout.TotalSeconds:0.###} s).");
}
