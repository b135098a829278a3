using PerformanceService.Metrics;

namespace PerformanceService;

/// <summary>The service's own counters, so a benchmark can measure what a call costs the server (bytes allocated per call) from outside.</summary>
public static class DiagnosticsEndpoint
{
    public sealed record ServiceDiagnostics(long AllocatedBytes, int Gen0Collections, int Gen1Collections, int Gen2Collections, long AcceptedConnections, int ActiveConnections);

    public static IEndpointRouteBuilder MapDiagnostics(this IEndpointRouteBuilder app)
    {
        app.MapGet("/diagnostics", (ConnectionCounter connections) => new ServiceDiagnostics(
            GC.GetTotalAllocatedBytes(precise: true),
            GC.CollectionCount(0),
            GC.CollectionCount(1),
            GC.CollectionCount(2),
            connections.Accepted,
            connections.Active));
        return app;
    }
}
