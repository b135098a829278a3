using Grpc.Net.Client;
using Microsoft.Extensions.Options;

namespace LoadEngine.Clients;

/// <summary>Builds channels to the one configured service address; nothing a request says can point them elsewhere.</summary>
public sealed class MonitorChannelFactory(IOptions<EngineOptions> options)
{
    public Uri ServerUri { get; } = options.Value.ServerUri;

    /// <summary>A channel that owns <paramref name="handler"/>: disposing the channel closes its connections.</summary>
    public GrpcChannel CreateChannel(SocketsHttpHandler handler) =>
        // A handler passed in is the caller's to dispose unless DisposeHttpClient says otherwise: without it a disposed
        // channel left its connection open until the service's idle timeout closed it.
        GrpcChannel.ForAddress(ServerUri, new GrpcChannelOptions { HttpHandler = handler, DisposeHttpClient = true });

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

/// <summary>The chapter's wrapper: one channel for the app's life, a new (cheap) client object per call.</summary>
public sealed class MonitorClientWrapper(MonitorChannelFactory channels) : IDisposable
{
    private readonly GrpcChannel _channel = channels.CreateChannel(WithGrpcDefaults(channels.CreateHandler()));

    public Monitor.MonitorClient CreateClient() => new(_channel);

    public void Dispose() => _channel.Dispose();

    // What GrpcChannel.ForAddress sets on a handler it makes itself; a handler passed in has to say it.
    private static SocketsHttpHandler WithGrpcDefaults(SocketsHttpHandler handler)
    {
        handler.EnableMultipleHttp2Connections = true;
        return handler;
    }
}
