using ApiGateway.Configuration;
using GrpcDependencies.Grpc;
using Microsoft.Extensions.Options;

namespace ApiGateway.Clients;

/// <summary>Builds channels to the one configured service address; nothing a request says can point them elsewhere.</summary>
public sealed class MonitorChannelFactory(IOptions<GatewayOptions> gateway, IOptions<RunLimitsOptions> limits)
{
    public Uri ServerUri { get; } = gateway.Value.GetServerUri();

    public GrpcChannel CreateChannel(SocketsHttpHandler handler) =>
        GrpcChannel.ForAddress(ServerUri, new GrpcChannelOptions { HttpHandler = handler, DisposeHttpClient = true });

    /// <summary>The handler settings every strategy shares; each strategy then states the ones its lesson is about.</summary>
    public SocketsHttpHandler CreateHandler() => new()
    {
        ConnectTimeout = limits.Value.ConnectTimeout,
        PooledConnectionIdleTimeout = Timeout.InfiniteTimeSpan,
        UseProxy = false,
        UseCookies = false,
        AllowAutoRedirect = false,
    };
}

/// <summary>The chapter's wrapper: one channel for the app's life, a new (cheap) client object per call.</summary>
public sealed class MonitorClientWrapper(MonitorChannelFactory channels) : IDisposable
{
    private readonly GrpcChannel _channel = channels.CreateChannel(WithGrpcDefaults(channels.CreateHandler()));

    public Performance.Monitor.MonitorClient CreateClient() => new(_channel);

    public void Dispose() => _channel.Dispose();

    private static SocketsHttpHandler WithGrpcDefaults(SocketsHttpHandler handler)
    {
        handler.EnableMultipleHttp2Connections = true;
        return handler;
    }
}
