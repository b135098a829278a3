using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Text;
using System.Text.Json;
using Google.Protobuf;
using Grpc.Core;
using LoadEngine.Clients;
using LoadEngine.Runs;
using LoadEngine.Targets;
using Microsoft.Extensions.Options;
using Performance;

namespace LoadEngine.Lessons;

/// <summary>
/// Lesson 5: bytes fields carry binary data compactly; wrapping an array without copying is faster, but unsafe if the array changes afterwards.
/// https://learn.microsoft.com/aspnet/core/grpc/performance#send-binary-payloads
/// As the experiment's probe it measures the arms: one real answer's size with bytes fields and as base64 text, and the cost of wrapping against copying.
/// </summary>
public sealed class PayloadLesson(ClientWrapper wrapper, ChannelFactory channels, IOptions<EngineOptions> options, TargetText text) : ILessonProbe
{
    public const string Name = "payload";
    public const string Lesson = "bytes fields carry binary data compactly; UnsafeWrap avoids a copy but shares the array, so it is safe only if nobody changes the array afterwards.";
    public const string Link = "https://learn.microsoft.com/aspnet/core/grpc/performance#send-binary-payloads";

    // Enough work per operation to time, bounded so the largest payload stays within tens of milliseconds.
    private const long BenchmarkBytesBudget = 64L * 1024 * 1024;
    private const int MaxIterations = 10_000;
    private const int WarmupIterations = 100;
    private const int Batches = 5;

    // Where each benchmark result goes, so it escapes; concurrent requests may overwrite each other, which is harmless.
    private static object? s_sink;

    public async Task<PayloadLessonResult> RunAsync(int payloadBytes, CancellationToken callerGone)
    {
        double callMs;
        PerformanceStatusResponse response;
        try
        {
            (callMs, response) = await MonitorTarget.TimedCallAsync(wrapper.CreateInvoker(), new PerformanceStatusRequest { ClientName = Name, PayloadBytes = payloadBytes }, options.Value.CallTimeout, callerGone);
        }
        catch (RpcException error) when (!callerGone.IsCancellationRequested)
        {
            throw new LessonFailedException(Name, channels.ServerUri, 1, 0, error, text);
        }

        callerGone.ThrowIfCancellationRequested();
        return new PayloadLessonResult(Lesson, Link, payloadBytes, callMs, MeasureSizes(response), Benchmark(payloadBytes), UnsafeWrapSharesTheArray());
    }

    public async Task<IReadOnlyList<ExperimentSample>> MeasureAsync(LessonPlan plan, int repetition, CancellationToken cancellation)
    {
        var result = await RunAsync(LessonList.BinaryPayloadBytes, cancellation);
        OperationCost Cost(string operation) => result.CopyBenchmark.Operations.First(cost => cost.Operation.StartsWith(operation, StringComparison.Ordinal));
        var (wrap, copy) = (Cost("UnsafeByteOperations.UnsafeWrap"), Cost("ByteString.CopyFrom"));
        return
        [
            ExperimentSample.Measured(repetition, "bytes", null, ("messageBytes", result.Sizes.ProtobufBytes)),
            ExperimentSample.Measured(repetition, "base64-text", null, ("messageBytes", result.Sizes.ProtobufBase64TextBytes)),
            ExperimentSample.Measured(repetition, "unsafe-wrap", null, ("nanosecondsPerOperation", wrap.NanosecondsPerOperation), ("allocatedBytesPerOperation", wrap.AllocatedBytesPerOperation),
                ("sharesTheArray", result.UnsafeWrapSharesTheArray ? 1 : 0)),
            ExperimentSample.Measured(repetition, "copy-from", null, ("nanosecondsPerOperation", copy.NanosecondsPerOperation), ("allocatedBytesPerOperation", copy.AllocatedBytesPerOperation)),
        ];
    }

    public static MessageSizes MeasureSizes(PerformanceStatusResponse response)
    {
        var binary = response.CalculateSize();

        // bytes and string share wire type 2 (a length, then the content), so this is exactly the size of the
        // same message declared with string fields that carry base64 text.
        var asText = response.Clone();
        asText.DataLoad1 = ByteString.CopyFromUtf8(response.DataLoad1.ToBase64());
        asText.DataLoad2 = ByteString.CopyFromUtf8(response.DataLoad2.ToBase64());
        var base64 = asText.CalculateSize();

        var protobufJson = Encoding.UTF8.GetByteCount(JsonFormatter.Default.Format(response));
        var gatewayJson = JsonSerializer.SerializeToUtf8Bytes(PerformanceStatus.From(response), RunJson.Options).Length;
        return new MessageSizes(
            response.DataLoad1.Length,
            response.DataLoad2.Length,
            binary,
            base64,
            protobufJson,
            gatewayJson,
            Ratio(base64, binary),
            Ratio(protobufJson, binary),
            Ratio(gatewayJson, binary));
    }

