using Grpc.Core;
using Grpc.Net.Client;
using Microsoft.Extensions.Options;

namespace LoadEngine.Clients;

/// <summary>Builds channels to the one configured service address; nothing a request says can point them elsewhere.</summary>
public sealed class ChannelFactory(IOptions<EngineOptions> options)
{
    public Uri ServerUri { get; } = options.Value.ServerUri;

    /// <summary>A channel to the service (or a listener of it, <paramref name="address"/>) that owns <paramref name="handler"/>: disposing the channel closes its connections.</summary>
    public GrpcChannel CreateChannel(SocketsHttpHandler handler, Uri? address = null) =>
        // A handler passed in is the caller's to dispose unless DisposeHttpClient says otherwise: without it a disposed
        // channel left its connection open until the service's idle timeout closed it.
        GrpcChannel.ForAddress(address ?? ServerUri, new GrpcChannelOptions { HttpHandler = handler, DisposeHttpClient = true });

    /// <summary>The handler settings every strategy shares; each strategy then states the ones its lesson is about.</summary>
    public SocketsHttpHandler CreateHandler()
    {
        var handler = ApplyEngineLimits(new SocketsHttpHandler());
        // The client never drops an idle connection itself, so whether one survives a pause is the server's (lesson 3).
        handler.PooledConnectionIdleTimeout = Timeout.InfiniteTimeSpan;
        return handler;
    }

    /// <summary>What any handler of the engine gets: a dead address fails within the connect timeout, and no proxy or redirect can send a call elsewhere.</summary>
    public SocketsHttpHandler ApplyEngineLimits(SocketsHttpHandler handler)
    {
        handler.ConnectTimeout = options.Value.ConnectTimeout;
        handler.UseProxy = false;
        handler.UseCookies = false;
        handler.AllowAutoRedirect = false;
        return handler;
    }
}

/// <summary>The chapter's wrapper: one channel for the app's life, a new (cheap) client per call.</summary>
public sealed class ClientWrapper(ChannelFactory channels) : IDisposable
{
    public GrpcChannel Channel { get; } = channels.CreateChannel(WithGrpcDefaults(channels.CreateHandler()));

    public void Dispose() => Channel.Dispose();

    // What GrpcChannel.ForAddress sets on a handler it makes itself; a handler passed in has to say it.
    private static SocketsHttpHandler WithGrpcDefaults(SocketsHttpHandler handler)
    {
        handler.EnableMultipleHttp2Connections = true;
        return handler;
    }
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
