using LoadEngine.Clients;
using Microsoft.Extensions.DependencyInjection;

namespace LoadEngine.Strategies;

/// <summary>
/// How to make one strategy. <see cref="OnePerRun"/>: a fresh one for each run, as the chapter's controller got a fresh
/// client from DI per request; otherwise one for the app's life (it holds its channel).
/// </summary>
public sealed record StrategyDefinition(StrategyInfo Info, Func<IServiceProvider, IChannelStrategy> Create, bool OnePerRun = false);

/// <summary>
/// Every strategy, in the order the chapter presents them. This one list drives DI, the gateway's routes, the catalog,
/// the OpenAPI text, the error hints and the CLI: adding a strategy is one line here.
/// </summary>
public static class StrategyList
{
    public static IReadOnlyList<StrategyDefinition> All { get; } =
    [
        new(FactoryClientStrategy.Definition, services => ActivatorUtilities.CreateInstance<FactoryClientStrategy>(services), OnePerRun: true),
        new(ClientWrapperStrategy.Definition, services => ActivatorUtilities.CreateInstance<ClientWrapperStrategy>(services)),
        new(ChannelPerCallStrategy.Definition, services => ActivatorUtilities.CreateInstance<ChannelPerCallStrategy>(services)),
        new(StreamingCallStrategy.Definition, services => ActivatorUtilities.CreateInstance<StreamingCallStrategy>(services)),
        new(SharedChannelStrategy.SingleConnection, services => SharedChannelStrategy.OneConnection(services.GetRequiredService<ChannelFactory>())),
        new(SharedChannelStrategy.MultipleConnections, services => SharedChannelStrategy.ManyConnections(services.GetRequiredService<ChannelFactory>())),
    ];

    public static IReadOnlyList<string> Names { get; } = [.. All.Select(strategy => strategy.Info.Name)];

    public static StrategyInfo? Find(string? name) => All.FirstOrDefault(strategy => strategy.Info.Name == name)?.Info;
}
