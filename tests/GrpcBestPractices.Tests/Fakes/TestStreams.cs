using System.Threading.Channels;
using Grpc.Core;

namespace GrpcBestPractices.Tests.Fakes;

/// <summary>Messages a test hands in one by one, read the way a service or client reads a gRPC stream.</summary>
public sealed class TestAsyncStreamReader<T> : IAsyncStreamReader<T>
    where T : class
{
    private readonly Channel<T> _messages = Channel.CreateUnbounded<T>();

    public T Current { get; private set; } = null!;

    public void Add(T message) => _messages.Writer.TryWrite(message);

    public void Complete(Exception? error = null) => _messages.Writer.TryComplete(error);

    public async Task<bool> MoveNext(CancellationToken cancellationToken)
    {
        if (await _messages.Reader.WaitToReadAsync(cancellationToken) && _messages.Reader.TryRead(out var message))
        {
            Current = message;
            return true;
        }

        return false;
    }
}

/// <summary>Keeps what a service writes, and can stand for a client that left (every write then fails as gRPC's do).</summary>
public sealed class TestServerStreamWriter<T> : IServerStreamWriter<T>
    where T : class
{
    private readonly Channel<T> _written = Channel.CreateUnbounded<T>();

    public WriteOptions? WriteOptions { get; set; }

    public ChannelReader<T> Written => _written.Reader;

    public Task WriteAsync(T message) => WriteAsync(message, CancellationToken.None);

    public Task WriteAsync(T message, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        _written.Writer.TryWrite(message);
        return Task.CompletedTask;
    }
}
