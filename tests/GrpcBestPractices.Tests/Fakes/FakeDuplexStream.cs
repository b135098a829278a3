using Grpc.Core;
using Performance;

namespace GrpcBestPractices.Tests.Fakes;

/// <summary>
/// A duplex call for <see cref="FakeMonitorClient"/>: each request the strategy writes is passed to <see cref="Answer"/>,
/// which decides what the "service" sends back; disposing the call ends the response stream, as aborting a real call does.
/// </summary>
public sealed class FakeDuplexStream : IClientStreamWriter<PerformanceStatusRequest>
{
    private readonly TestAsyncStreamReader<PerformanceStatusResponse> _responses = new();
    private int _written;
    private int _read;
    private int _maxUnanswered;

    /// <summary>Given the request's index and the request: the answers to send for it (none, one, or more).</summary>
    public Func<int, PerformanceStatusRequest, IEnumerable<PerformanceStatusResponse>> Answer { get; set; } =
        (_, request) => [FakeMonitorClient.Respond(request)];

    public WriteOptions? WriteOptions { get; set; }

    /// <summary>Whether the "service" ends its answers when the client completes; false stands for a service that hangs.</summary>
    public bool EndsWhenClientCompletes { get; init; } = true;

    public bool Completed { get; private set; }

    public bool Disposed { get; private set; }

    public int Written => Volatile.Read(ref _written);

    /// <summary>The most messages written but whose answers the client had not yet read, seen at any write.</summary>
    public int MaxUnanswered => Volatile.Read(ref _maxUnanswered);

    public AsyncDuplexStreamingCall<PerformanceStatusRequest, PerformanceStatusResponse> Start(CallOptions options) => new(
        this, new CancellableReader(this, _responses, options.CancellationToken), Task.FromResult(new Metadata()), () => Status.DefaultSuccess, () => [], Dispose);

    /// <summary>Ends the response stream, with an error as a failing service would, or cleanly.</summary>
    public void End(RpcException? error = null) => _responses.Complete(error);

    public Task WriteAsync(PerformanceStatusRequest message)
    {
        var written = Interlocked.Increment(ref _written);
        _maxUnanswered = Math.Max(_maxUnanswered, written - Volatile.Read(ref _read));
        foreach (var answer in Answer(written - 1, message))
        {
            _responses.Add(answer);
        }

        return Task.CompletedTask;
    }

    /// <summary>The client has sent everything: like the real service, the fake then ends its answers too (unless it hangs).</summary>
    public Task CompleteAsync()
    {
        Completed = true;
        if (EndsWhenClientCompletes)
        {
            _responses.Complete();
        }

        return Task.CompletedTask;
    }

    private void Dispose()
    {
        Disposed = true;
        _responses.Complete(FakeMonitorClient.Failure(StatusCode.Cancelled, "The call was disposed."));
    }

    // A real call's token cancels its reads, whatever token MoveNext is given.
    private sealed class CancellableReader(FakeDuplexStream stream, IAsyncStreamReader<PerformanceStatusResponse> inner, CancellationToken call) : IAsyncStreamReader<PerformanceStatusResponse>
    {
        public PerformanceStatusResponse Current => inner.Current;

        public async Task<bool> MoveNext(CancellationToken cancellationToken)
        {
            using var both = CancellationTokenSource.CreateLinkedTokenSource(call, cancellationToken);
            try
            {
                var moved = await inner.MoveNext(both.Token);
                if (moved)
                {
                    Interlocked.Increment(ref stream._read);
                }

                return moved;
            }
            catch (OperationCanceledException) when (call.IsCancellationRequested)
            {
                throw FakeMonitorClient.Failure(StatusCode.Cancelled, "Call canceled by the client.");
            }
        }
    }
}
