using LoadEngine.Calls;
using LoadEngine.Clients;
using LoadEngine.Strategies;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace LoadEngine;

public static class EngineServices
{
    /// <summary>
    /// The client factory's name for the factory-client strategy's client; the chapter's <c>AddGrpcClient&lt;Monitor.MonitorClient&gt;</c>
    /// was named so, and its logging categories (System.Net.Http.HttpClient.MonitorClient.*) keep that name.
    /// </summary>
    public const string FactoryClientName = "MonitorClient";

    /// <summary>
    /// The engine and every strategy of <see cref="StrategyList"/>, keyed by name. The host configures
    /// <see cref="EngineOptions"/> (the service address and limits).
    /// </summary>
    public static IServiceCollection AddLoadEngine(this IServiceCollection services)
    {
        services.AddSingleton<ChannelFactory>();
        // This engine's own mask: the metadata its connection sends is what its target may echo back.
        services.AddSingleton(provider => Targets.TargetText.For(provider.GetRequiredService<IOptions<EngineOptions>>().Value.Connection));
        services.AddSingleton<ClientWrapper>();
        services.AddGrpcClient<TargetClient>(FactoryClientName, (provider, client) => client.Address = provider.GetRequiredService<IOptions<EngineOptions>>().Value.ServerUri)
            // The factory's own primary handler, as a .NET app gets it (multiple HTTP/2 connections on, connections recycled
            // every HandlerLifetime), with only the engine's limits added: a connect timeout, no proxy.
            .ConfigurePrimaryHttpMessageHandler((handler, provider) =>
                provider.GetRequiredService<ChannelFactory>().ApplyEngineLimits((SocketsHttpHandler)handler))
            // The target's :authority, as ChannelFactory's channels set it.
            .ConfigureAdditionalHttpMessageHandlers((handlers, provider) => provider.GetRequiredService<ChannelFactory>().AddAuthority(handlers));
        foreach (var strategy in StrategyList.All)
        {
            if (strategy.OnePerRun)
            {
                services.AddKeyedTransient<IChannelStrategy>(strategy.Info.Name, (provider, _) => strategy.Create(provider));
            }
            else
            {
                services.AddKeyedSingleton<IChannelStrategy>(strategy.Info.Name, (provider, _) => strategy.Create(provider));
            }
        }

        services.AddScoped<RunCallsFactory>();
        services.AddSingleton<Protocols.ServiceDiagnosticsReader>();
        services.AddSingleton<Runs.RunEngine>();
        // The lessons' probes: the arms measured without a run (a keep-alive pause, a payload's sizes).
        services.AddSingleton<Lessons.KeepAliveLesson>();
        services.AddSingleton<Lessons.PayloadLesson>();
        services.AddSingleton<Checkup.CompressionProbe>();
        return services;
    }
}
