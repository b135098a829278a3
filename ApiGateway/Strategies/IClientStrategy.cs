using ApiGateway.Runs;

namespace ApiGateway.Strategies;

/// <summary>A way of calling the service that one lesson is about.</summary>
public interface IClientStrategy
{
    Task ExecuteAsync(RunContext run);

    /// <summary>One sentence on what exactly was measured, shown beside the figures.</summary>
    string DescribeMeasurement();
}

/// <summary>A concrete strategy states, without an instance, what it is called and what it teaches.</summary>
public interface IDescribedStrategy
{
    static abstract StrategyInfo Info { get; }
}

/// <summary>Name and route segment, the group it belongs to, what it does, the lesson, and the matching section of Microsoft's guide.</summary>
public sealed record StrategyInfo(string Name, string Group, string Summary, string Lesson, string Link)
{
    public string Route => $"/{Group}/{Name}/{{count}}";
}
