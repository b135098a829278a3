using System.Buffers;
using Google.Protobuf;
using Grpc.Core;
using Performance;
using PerformanceService.Metrics;

namespace PerformanceService.Services;

/// <summary>Answers with the latest sampled figures and two random byte fields: one wrapped, one copied (lesson 5).</summary>
public sealed class PerformanceMonitor(ProcessSampler sampler, AnswerBudget? budget = null) : Monitor.MonitorBase
{
    public const int DefaultPayloadBytes = 100;
    public const int MaxPayloadBytes = 1024 * 1024;
    public const int MaxDelayMilliseconds = 60_000;
    private const int StackPayloadLimit = 1024;

    public override Task<PerformanceStatusResponse> GetPerformance(PerformanceStatusRequest request, ServerCallContext context)
    {
        Validate(request);
        return request.DelayMs > 0
            ? AnswerLaterAsync(request, context)
            : Task.FromResult(CreateUnaryResponse(request, context));
    }

    /// <summary>One answer per request, in order, each written (and so flushed) as soon as it is made.</summary>
    public override async Task GetManyPerformanceStats(
        IAsyncStreamReader<PerformanceStatusRequest> requestStream,
        IServerStreamWriter<PerformanceStatusResponse> responseStream,
        ServerCallContext context)
    {
        await foreach (var request in requestStream.ReadAllAsync(context.CancellationToken))
        {
            Validate(request);
            if (request.DelayMs > 0)
            {
                await Task.Delay(request.DelayMs, context.CancellationToken);
            }

            // The call's token, so a write after the client left ends as a cancellation, not as "the request is complete".
            using var answer = TakeBudget(request);
            await responseStream.WriteAsync(CreateResponse(request, context), context.CancellationToken);
        }
    }

    private async Task<PerformanceStatusResponse> AnswerLaterAsync(PerformanceStatusRequest request, ServerCallContext context)
    {
        await Task.Delay(request.DelayMs, context.CancellationToken);
        return CreateUnaryResponse(request, context);
    }

    private static void Validate(PerformanceStatusRequest request)
    {
        if (request.DelayMs is < 0 or > MaxDelayMilliseconds)
        {
            throw new RpcException(new Status(StatusCode.InvalidArgument, $"delay_ms was {request.DelayMs}; it must be between 0 and {MaxDelayMilliseconds}."));
        }

        if (request.PayloadBytes is < 0 or > MaxPayloadBytes)
        {
            throw new RpcException(new Status(
                StatusCode.InvalidArgument, $"payload_bytes was {request.PayloadBytes}; it must be between 0 (meaning {DefaultPayloadBytes}) and {MaxPayloadBytes}."));
        }
    }

    // A unary answer is written after the handler returns: its bytes go back when the request ends.
    private PerformanceStatusResponse CreateUnaryResponse(PerformanceStatusRequest request, ServerCallContext context)
    {
        if (TakeBudget(request) is { } answer)
        {
            context.GetHttpContext().Response.RegisterForDispose(answer);
        }

        return CreateResponse(request, context);
    }

    private AnswerBudget.Lease? TakeBudget(PerformanceStatusRequest request) =>
        budget?.Take(2L * (request.PayloadBytes == 0 ? DefaultPayloadBytes : request.PayloadBytes));

    private PerformanceStatusResponse CreateResponse(PerformanceStatusRequest request, ServerCallContext context)
    {
        var size = request.PayloadBytes == 0 ? DefaultPayloadBytes : request.PayloadBytes;
        var snapshot = sampler.Latest;
        return new PerformanceStatusResponse
        {
            CpuPercentageUsage = snapshot.CpuPercentage,
            MemoryUsage = snapshot.MemoryMegabytes,
            ProcessesRunning = snapshot.Threads,
            // Read now, not from the last sample: a connection opened since then carries this very call.
            ActiveConnections = sampler.ActiveConnections,
            DataLoad1 = WrappedRandomBytes(size),
            DataLoad2 = CopiedRandomBytes(size),
            // Kestrel's id for the transport connection, so a client can count the connections it really used.
            ConnectionId = context.GetHttpContext().Connection.Id,
        };
    }

    // No copy: the message now shares this array, which is safe only because nothing touches it again.
    private static ByteString WrappedRandomBytes(int size)
    {
        var bytes = new byte[size];
        Random.Shared.NextBytes(bytes);
        return UnsafeByteOperations.UnsafeWrap(bytes);
    }

    private static ByteString CopiedRandomBytes(int size)
    {
        if (size <= StackPayloadLimit)
        {
            Span<byte> scratch = stackalloc byte[size];
            Random.Shared.NextBytes(scratch);
            return ByteString.CopyFrom(scratch);
        }

        var rented = ArrayPool<byte>.Shared.Rent(size);
        try
        {
            Random.Shared.NextBytes(rented.AsSpan(0, size));
            return ByteString.CopyFrom(rented, 0, size);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(rented);
        }
    }
}
