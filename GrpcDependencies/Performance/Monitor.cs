using GrpcDependencies.Grpc;
using Microsoft.AspNetCore.Builder;
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

    /// <summary>Maps both methods of the service to their gRPC paths; <typeparamref name="TService"/> comes from DI.</summary>
    public static IEndpointConventionBuilder MapMonitorService<TService>(this IEndpointRouteBuilder endpoints)
        where TService : MonitorBase
    {
        var group = endpoints.MapGroup(string.Empty);
        group.MapPost(GetPerformancePath, http => ServerCalls.HandleUnaryAsync(
            http, PerformanceStatusRequest.Parser, http.RequestServices.GetRequiredService<TService>().GetPerformance));
        group.MapPost(GetManyPerformanceStatsPath, http => ServerCalls.HandleDuplexStreamingAsync<PerformanceStatusRequest, PerformanceStatusResponse>(
            http, PerformanceStatusRequest.Parser, http.RequestServices.GetRequiredService<TService>().GetManyPerformanceStats));
        return group;
    }
}