    /// <summary>Times each way in and out of a ByteString on this thread; nothing awaits inside, so the allocation counter is this work's alone.</summary>
    public static CopyBenchmark Benchmark(int payloadBytes)
    {
        var perBatch = (int)Math.Clamp(BenchmarkBytesBudget / payloadBytes / Batches, 1, MaxIterations / Batches);
        var source = new byte[payloadBytes];
        Random.Shared.NextBytes(source);
        var parsed = ByteString.CopyFrom(source);

        // Each result is stored where the JIT cannot see its end: otherwise .NET 10 may allocate an unused ByteString on the stack and report no allocation.
        return new CopyBenchmark(payloadBytes, perBatch * Batches, Batches,
        [
            Measure("UnsafeByteOperations.UnsafeWrap (no copy)", () => UnsafeByteOperations.UnsafeWrap(source), perBatch),
            Measure("ByteString.CopyFrom (copy)", () => ByteString.CopyFrom(source), perBatch),
            Measure("ByteString.ToByteArray (copy)", () => parsed.ToByteArray(), perBatch),
            Measure("MemoryMarshal.TryGetArray on .Memory (no copy)", () => MemoryMarshal.TryGetArray(parsed.Memory, out var segment) ? segment.Array : null, perBatch),
        ]);
    }

    /// <summary>Shows, not tells, why UnsafeWrap is unsafe: the message changes when the array does.</summary>
    public static bool UnsafeWrapSharesTheArray()
    {
        var array = new byte[] { 1, 2, 3 };
        var wrapped = UnsafeByteOperations.UnsafeWrap(array);
        var copied = ByteString.CopyFrom(array);
        array[0] = 42;
        return wrapped[0] == 42 && copied[0] == 1;
    }

    // The median of a few batches, not one mean: a GC or a descheduled thread on a shared machine spoils one batch, not the answer.
    private static OperationCost Measure(string name, Func<object?> operation, int perBatch)
    {
        for (var i = 0; i < Math.Min(perBatch * Batches, WarmupIterations); i++)
        {
            s_sink = operation();
        }

        var batchNanoseconds = new double[Batches];
        var allocatedBefore = GC.GetAllocatedBytesForCurrentThread();
        for (var batch = 0; batch < Batches; batch++)
        {
            var start = Stopwatch.GetTimestamp();
            for (var i = 0; i < perBatch; i++)
            {
                s_sink = operation();
            }

            batchNanoseconds[batch] = Stopwatch.GetElapsedTime(start).TotalMilliseconds * 1_000_000 / perBatch;
        }

        var allocated = GC.GetAllocatedBytesForCurrentThread() - allocatedBefore;
        s_sink = null;
        Array.Sort(batchNanoseconds);
        return new OperationCost(name, Math.Round(batchNanoseconds[Batches / 2], 2), (double)allocated / (perBatch * Batches));
    }

    private static double Ratio(int size, int baseline) => Math.Round((double)size / baseline, 3);
}

public sealed record PayloadLessonResult(
    string Lesson,
    string Link,
    int PayloadBytes,
    double CallMs,
    MessageSizes Sizes,
    CopyBenchmark CopyBenchmark,
    bool UnsafeWrapSharesTheArray);

/// <summary>
/// The one answer the service sent, sized four ways: as protobuf with bytes fields, as protobuf with the same data as
/// base64 strings, as Google.Protobuf's JSON, and as the gateway's own JSON for a status. Ratios are against the first.
/// </summary>
public sealed record MessageSizes(
    int DataLoad1Bytes,
    int DataLoad2Bytes,
    int ProtobufBytes,
    int ProtobufBase64TextBytes,
    int ProtobufJsonBytes,
    int GatewayJsonBytes,
    double Base64TextRatio,
    double ProtobufJsonRatio,
    double GatewayJsonRatio);

/// <summary>
/// In-process cost of getting bytes into and out of a ByteString: the median batch's time per operation (the delegate
/// call, about a nanosecond, included) and the bytes per operation GC.GetAllocatedBytesForCurrentThread counted over all
/// batches. Read the allocations for the copied arrays: inside the gateway the count was seen to leave out the 32-byte
/// ByteString object that a plain console process counts.
/// </summary>
public sealed record CopyBenchmark(int PayloadBytes, int Iterations, int Batches, IReadOnlyList<OperationCost> Operations);

public sealed record OperationCost(string Operation, double NanosecondsPerOperation, double AllocatedBytesPerOperation);
