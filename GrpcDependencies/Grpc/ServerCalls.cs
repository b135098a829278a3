using System.IO.Pipelines;
using Google.Protobuf;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Server.Kestrel.Core.Features;
using Microsoft.Extensions.Logging;

namespace GrpcDependencies.Grpc;

/// <summary>What a service method knows about its call: cancellation (client gone or deadline passed) and the connection it came on.</summary>
public sealed class ServerCallContext : IDisposable
{
    private CancellationTokenSource? _deadlineSource;

    private ServerCallContext(HttpContext httpContext, DateTime deadline)
    {
        HttpContext = httpContext;
        Deadline = deadline;
    }

    public HttpContext HttpContext { get; }

    public DateTime Deadline { get; }

    public string ConnectionId => HttpContext.Connection.Id;

    /// <summary>
    /// Cancelled when the client goes away or the deadline passes. The deadline's timer is made on first use:
    /// a handler that answers without awaiting never needs one, and most calls are such.
    /// </summary>
    public CancellationToken CancellationToken
    {
        get
        {
            if (Deadline == DateTime.MaxValue)
            {
                return HttpContext.RequestAborted;
            }

            if (_deadlineSource is null)
            {
                _deadlineSource = CancellationTokenSource.CreateLinkedTokenSource(HttpContext.RequestAborted);
                _deadlineSource.CancelAfter(Deadline - DateTime.UtcNow is var left && left > TimeSpan.Zero ? left : TimeSpan.Zero);
            }

            return _deadlineSource.Token;
        }
    }

    public bool DeadlinePassed => DateTime.UtcNow >= Deadline;

    internal static ServerCallContext Create(HttpContext httpContext) =>
        GrpcProtocol.TryParseTimeout(httpContext.Request.Headers[GrpcProtocol.TimeoutHeader], out var timeout)
            ? new ServerCallContext(httpContext, DateTime.UtcNow + timeout)
            : new ServerCallContext(httpContext, DateTime.MaxValue);

    public void Dispose() => _deadlineSource?.Dispose();
}

public interface IServerStreamWriter<in T>
{
    /// <summary>Options for the following writes; <see cref="WriteFlags.BufferHint"/> skips the flush, so answers go out together.</summary>
    WriteOptions? WriteOptions { get; set; }

    Task WriteAsync(T message, CancellationToken cancellationToken = default);

    /// <summary>Sends what buffer-hinted writes left waiting (the call's end sends it too).</summary>
    Task FlushAsync(CancellationToken cancellationToken = default);
}

/// <summary>A request stream that can tell, without waiting, whether another whole message has already arrived.</summary>
public interface IBufferedStreamReader
{
    bool HasBufferedMessage { get; }
}

/// <summary>Runs service methods behind HTTP/2 endpoints: reads framed requests, writes framed responses and the status trailers.</summary>
public static partial class ServerCalls
{
    public static async Task HandleUnaryAsync<TService, TRequest, TResponse>(
        HttpContext http, TService service, MessageParser<TRequest> parser, Func<TService, TRequest, ServerCallContext, Task<TResponse>> method)
        where TRequest : class, IMessage<TRequest>
        where TResponse : IMessage
    {
        if (!AcceptRequest(http))
        {
            return;
        }

        using var context = ServerCallContext.Create(http);
        try
        {
            var request = await GrpcProtocol.ReadMessageAsync(http.Request.BodyReader, parser, GrpcProtocol.DefaultMaxMessageSize, http.RequestAborted)
                ?? throw new RpcException(StatusCode.Internal, "The request stream ended without a message.");
            var response = await method(service, request, context);
            GrpcProtocol.WriteMessage(http.Response.BodyWriter, response);
            EndCall(http, StatusCode.OK, null);
        }
        catch (Exception ex)
        {
            Fail(http, context, ex);
        }
    }

    public static async Task HandleDuplexStreamingAsync<TService, TRequest, TResponse>(
        HttpContext http, TService service, MessageParser<TRequest> parser,
        Func<TService, IAsyncStreamReader<TRequest>, IServerStreamWriter<TResponse>, ServerCallContext, Task> method)
        where TRequest : class, IMessage<TRequest>
        where TResponse : IMessage
    {
        if (!AcceptRequest(http))
        {
            return;
        }

        // A stream may sit idle between messages for as long as the client likes.
        if (http.Features.Get<IHttpMinRequestBodyDataRateFeature>() is { } rate)
        {
            rate.MinDataRate = null;
        }

        if (http.Features.Get<IHttpMaxRequestBodySizeFeature>() is { IsReadOnly: false } size)
        {
            size.MaxRequestBodySize = null;
        }

        using var context = ServerCallContext.Create(http);
        try
        {
            // Send the headers now so the client sees the call accepted before the first answer.
            await http.Response.BodyWriter.FlushAsync(context.CancellationToken);
            await method(service, new RequestReader<TRequest>(http.Request.BodyReader, parser), new ResponseWriter<TResponse>(http.Response.BodyWriter), context);
            EndCall(http, StatusCode.OK, null);
        }
        catch (Exception ex)
        {
            Fail(http, context, ex);
        }
    }

