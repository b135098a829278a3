using Grpc.Core;
using LoadEngine.Strategies;
using Performance;

namespace GrpcBestPractices.Tests.Fakes;

/// <summary>
/// A fake of the service behind a call invoker (grpc-dotnet's Tester example mocks its client the same way): every unary
/// call a strategy makes is answered by <see cref="Answer"/>, a duplex call by <see cref="Stream"/>, and the fake records
/// what it was asked and how many were in flight.
/// </summary>
public sealed class FakeMonitorClient : CallInvoker
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

    /// <summary>A strategy named as <paramref name="info"/> whose every call is made on this fake.</summary>
    public IChannelStrategy As(StrategyInfo info) => new FakeStrategy(info, this);

    public override AsyncUnaryCall<TResponse> AsyncUnaryCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options, TRequest request)
    {
        var asked = (PerformanceStatusRequest)(object)request;
        lock (Calls)
        {
            Calls.Add((asked, options));
        }

        var inFlight = Interlocked.Increment(ref _inFlight);
        for (var max = Volatile.Read(ref _maxInFlight); inFlight > max; max = Volatile.Read(ref _maxInFlight))
        {
            Interlocked.CompareExchange(ref _maxInFlight, inFlight, max);
        }

        return (AsyncUnaryCall<TResponse>)(object)Unary(Track(Answer(asked, options)));
    }

    public override AsyncDuplexStreamingCall<TRequest, TResponse> AsyncDuplexStreamingCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options) =>
        (AsyncDuplexStreamingCall<TRequest, TResponse>)(object)(Stream ?? throw new InvalidOperationException("This test gave the fake no stream."))(options);

    public override TResponse BlockingUnaryCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options, TRequest request) =>
        throw new NotSupportedException("The engine never blocks on a call.");

    public override AsyncServerStreamingCall<TResponse> AsyncServerStreamingCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options, TRequest request) =>
        throw new NotSupportedException("The built-in service has no server stream.");

    public override AsyncClientStreamingCall<TRequest, TResponse> AsyncClientStreamingCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options) =>
        throw new NotSupportedException("The built-in service has no client stream.");

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

    private sealed class FakeStrategy(StrategyInfo info, CallInvoker invoker) : IChannelStrategy
    {
        public StrategyInfo Info => info;

        public string DescribeMeasurement() => $"{info.Name} on a fake invoker.";

        public ChannelLease Acquire() => new(invoker);
    }
}
