using ApiGateway.Configuration;
using Microsoft.Extensions.Options;

namespace ApiGateway.Clients;

public static class MonitorClientRegistration
{
    /// <summary>The client factory's name for the client <c>AddGrpcClient&lt;Monitor.MonitorClient&gt;</c> registers.</summary>
    public const string FactoryClientName = nameof(Monitor.MonitorClient);

    public static IServiceCollection AddMonitorClients(this IServiceCollection services)
    {
        services.AddSingleton<MonitorChannelFactory>();
        services.AddSingleton<MonitorClientWrapper>();
        services.AddGrpcClient<Monitor.MonitorClient>((provider, client) => client.Address = provider.GetRequiredService<IOptions<GatewayOptions>>().Value.GetServerUri())
            // The factory's own primary handler, as a .NET app gets it (multiple HTTP/2 connections on, connections recycled
            // every HandlerLifetime), with only the gateway's limits added: a connect timeout, no proxy.
            .ConfigurePrimaryHttpMessageHandler((handler, provider) =>
                provider.GetRequiredService<MonitorChannelFactory>().ApplyGatewayLimits((SocketsHttpHandler)handler));
        return services;
    }
}