    private static bool AcceptRequest(HttpContext http)
    {
        // Only known headers here: an unknown one (grpc-accept-encoding, say) costs Kestrel a dictionary per response.
        http.Response.ContentType = GrpcProtocol.ContentType;
        if (!HttpMethods.IsPost(http.Request.Method))
        {
            http.Response.StatusCode = StatusCodes.Status405MethodNotAllowed;
            return false;
        }

        if (!GrpcProtocol.IsGrpcContentType(http.Request.ContentType))
        {
            http.Response.StatusCode = StatusCodes.Status415UnsupportedMediaType;
            http.Response.ContentType = "text/plain";
            return false;
        }

        if (http.Request.Protocol != "HTTP/2")
        {
            EndCall(http, StatusCode.Internal, $"Request protocol '{http.Request.Protocol}' is not supported; gRPC needs HTTP/2.");
            return false;
        }

        if (http.Request.Headers.TryGetValue("grpc-encoding", out var encoding) && encoding != "identity")
        {
            http.Response.Headers["grpc-accept-encoding"] = "identity";
            EndCall(http, StatusCode.Unimplemented, $"Unsupported grpc-encoding value '{encoding}'. Supported encodings: identity");
            return false;
        }

        return true;
    }

    private static void Fail(HttpContext http, ServerCallContext context, Exception ex)
    {
        if (http.RequestAborted.IsCancellationRequested)
        {
            // The client is gone: there is nobody to send a status to.
            return;
        }

        var (code, detail) = ex switch
        {
            RpcException rpc => (rpc.StatusCode, rpc.Detail),
            OperationCanceledException when context.DeadlinePassed => (StatusCode.DeadlineExceeded, "Deadline exceeded."),
            InvalidProtocolBufferException => (StatusCode.Internal, "Failed to deserialize the request message."),
            _ => (StatusCode.Unknown, "Exception was thrown by handler."),
        };
        if (code == StatusCode.Unknown)
        {
            var logger = http.RequestServices.GetService(typeof(ILoggerFactory)) is ILoggerFactory factory
                ? factory.CreateLogger(typeof(ServerCalls).FullName!)
                : null;
            if (logger is not null)
            {
                LogHandlerError(logger, ex, http.Request.Path);
            }
        }

        EndCall(http, code, detail);
    }

    private static void EndCall(HttpContext http, StatusCode code, string? detail)
    {
        var headers = http.Response.HasStarted || http.Response.BodyWriter.UnflushedBytes > 0
            ? null
            : http.Response.Headers;
        if (headers is not null)
        {
            // Nothing was sent yet: a trailers-only response carries the status in the headers.
            headers[GrpcProtocol.StatusHeader] = ((int)code).ToString(System.Globalization.CultureInfo.InvariantCulture);
            if (!string.IsNullOrEmpty(detail))
            {
                headers[GrpcProtocol.MessageHeader] = GrpcProtocol.EncodeMessage(detail);
            }

            return;
        }

        http.Response.AppendTrailer(GrpcProtocol.StatusHeader, code == StatusCode.OK ? "0" : ((int)code).ToString(System.Globalization.CultureInfo.InvariantCulture));
        if (!string.IsNullOrEmpty(detail))
        {
            http.Response.AppendTrailer(GrpcProtocol.MessageHeader, GrpcProtocol.EncodeMessage(detail));
        }
    }

    [LoggerMessage(Level = LogLevel.Error, Message = "gRPC method {Path} threw")]
    private static partial void LogHandlerError(ILogger logger, Exception exception, string path);

    private sealed class RequestReader<T>(PipeReader reader, MessageParser<T> parser) : IAsyncStreamReader<T>, IBufferedStreamReader
        where T : class, IMessage<T>
    {
        public T Current { get; private set; } = null!;

        public bool HasBufferedMessage
        {
            get
            {
                if (!reader.TryRead(out var result))
                {
                    return false;
                }

                // Look without consuming: the next MoveNext reads the same bytes.
                var buffer = result.Buffer;
                var whole = GrpcProtocol.ContainsWholeMessage(buffer);
                reader.AdvanceTo(buffer.Start);
                return whole;
            }
        }

        public async Task<bool> MoveNext(CancellationToken cancellationToken = default)
        {
            var message = await GrpcProtocol.ReadMessageAsync(reader, parser, GrpcProtocol.DefaultMaxMessageSize, cancellationToken);
            if (message is null)
            {
                return false;
            }

            Current = message;
            return true;
        }
    }

    private sealed class ResponseWriter<T>(PipeWriter writer) : IServerStreamWriter<T>
        where T : IMessage
    {
        public WriteOptions? WriteOptions { get; set; }

        public async Task WriteAsync(T message, CancellationToken cancellationToken = default)
        {
            GrpcProtocol.WriteMessage(writer, message);
            if (WriteOptions?.Flags.HasFlag(WriteFlags.BufferHint) != true || writer.UnflushedBytes >= MaxUnflushedBytes)
            {
                await writer.FlushAsync(cancellationToken);
            }
        }

        public async Task FlushAsync(CancellationToken cancellationToken = default)
        {
            if (writer.UnflushedBytes > 0)
            {
                await writer.FlushAsync(cancellationToken);
            }
        }
    }

    private const int MaxUnflushedBytes = 32 * 1024;
}
