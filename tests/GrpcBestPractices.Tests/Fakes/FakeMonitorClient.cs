using Grpc.Core;
using Performance;

namespace GrpcBestPractices.Tests.Fakes;

/// <summary>
/// A fake of the generated client (grpc-dotnet's Tester example mocks its client the same way): every call the
/// strategy makes is answered by <see cref="Answer"/>, and the fake records what it was asked and how many were in flight.
/// </summary>
public sealed class FakeMonitorClient : Monitor.MonitorClient
{
    private int _inFlight;
    private int _maxInFlight;

    public Func<PerformanceStatusRequest, CallOptions, Task<PerformanceStatusResponse>> Answer { get; set; } =
        (request, _) => Task.FromResult(Respond(request));

    /// <summary>For duplex calls: the stream the strategy gets.</summary>
    public Func<CallOptions, AsyncDuplexStreamingCall<PerformanceStatusRequest, PerformanceStatusResponse>>? Stream { get; set; }

    public List<(PerformanceStatusRequest Request, CallOptions Options)> Calls { get; } = [];

    public int MaxInFlight => Volatile.Read(ref _maxInFlight);

    public static PerformanceStatusResponse Respond(PerformanceStatusRequest request, string connectionId = "fake-connection") => new()
    {
        CpuPercentageUsage = 1,
        MemoryUsage = 2,
        ConnectionId = connectionId,
        DataLoad1 = Google.Protobuf.ByteString.CopyFromUtf8(request.ClientName),
    };

    public static AsyncUnaryCall<PerformanceStatusResponse> Unary(Task<PerformanceStatusResponse> response) =>
        new(response, Task.FromResult(new Metadata()), () => Status.DefaultSuccess, () => [], () => { });

    public static RpcException Failure(StatusCode status, string detail = "fake failure") => new(new Status(status, detail));

    public override AsyncUnaryCall<PerformanceStatusResponse> GetPerformanceAsync(PerformanceStatusRequest request, CallOptions options)
    {
        lock (Calls)
        {
            Calls.Add((request, options));
        }

        var inFlight = Interlocked.Increment(ref _inFlight);
        for (var max = Volatile.Read(ref _maxInFlight); inFlight > max; max = Volatile.Read(ref _maxInFlight))
        {
            Interlocked.CompareExchange(ref _maxInFlight, inFlight, max);
        }

        return Unary(Track(Answer(request, options)));
    }

    public override AsyncDuplexStreamingCall<PerformanceStatusRequest, PerformanceStatusResponse> GetManyPerformanceStats(CallOptions options) =>
        (Stream ?? throw new InvalidOperationException("This test gave the fake no stream."))(options);

    private async Task<PerformanceStatusResponse> Track(Task<PerformanceStatusResponse> answer)
    {
        try
        {
            return await answer;
        }
        finally
        {
            Interlocked.Decrement(ref _inFlight);
        }
    }
}
