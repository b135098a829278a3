using System.Buffers;
using Google.Protobuf;
using GrpcDependencies.Grpc;
using Performance;
using PerformanceService.Metrics;

namespace PerformanceService.Services;

/// <summary>Answers with the latest sampled figures and two random byte fields: one wrapped, one copied (lesson 5).</summary>
public sealed class PerformanceMonitor(ProcessSampler sampler) : Monitor.MonitorBase
{
    public const int DefaultPayloadBytes = 100;
    public const int MaxPayloadBytes = 1024 * 1024;
    public const int MaxDelayMilliseconds = 60_000;
    private const int StackPayloadLimit = 1024;

    public override async Task<PerformanceStatusResponse> GetPerformance(PerformanceStatusRequest request, ServerCallContext context)
    {
        Validate(request);
        if (request.DelayMs > 0)
        {
            await Task.Delay(request.DelayMs, context.CancellationToken);
        }

        return CreateResponse(request, context);
    }

    public override async Task GetManyPerformanceStats(
        IAsyncStreamReader<PerformanceStatusRequest> requestStream,
        IServerStreamWriter<PerformanceStatusResponse> responseStream,
        ServerCallContext context)
    {
        var buffered = requestStream as IBufferedStreamReader;
        while (await requestStream.MoveNext(context.CancellationToken))
        {
            var request = requestStream.Current;
            Validate(request);
            if (request.DelayMs > 0)
            {
                // Answers held back for a batch must not wait out this request's delay.
                await responseStream.FlushAsync(context.CancellationToken);
                await Task.Delay(request.DelayMs, context.CancellationToken);
            }

            // When the next request is already here, answer it in the same flush: fewer, fuller HTTP/2 frames.
            responseStream.WriteOptions = buffered is { HasBufferedMessage: true } ? WriteOptions.Buffered : null;
            await responseStream.WriteAsync(CreateResponse(request, context), context.CancellationToken);
        }
    }

    private static void Validate(PerformanceStatusRequest request)
    {
        if (request.DelayMs is < 0 or > MaxDelayMilliseconds)
        {
            throw new RpcException(StatusCode.InvalidArgument, $"delay_ms was {request.DelayMs}; it must be between 0 and {MaxDelayMilliseconds}.");
        }

        if (request.PayloadBytes is < 0 or > MaxPayloadBytes)
        {
            throw new RpcException(StatusCode.InvalidArgument, $"payload_bytes was {request.PayloadBytes}; it must be between 0 (meaning {DefaultPayloadBytes}) and {MaxPayloadBytes}.");
        }
    }

    private PerformanceStatusResponse CreateResponse(PerformanceStatusRequest request, ServerCallContext context)
    {
        var size = request.PayloadBytes == 0 ? DefaultPayloadBytes : request.PayloadBytes;
        var snapshot = sampler.Latest;
        return new PerformanceStatusResponse
        {
            CpuPercentageUsage = snapshot.CpuPercentage,
            MemoryUsage = snapshot.MemoryMegabytes,
            ProcessesRunning = snapshot.Threads,
            ActiveConnections = snapshot.ActiveConnections,
            DataLoad1 = WrappedRandomBytes(size),
            DataLoad2 = CopiedRandomBytes(size),
            ConnectionId = context.ConnectionId,
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
