namespace ApiGateway.Strategies;

/// <summary>Every strategy the gateway offers, by name, in the order the chapter presents them.</summary>
public sealed class StrategyCatalog
{
    private readonly Dictionary<string, (StrategyInfo Info, Type Type)> _byName = new(StringComparer.Ordinal);

    public IReadOnlyList<StrategyInfo> All => _byName.Values.Select(entry => entry.Info).ToList();

    public IReadOnlyCollection<string> Names => _byName.Keys;

    public StrategyCatalog Add<TStrategy>()
        where TStrategy : IClientStrategy, IDescribedStrategy
    {
        _byName.Add(TStrategy.Info.Name, (TStrategy.Info, typeof(TStrategy)));
        return this;
    }

    public StrategyInfo Info(string name) => _byName[name].Info;

    public IClientStrategy Resolve(string name, IServiceProvider services) =>
        (IClientStrategy)services.GetRequiredService(_byName[name].Type);
}
