using LoadEngine.Clients;
using LoadEngine.Runs;
using Microsoft.Extensions.Logging;

namespace LoadEngine.Strategies;

/// <summary>Calls on the client that <c>AddGrpcClient</c> (Grpc.Net.ClientFactory) hands to DI, one per run.</summary>
public sealed class FactoryClientStrategy(TargetClient client, ChannelFactory channels, ILoggerFactory loggers) : IChannelStrategy
{
    public static StrategyInfo Definition { get; } = new(
        "factory-client",
        "Performance",
        "count sequential unary calls on the client that DI made with AddGrpcClient (Grpc.Net.ClientFactory).",
        "The factory keeps one channel per client for the app's life, so the connection is reused; its logging handlers run on every call, which costs time unless their level is raised.",
        "https://learn.microsoft.com/aspnet/core/grpc/clientfactory",
        LoadKind.Sequential);

    public StrategyInfo Info => Definition;

    public string DescribeMeasurement() =>
        "The client AddGrpcClient made: the factory keeps one channel per client name for the app's life (its handler opens multiple HTTP/2 connections " +
        "and recycles them every 2 minutes). Every call passes the factory's handler chain: LoggingScopeHttpMessageHandler formats the request URI and opens " +
        "a log scope, then LoggingHttpMessageHandler; " +
        (loggers.CreateLogger($"System.Net.Http.HttpClient.{EngineServices.FactoryClientName}.LogicalHandler").IsEnabled(LogLevel.Information)
            ? "both write their start and end lines at Information here, so four log lines per call are part of this time."
            : "their start and end lines are filtered here (System.Net.Http.HttpClient below Information), so only the scope and the checks are part of this time.");

    // The factory's own invoker, with the target connection's metadata added as the client's other calls would get it.
    private readonly Grpc.Core.CallInvoker _invoker = channels.Connection.Intercept(client.Invoker);

    public ChannelLease Acquire() => new(_invoker);
}
