using System.Net;
using System.Net.Sockets;
using Grpc.Core;
using LoadEngine.Calls;

namespace LoadEngine.Protocols;

/// <summary>
/// A REST call's deadline and cancellation, as CallOptions carry them for a gRPC call, and what its failure is called: a
/// <see cref="CallFailedException"/> under the gRPC status grpc-dotnet (Grpc.Net.Client 2.85) would give the same
/// failure, so every protocol's failures are counted alike.
/// </summary>
public static class RestFailures
{
    /// <summary>A token that the run stopping or the call's deadline passing cancels.</summary>
    public static CancellationTokenSource Deadline(CallOptions options)
    {
        var call = CancellationTokenSource.CreateLinkedTokenSource(options.CancellationToken);
        if (options.Deadline is { } deadline && deadline != DateTime.MaxValue)
        {
            var left = deadline - DateTime.UtcNow;
            call.CancelAfter(left > TimeSpan.Zero ? left : TimeSpan.Zero);
        }

        return call;
    }

    /// <summary>What went wrong: the run stopping, the deadline passing, or what grpc-dotnet would make of the exception.</summary>
    public static CallFailedException Of(Exception error, CallOptions options, CancellationTokenSource call) => error switch
    {
        OperationCanceledException when options.CancellationToken.IsCancellationRequested => new CallFailedException(StatusCode.Cancelled, "The run was stopped."),
        OperationCanceledException when call.IsCancellationRequested => new CallFailedException(StatusCode.DeadlineExceeded, "The call did not finish before its deadline."),
        _ => new CallFailedException(StatusOf(error), $"Error on the REST call. {error.GetType().Name}: {error.Message}", error),
    };

    /// <summary>
    /// An answer that is not a success, mapped as grpc-dotnet maps an HTTP status ("HTTP to gRPC Status Code Mapping"):
    /// 400 and 431 Internal, 401 Unauthenticated, 403 PermissionDenied, 404 Unimplemented, 429/502/503/504 Unavailable,
    /// 1xx Internal, anything else Unknown. The detail keeps the start of the body: the service's problem+json sentence.
    /// </summary>
    public static async Task ThrowIfFailedAsync(HttpResponseMessage response, CancellationToken cancellation)
    {
        if (response.IsSuccessStatusCode)
        {
            return;
        }

        var body = await response.Content.ReadAsStringAsync(cancellation);
        throw new CallFailedException(StatusOf(response.StatusCode), $"Bad REST response. HTTP status code: {(int)response.StatusCode}. {Shortened(body)}".TrimEnd());
    }

    public static StatusCode StatusOf(HttpStatusCode status) => status switch
    {
        HttpStatusCode.BadRequest or HttpStatusCode.RequestHeaderFieldsTooLarge => StatusCode.Internal,
        HttpStatusCode.Unauthorized => StatusCode.Unauthenticated,
        HttpStatusCode.Forbidden => StatusCode.PermissionDenied,
        HttpStatusCode.NotFound => StatusCode.Unimplemented,
        HttpStatusCode.TooManyRequests or HttpStatusCode.BadGateway or HttpStatusCode.ServiceUnavailable or HttpStatusCode.GatewayTimeout => StatusCode.Unavailable,
        >= (HttpStatusCode)100 and < (HttpStatusCode)200 => StatusCode.Internal,
        _ => StatusCode.Unknown,
    };

    /// <summary>
    /// An exception's status as grpc-dotnet resolves it (GrpcProtocolHelpers.ResolveRpcExceptionStatusCode): an HTTP/2
    /// error code where there is one, else Unavailable when a socket or I/O error is in the chain (connection refused, a
    /// protocol mismatch), else Internal (a body that is not the JSON expected, a TLS certificate refused).
    /// </summary>
    public static StatusCode StatusOf(Exception error) => CallFailure.Chain(error).OfType<HttpProtocolException>().FirstOrDefault() is { } protocol
        ? protocol.ErrorCode switch
        {
            0x7 => StatusCode.Unavailable,
            0x8 => StatusCode.Cancelled,
            0xb => StatusCode.ResourceExhausted,
            0xc => StatusCode.PermissionDenied,
            _ => StatusCode.Internal,
        }
        : CallFailure.Chain(error).Any(cause => cause is SocketException or IOException) ? StatusCode.Unavailable : StatusCode.Internal;

    private static string Shortened(string body) => body.Length <= 500 ? body : body[..500] + "…";
}
