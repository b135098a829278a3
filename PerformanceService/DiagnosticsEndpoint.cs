using PerformanceService.Metrics;

namespace PerformanceService;

/// <summary>
/// The service's own counters, so a benchmark can measure what a call costs the server (bytes allocated per call) and
/// what really reached it (the workload requests by API, HTTP version and TLS version) from outside, before and after a run.
/// </summary>
public static class DiagnosticsEndpoint
{
    public sealed record ServiceDiagnostics(
        long AllocatedBytes,
        int Gen0Collections,
        int Gen1Collections,
        int Gen2Collections,
        long AcceptedConnections,
        int ActiveConnections,
        IReadOnlyList<ProtocolRequests> Protocols);

    public static IEndpointRouteBuilder MapDiagnostics(this IEndpointRouteBuilder app)
    {
        app.MapGet("/diagnostics", (ConnectionCounter connections, ProtocolCounter protocols) => new ServiceDiagnostics(
            GC.GetTotalAllocatedBytes(precise: true),
            GC.CollectionCount(0),
            GC.CollectionCount(1),
            GC.CollectionCount(2),
            connections.Accepted,
            connections.Active,
            protocols.Snapshot()));
        return app;
    }
}
