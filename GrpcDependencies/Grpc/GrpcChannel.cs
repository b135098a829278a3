using System.Net;

namespace GrpcDependencies.Grpc;

public sealed class GrpcChannelOptions
{
    /// <summary>The handler that owns the connections; the channel creates a default one when neither this nor <see cref="HttpClient"/> is set.</summary>
    public HttpMessageHandler? HttpHandler { get; set; }

    /// <summary>A client whose handler pipeline the channel sends through (what a client factory hands out).</summary>
    public HttpClient? HttpClient { get; set; }

    /// <summary>Whether disposing the channel disposes the handler or client it was given.</summary>
    public bool DisposeHttpClient { get; set; }

    public int MaxReceiveMessageSize { get; set; } = GrpcProtocol.DefaultMaxMessageSize;
}

/// <summary>
/// A long-lived connection pool to one gRPC server: the expensive object to reuse
/// (https://learn.microsoft.com/aspnet/core/grpc/performance#reuse-grpc-channels).
/// </summary>
public sealed class GrpcChannel : IDisposable
{
    private readonly HttpMessageInvoker _invoker;
    private readonly System.Collections.Concurrent.ConcurrentDictionary<string, Uri> _methodUris = new(StringComparer.Ordinal);
    private readonly bool _disposeInvoker;

    private GrpcChannel(Uri address, HttpMessageInvoker invoker, bool disposeInvoker, int maxReceiveMessageSize)
    {
        Address = address;
        _invoker = invoker;
        _disposeInvoker = disposeInvoker;
        MaxReceiveMessageSize = maxReceiveMessageSize;
    }

    public Uri Address { get; }

    public int MaxReceiveMessageSize { get; }

    internal HttpMessageInvoker Invoker => _invoker;

    public static GrpcChannel ForAddress(string address, GrpcChannelOptions? options = null) =>
        ForAddress(new Uri(address, UriKind.Absolute), options);

    public static GrpcChannel ForAddress(Uri address, GrpcChannelOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(address);
        if (address.Scheme != Uri.UriSchemeHttp && address.Scheme != Uri.UriSchemeHttps)
        {
            throw new ArgumentException($"A channel address must be http:// or https://, not '{address}'.", nameof(address));
        }

        options ??= new GrpcChannelOptions();
        if (options.HttpClient is not null && options.HttpHandler is not null)
        {
            throw new ArgumentException("Set HttpClient or HttpHandler, not both.", nameof(options));
        }

        var (invoker, owned) = options switch
        {
            { HttpClient: { } client } => ((HttpMessageInvoker)client, options.DisposeHttpClient),
            { HttpHandler: { } handler } => (new HttpMessageInvoker(handler, options.DisposeHttpClient), true),
            _ => (new HttpMessageInvoker(CreateDefaultHandler(), disposeHandler: true), true),
        };
        return new GrpcChannel(address, invoker, owned, options.MaxReceiveMessageSize);
    }

    /// <summary>The defaults Grpc.Net.Client uses: more connections when streams run out, pings, no idle timeout.</summary>
    public static SocketsHttpHandler CreateDefaultHandler() => new()
    {
        EnableMultipleHttp2Connections = true,
        PooledConnectionIdleTimeout = Timeout.InfiniteTimeSpan,
        KeepAlivePingDelay = TimeSpan.FromSeconds(60),
        KeepAlivePingTimeout = TimeSpan.FromSeconds(30),
        ConnectTimeout = TimeSpan.FromSeconds(5),
        AutomaticDecompression = DecompressionMethods.None,
        // gRPC never follows redirects; leaving them on only adds a handler to every call.
        AllowAutoRedirect = false,
        UseProxy = false,
        UseCookies = false,
    };

    internal HttpRequestMessage CreateRequest(string path, DateTime? deadline)
    {
        // A Uri per call costs a parse and two objects; a channel calls few methods, so keep one each.
        var request = new HttpRequestMessage(HttpMethod.Post, _methodUris.GetOrAdd(path, static (method, address) => new Uri(address, method), Address))
        {
            Version = HttpVersion.Version20,
            VersionPolicy = HttpVersionPolicy.RequestVersionExact,
        };
        request.Headers.TryAddWithoutValidation("TE", "trailers");
        if (deadline is { } due)
        {
            request.Headers.TryAddWithoutValidation(GrpcProtocol.TimeoutHeader, GrpcProtocol.FormatTimeout(due - DateTime.UtcNow));
        }

        return request;
    }

    public void Dispose()
    {
        if (_disposeInvoker)
        {
            _invoker.Dispose();
        }
    }
}
