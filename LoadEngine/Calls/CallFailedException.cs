using Grpc.Core;
using LoadEngine.Targets;

namespace LoadEngine.Calls;

/// <summary>
/// A call that did not succeed for a reason other than gRPC's own: a wrong answer, or a REST call's failure. It is counted
/// under <see cref="Status"/>, the status grpc-dotnet gives the same failure, so every protocol's failures read alike.
/// </summary>
public sealed class CallFailedException(StatusCode status, string detail, Exception? cause = null) : Exception(detail, cause)
{
    public StatusCode Status { get; } = status;

    public string Detail { get; } = detail;
}

/// <summary>
/// What the engine reads from a failed call, whichever protocol failed it: the status it is counted under, its detail as
/// the client gave it, what a sentence about a failed connection quotes, and whether the connection was refused.
/// </summary>
/// <param name="Handshake">Whether the TLS handshake failed (an untrusted or misnamed certificate): no call can succeed until the settings change.</param>
public readonly record struct CallFailure(StatusCode Status, string Detail, string Described, bool Refused, bool Handshake = false)
{
    public CallFailure(StatusCode status, string detail)
        : this(status, detail, detail.TrimEnd('.'), Refused: false)
    {
    }

    /// <summary>
    /// The failure a call threw, or null when it is not a call's failure (a bug, which the engine re-throws). Its detail
    /// came from the target: it enters the engine here, masked and escaped by <paramref name="text"/>. <paramref name="cleartext"/>
    /// says the call went out as cleartext HTTP/2 (http://), which tells a TLS port's refusal from a TLS server's.
    /// </summary>
    public static CallFailure? From(Exception error, TargetText text, bool cleartext = false) => error switch
    {
        RpcException rpc => Of(rpc.StatusCode, rpc.Status.Detail, rpc.Status.DebugException, text, cleartext),
        CallFailedException failed => Of(failed.Status, failed.Detail, failed.InnerException, text, cleartext),
        _ => null,
    };

    /// <summary>Whether <paramref name="error"/> is a call's failure (what <see cref="From"/> reads), not a bug.</summary>
    public static bool Is(Exception error) => error is RpcException or CallFailedException;

    // A failed handshake's own message (untrusted chain, wrong name) is deep beneath "The SSL connection could not be established".
    private static CallFailure Of(StatusCode status, string detail, Exception? cause, TargetText text, bool cleartext) =>
        Find<System.Security.Authentication.AuthenticationException>(cause) is { } tls
            ? new CallFailure(status, text.Clean(detail), text.Clean($"the TLS handshake failed ({tls.Message.TrimEnd('.')}){NotTls(tls)}"), Refused: false, Handshake: true)
            : HandshakeIncomplete(cause, cleartext)
                ? new CallFailure(status, text.Clean(detail), cleartext ? CleartextRefused : PrefaceRefused, Refused: false, Handshake: true)
                : new CallFailure(status, text.Clean(detail), text.Clean(Describe(detail, cause)), IsRefused(cause));

    // grpc-dotnet's detail strings the whole exception chain together; this is what it means.
    private const string PrefaceRefused =
        "the server closed the connection before the HTTP/2 handshake completed (a TLS server that requires a client certificate does so " +
        "when it gets none it trusts, under TLS 1.3 after the TLS handshake; so does a server that does not speak HTTP/2)";

    // Called in cleartext, a TLS port reads the HTTP/2 preface as a broken TLS record and hangs up (or sends an alert first, which
    // the client reads as a broken frame, as it reads an HTTP/1.1 port's answer).
    private const string CleartextRefused =
        "the server did not complete the HTTP/2 handshake: the port speaks TLS (or HTTP/1.1 alone), not cleartext HTTP/2; " +
        "call it over https:// (leave out --insecure)";

    /// <summary>
    /// The connection ended before the server's HTTP/2 preface: the socket closed (an IOException), or in cleartext also
    /// bytes that were no HTTP/2 frame (the HttpRequestException alone).
    /// </summary>
    private static bool HandshakeIncomplete(Exception? cause, bool cleartext) =>
        Find<IOException>(cause) is { } io && io.Message.Contains("HTTP/2 handshake", StringComparison.Ordinal)
        || cleartext && Find<HttpRequestException>(cause) is { } request && request.Message.Contains("HTTP/2 handshake", StringComparison.Ordinal);

    // SslStream's words when the first bytes back are not a TLS record: an h2c server answering the ClientHello with an HTTP/2 frame.
    private static string NotTls(System.Security.Authentication.AuthenticationException tls) =>
        tls.Message.Contains("frame size or a corrupted frame", StringComparison.Ordinal)
            ? ": the port answered in something other than TLS, as a cleartext HTTP/2 (h2c) port does; call it over http:// (with a host:port, --insecure)"
            : "";

    /// <summary>An exception and those beneath it, outermost first.</summary>
    public static IEnumerable<Exception> Chain(Exception? error)
    {
        for (var cause = error; cause is not null; cause = cause.InnerException)
        {
            yield return cause;
        }
    }

    private static T? Find<T>(Exception? error)
        where T : Exception => Chain(error).OfType<T>().FirstOrDefault();

    /// <summary>
    /// A failure's detail, and the client's own exception beneath it when the detail does not say it: "Error connecting to
    /// subchannel" comes with "Connection refused" or "A connection could not be established within the configured
    /// ConnectTimeout" (whose own inner exception only says the operation was cancelled).
    /// </summary>
    private static string Describe(string detail, Exception? cause)
    {
        detail = FirstLine(detail);
        var because = cause is null ? null : FirstLine(cause.Message);
        return string.IsNullOrEmpty(because) || detail.Contains(because, StringComparison.Ordinal) ? detail : $"{detail} ({because})";
    }

    // A failure is one sentence on one line: an exception's message may run on over several (a closed HTTP/2 handshake's does).
    private static string FirstLine(string text)
    {
        var trimmed = text.Trim();
        var end = trimmed.IndexOfAny(['\r', '\n']);
        return (end < 0 ? trimmed : trimmed[..end]).TrimEnd('.');
    }

    /// <summary>Whether <paramref name="error"/> or an exception beneath it is the socket's refusal: nothing listens at the address.</summary>
    private static bool IsRefused(Exception? error) =>
        Find<System.Net.Sockets.SocketException>(error) is { SocketErrorCode: System.Net.Sockets.SocketError.ConnectionRefused };
}
