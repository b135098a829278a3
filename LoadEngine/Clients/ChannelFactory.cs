using Grpc.Core;
using Grpc.Core.Interceptors;
using Grpc.Net.Client;
using Microsoft.Extensions.Options;

namespace LoadEngine.Clients;

/// <summary>
/// Builds channels to the one configured service address; nothing a request says can point them elsewhere. The target's
/// connection settings (<see cref="EngineOptions.Connection"/>) apply to every handler, channel and invoker it makes.
/// </summary>
public sealed class ChannelFactory
{
    private readonly EngineOptions _options;

    public ChannelFactory(IOptions<EngineOptions> options)
    {
        _options = options.Value;
        ServerUri = _options.ServerUri;
        // The host checks the settings first and says what is wrong in its own words; here a bad one is a bug.
        Connection = _options.Connection.TryLoad(ServerUri, out var loaded, out var error) ? loaded : throw new InvalidOperationException(error);
    }

    public Uri ServerUri { get; }

    public LoadedConnection Connection { get; }

    /// <summary>A channel to the service (or a listener of it, <paramref name="address"/>) that owns <paramref name="handler"/>: disposing the channel closes its connections.</summary>
    public GrpcChannel CreateChannel(SocketsHttpHandler handler, Uri? address = null)
    {
        HttpMessageHandler chain = Connection.Authority is { } authority && (address is null || address == ServerUri) ? new AuthorityHandler(authority) { InnerHandler = handler } : handler;
        // A handler passed in is the caller's to dispose unless DisposeHttpClient says otherwise: without it a disposed
        // channel left its connection open until the service's idle timeout closed it.
        return GrpcChannel.ForAddress(address ?? ServerUri, new GrpcChannelOptions { HttpHandler = chain, DisposeHttpClient = true });
    }

    /// <summary>The handler that sets the connection's :authority, last in a client factory's chain (none when no authority is set).</summary>
    public void AddAuthority(IList<DelegatingHandler> handlers)
    {
        if (Connection.Authority is { } authority)
        {
            handlers.Add(new AuthorityHandler(authority));
        }
    }

    /// <summary>What a generated client's constructor makes of a channel, with the connection's metadata and compression on every call.</summary>
    public CallInvoker CreateInvoker(GrpcChannel channel) => Connection.Intercept(channel.CreateCallInvoker());

    /// <summary>The handler settings every strategy shares; each strategy then states the ones its lesson is about.</summary>
    /// <param name="multipleConnections">Whether the handler may open more HTTP/2 connections when one is full.</param>
    public SocketsHttpHandler CreateHandler(bool multipleConnections = false)
    {
        var handler = ApplyEngineLimits(new SocketsHttpHandler { EnableMultipleHttp2Connections = multipleConnections });
        // The client never drops an idle connection itself, so whether one survives a pause is the server's (lesson 3).
        handler.PooledConnectionIdleTimeout = Timeout.InfiniteTimeSpan;
        return handler;
    }

    /// <summary>
    /// What any handler of the engine gets: a dead address fails within the connect timeout, no proxy or redirect can send
    /// a call elsewhere, and the target's TLS trust and client certificate apply.
    /// </summary>
    public SocketsHttpHandler ApplyEngineLimits(SocketsHttpHandler handler)
    {
        handler.ConnectTimeout = _options.ConnectTimeout;
        handler.UseProxy = false;
        handler.UseCookies = false;
        handler.AllowAutoRedirect = false;
        if (Connection.SslOptions() is { } tls)
        {
            handler.SslOptions = tls;
        }

        return handler;
    }
}

/// <summary>The chapter's wrapper: one channel for the app's life, a new (cheap) client per call.</summary>
public sealed class ClientWrapper(ChannelFactory channels) : IDisposable
{
    // What GrpcChannel.ForAddress sets on a handler it makes itself; a handler passed in has to say it.
    public GrpcChannel Channel { get; } = channels.CreateChannel(channels.CreateHandler(multipleConnections: true));

    /// <summary>A new client's invoker on the one channel (what a generated client's constructor makes), with the connection's metadata.</summary>
    public CallInvoker CreateInvoker() => channels.CreateInvoker(Channel);

    public void Dispose() => Channel.Dispose();
}

/// <summary>
/// The typed client <c>AddGrpcClient</c> makes for the factory-client strategy: a generated client's base with no method
/// of its own, so the factory's invoker (its HttpClient and handler chain) can call whatever method the target names.
/// </summary>
public sealed class TargetClient : ClientBase<TargetClient>
{
    public TargetClient(CallInvoker callInvoker)
        : base(callInvoker)
    {
    }

    private TargetClient(ClientBaseConfiguration configuration)
        : base(configuration)
    {
    }

    public CallInvoker Invoker => CallInvoker;

    protected override TargetClient NewInstance(ClientBaseConfiguration configuration) => new(configuration);
}
