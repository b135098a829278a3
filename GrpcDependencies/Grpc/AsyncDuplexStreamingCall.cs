using System.Buffers;
using System.IO.Pipelines;
using System.Net;
using Google.Protobuf;

namespace GrpcDependencies.Grpc;

/// <summary>
/// One bidirectional stream: the request body stays open while responses arrive, so many messages
/// share one HTTP/2 stream (https://learn.microsoft.com/aspnet/core/grpc/performance#streaming).
/// </summary>
public sealed class AsyncDuplexStreamingCall<TRequest, TResponse> : IDisposable
    where TRequest : IMessage
    where TResponse : class, IMessage<TResponse>
{
    private readonly CallScope _call;
    private readonly HttpRequestMessage _request;
    private const int MaxPendingBytes = 32 * 1024;
    private readonly DuplexContent _content = new();
    private readonly ArrayBufferWriter<byte> _pending = new(1024);
    private readonly Task<HttpResponseMessage> _responseTask;
    private readonly MessageParser<TResponse> _parser;
    private readonly int _maxReceiveMessageSize;
    private HttpResponseMessage? _response;
    private PipeReader? _reader;
    private bool _disposed;

    internal AsyncDuplexStreamingCall(GrpcChannel channel, string path, MessageParser<TResponse> parser, CallOptions options)
    {
        _parser = parser;
        _maxReceiveMessageSize = channel.MaxReceiveMessageSize;
        _call = CallScope.Start(options);
        _request = channel.CreateRequest(path, options.Deadline);
        _request.Content = _content;
        _responseTask = channel.Invoker.SendAsync(_request, _call.Token);
        // A call that fails before the body is requested (server down) must fail writers, not leave them waiting.
        _responseTask.ContinueWith(
            static (task, state) => ((DuplexContent)state!).Fail(task.Exception?.InnerException ?? new OperationCanceledException()),
            _content, CancellationToken.None, TaskContinuationOptions.NotOnRanToCompletion, TaskScheduler.Default);
        RequestStream = new Writer(this);
        ResponseStream = new Reader(this);
    }

    public IClientStreamWriter<TRequest> RequestStream { get; }

    public IAsyncStreamReader<TResponse> ResponseStream { get; }

    /// <summary>Aborts the call (RST_STREAM) if it has not completed.</summary>
    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        _call.Cancel();
        _content.Fail(new OperationCanceledException("The call was disposed."));
        _reader?.Complete();
        _response?.Dispose();
        _request.Dispose();
        _call.Dispose();
    }

    private Task WriteAsync(TRequest message, WriteOptions? options, CancellationToken cancellationToken)
    {
        GrpcProtocol.WriteMessage(_pending, message);
        // A buffer-hinted message waits for the next unhinted write (or completion), so several go out as one write.
        return options?.Flags.HasFlag(WriteFlags.BufferHint) == true && _pending.WrittenCount < MaxPendingBytes
            ? Task.CompletedTask
            : SendPendingAsync(cancellationToken);
    }

    private async Task SendPendingAsync(CancellationToken cancellationToken)
    {
        if (_pending.WrittenCount == 0)
        {
            return;
        }

        try
        {
            var stream = await _content.GetStreamAsync(cancellationToken).ConfigureAwait(false);
            await stream.WriteAsync(_pending.WrittenMemory, cancellationToken).ConfigureAwait(false);
            await stream.FlushAsync(cancellationToken).ConfigureAwait(false);
            _pending.ResetWrittenCount();
        }
        catch (Exception ex) when (ex is not RpcException)
        {
            throw await FailureAsync(ex).ConfigureAwait(false);
        }
    }

    private async Task<bool> MoveNextAsync(CancellationToken cancellationToken)
    {
        try
        {
            if (_reader is null)
            {
                _response = await _responseTask.WaitAsync(cancellationToken).ConfigureAwait(false);
                ClientCalls.ThrowIfNotGrpcResponse(_response);
                var stream = await _response.Content.ReadAsStreamAsync(_call.Token).ConfigureAwait(false);
                _reader = PipeReader.Create(stream, ClientCalls.ReaderOptions);
            }

            using var linked = CancellationTokenSource.CreateLinkedTokenSource(_call.Token, cancellationToken);
            var message = await GrpcProtocol.ReadMessageAsync(_reader, _parser, _maxReceiveMessageSize, linked.Token).ConfigureAwait(false);
            if (message is not null)
            {
                ((Reader)ResponseStream).Current = message;
                return true;
            }

            ClientCalls.ThrowIfNotOk(_response!.TrailingHeaders);
            return false;
        }
        catch (Exception ex) when (ex is not RpcException)
        {
            throw _call.Translate(ex);
        }
    }

    /// <summary>A failed write usually means the call ended: report the call's status, as gRPC clients do.</summary>
    private async Task<RpcException> FailureAsync(Exception writeError)
    {
        if (_responseTask.IsCompletedSuccessfully && _response is null)
        {
            try
            {
                ClientCalls.ThrowIfNotGrpcResponse(await _responseTask.ConfigureAwait(false));
            }
            catch (RpcException status)
            {
                return status;
            }
        }

        if (!_responseTask.IsCompleted)
        {
            await Task.WhenAny(_responseTask, Task.Delay(TimeSpan.FromMilliseconds(50))).ConfigureAwait(false);
        }

        return _call.Translate(_responseTask.IsFaulted ? _responseTask.Exception!.InnerException! : writeError);
    }

    private sealed class Writer(AsyncDuplexStreamingCall<TRequest, TResponse> call) : IClientStreamWriter<TRequest>
    {
        private bool _completed;

        public WriteOptions? WriteOptions { get; set; }

        public Task WriteAsync(TRequest message, CancellationToken cancellationToken = default)
        {
            ObjectDisposedException.ThrowIf(call._disposed, call);
            return _completed
                ? throw new InvalidOperationException("Request stream has already been completed.")
                : call.WriteAsync(message, WriteOptions, cancellationToken);
        }

        public async Task CompleteAsync()
        {
            if (_completed)
            {
                return;
            }

            _completed = true;
            await call.SendPendingAsync(CancellationToken.None).ConfigureAwait(false);
            call._content.Complete();
        }
    }

    private sealed class Reader(AsyncDuplexStreamingCall<TRequest, TResponse> call) : IAsyncStreamReader<TResponse>
    {
        public TResponse Current { get; set; } = null!;

        public Task<bool> MoveNext(CancellationToken cancellationToken = default) => call.MoveNextAsync(cancellationToken);
    }

    /// <summary>A request body that the caller writes to for as long as the call lasts.</summary>
    private sealed class DuplexContent : HttpContent
    {
        private readonly TaskCompletionSource<Stream> _stream = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private readonly TaskCompletionSource _completed = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public DuplexContent() => Headers.ContentType = ClientCalls.GrpcContentType;

        public Task<Stream> GetStreamAsync(CancellationToken cancellationToken) => _stream.Task.WaitAsync(cancellationToken);

        public void Complete() => _completed.TrySetResult();

        public void Fail(Exception error)
        {
            _stream.TrySetException(error);
            _completed.TrySetResult();
        }

        protected override Task SerializeToStreamAsync(Stream stream, TransportContext? context)
        {
            _stream.TrySetResult(stream);
            return _completed.Task;
        }

        protected override Task SerializeToStreamAsync(Stream stream, TransportContext? context, CancellationToken cancellationToken) =>
            SerializeToStreamAsync(stream, context);

        protected override bool TryComputeLength(out long length)
        {
            length = -1;
            return false;
        }
    }
}

