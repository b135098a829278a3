using ApiGateway.Configuration;
using GrpcDependencies.Grpc;
using Microsoft.Extensions.Options;

namespace ApiGateway.Clients;

public static class MonitorClientRegistration
{
    public const string FactoryClientName = "Monitor";

    /// <summary>
    /// What <c>AddGrpcClient&lt;Monitor.MonitorClient&gt;</c> does (Grpc.Net.ClientFactory is not served here):
    /// a named HttpClientFactory client, with its pooled handler and logging handlers, wrapped in a channel per client.
    /// </summary>
    public static IServiceCollection AddMonitorClients(this IServiceCollection services)
    {
        services.AddSingleton<MonitorChannelFactory>();
        services.AddSingleton<MonitorClientWrapper>();
        services.AddHttpClient(FactoryClientName, (provider, client) =>
            {
                client.BaseAddress = provider.GetRequiredService<IOptions<GatewayOptions>>().Value.GetServerUri();
                // Deadlines bound each call; HttpClient's own 100 s timeout would only mask them.
                client.Timeout = Timeout.InfiniteTimeSpan;
            })
            .ConfigurePrimaryHttpMessageHandler(provider =>
            {
                var handler = provider.GetRequiredService<MonitorChannelFactory>().CreateHandler();
                handler.EnableMultipleHttp2Connections = true;
                return handler;
            });
        services.AddTransient(provider =>
        {
            var httpClient = provider.GetRequiredService<IHttpClientFactory>().CreateClient(FactoryClientName);
            return new Performance.Monitor.MonitorClient(GrpcChannel.ForAddress(
                httpClient.BaseAddress!, new GrpcChannelOptions { HttpClient = httpClient, DisposeHttpClient = false }));
        });
        return services;
    }
}
