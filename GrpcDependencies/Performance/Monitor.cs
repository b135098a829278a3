using GrpcDependencies.Grpc;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;

namespace Performance;

/// <summary>
/// The client and server sides of service <c>performance.Monitor</c>, shaped like the stubs Grpc.Tools
/// generates (<c>Monitor.MonitorClient</c>, <c>Monitor.MonitorBase</c>) so callers read the same.
/// </summary>
public static class Monitor
{
    public const string ServiceName = "performance.Monitor";
    public const string GetPerformancePath = "/" + ServiceName + "/GetPerformance";
    public const string GetManyPerformanceStatsPath = "/" + ServiceName + "/GetManyPerformanceStats";

    /// <summary>A cheap object: all state lives in the channel, so make one per call if you like.</summary>
    public sealed class MonitorClient(GrpcChannel channel)
    {
        public GrpcChannel Channel { get; } = channel;

        public Task<PerformanceStatusResponse> GetPerformanceAsync(PerformanceStatusRequest request, CallOptions options = default) =>
            ClientCalls.UnaryAsync(Channel, GetPerformancePath, request, PerformanceStatusResponse.Parser, options);

        public AsyncDuplexStreamingCall<PerformanceStatusRequest, PerformanceStatusResponse> GetManyPerformanceStats(CallOptions options = default) =>
            ClientCalls.DuplexStreaming<PerformanceStatusRequest, PerformanceStatusResponse>(Channel, GetManyPerformanceStatsPath, PerformanceStatusResponse.Parser, options);
    }

    public abstract class MonitorBase
    {
        public abstract Task<PerformanceStatusResponse> GetPerformance(PerformanceStatusRequest request, ServerCallContext context);

        public abstract Task GetManyPerformanceStats(
            IAsyncStreamReader<PerformanceStatusRequest> requestStream,
            IServerStreamWriter<PerformanceStatusResponse> responseStream,
            ServerCallContext context);
    }

    /// <summary>
    /// Maps both methods of the service to their gRPC paths. <typeparamref name="TService"/> is resolved once, so
    /// register it as a singleton: a per-request DI scope and delegate would cost every call an allocation.
    /// </summary>
    public static IEndpointConventionBuilder MapMonitorService<TService>(this IEndpointRouteBuilder endpoints)
        where TService : MonitorBase
    {
        var service = endpoints.ServiceProvider.GetRequiredService<TService>();
        RequestDelegate unary = http => ServerCalls.HandleUnaryAsync(http, service, PerformanceStatusRequest.Parser, Methods<TService>.GetPerformance);
        RequestDelegate duplex = http => ServerCalls.HandleDuplexStreamingAsync(http, service, PerformanceStatusRequest.Parser, Methods<TService>.GetManyPerformanceStats);
        var group = endpoints.MapGroup(string.Empty);
        group.MapPost(GetPerformancePath, unary);
        group.MapPost(GetManyPerformanceStatsPath, duplex);
        return group;
    }

    // Made once per service type, so no call allocates a delegate.
    private static class Methods<TService>
        where TService : MonitorBase
    {
        public static readonly Func<TService, PerformanceStatusRequest, ServerCallContext, Task<PerformanceStatusResponse>> GetPerformance =
            (monitor, request, context) => monitor.GetPerformance(request, context);

        public static readonly Func<TService, IAsyncStreamReader<PerformanceStatusRequest>, IServerStreamWriter<PerformanceStatusResponse>, ServerCallContext, Task> GetManyPerformanceStats =
            (monitor, requests, responses, context) => monitor.GetManyPerformanceStats(requests, responses, context);
    }
}
