using GrpcDependencies.Grpc;
using Performance;

namespace ApiGateway.Strategies;

/// <summary>Sequential calls on the client DI made from the client factory: pooled handler, plus the factory's logging handlers.</summary>
public sealed class FactoryClientStrategy(Monitor.MonitorClient client, ILoggerFactory loggers) : SequentialUnaryStrategy, IDescribedStrategy
{
    public static StrategyInfo Info { get; } = new(
        "factory-client",
        "Performance",
        "count sequential unary calls on the client that DI made from the HttpClient factory.",
        "The factory pools the handler, so the channel is reused; its logging handlers run on every call, which costs time unless their level is raised.",
        "https://learn.microsoft.com/aspnet/core/grpc/clientfactory");

    public override string DescribeMeasurement() =>
        loggers.CreateLogger($"System.Net.Http.HttpClient.{Clients.MonitorClientRegistration.FactoryClientName}.LogicalHandler").IsEnabled(LogLevel.Information)
            ? "Client factory with its logging handlers writing at Information (several lines per call are part of this time)."
            : "Client factory with its logging handlers filtered (System.Net.Http.HttpClient below Information): their per-call lines are not part of this time.";

    protected override Task<PerformanceStatusResponse> CallAsync(PerformanceStatusRequest request, CallOptions options) =>
        client.GetPerformanceAsync(request, options);
}