public interface IClientStreamWriter<in T>
{
    /// <summary>Options for the following writes; <see cref="WriteFlags.BufferHint"/> lets them wait and go out together.</summary>
    WriteOptions? WriteOptions { get; set; }

    Task WriteAsync(T message, CancellationToken cancellationToken = default);

    /// <summary>Sends what buffer-hinted writes left waiting, then ends the request stream.</summary>
    Task CompleteAsync();
}

/// <summary>As in gRPC: flags for a stream's writes.</summary>
[Flags]
public enum WriteFlags
{
    None = 0,

    /// <summary>The write may be held and sent with later ones; the next write without this flag (or completion) sends it.</summary>
    BufferHint = 1,
}

public sealed record WriteOptions(WriteFlags Flags = WriteFlags.None)
{
    public static WriteOptions Buffered { get; } = new(WriteFlags.BufferHint);
}

public interface IAsyncStreamReader<out T>
{
    T Current { get; }

    Task<bool> MoveNext(CancellationToken cancellationToken = default);
}

public static class AsyncStreamReaderExtensions
{
    public static async IAsyncEnumerable<T> ReadAllAsync<T>(
        this IAsyncStreamReader<T> reader,
        [System.Runtime.CompilerServices.EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        while (await reader.MoveNext(cancellationToken).ConfigureAwait(false))
        {
            yield return reader.Current;
        }
    }
}
