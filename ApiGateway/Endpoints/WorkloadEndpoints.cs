using LoadEngine;
using LoadEngine.Protocols;
using Microsoft.Extensions.Options;

namespace ApiGateway.Endpoints;

/// <summary>One workload: what a call does, where it comes from, its defaults, the settings it takes, and the contenders that run it.</summary>
public sealed record WorkloadView(
    string Id, string Title, string What, string Source, int DefaultCount, string DefaultLoad, IReadOnlyList<WorkloadParameter> Parameters, IReadOnlyList<string> Contenders);

/// <summary>
/// One contender, its four fields as a run request names them, and whether this gateway can run it: its listener is
/// configured and, under TLS, the service's certificate is there (otherwise <see cref="Unavailable"/> says what is missing).
/// </summary>
public sealed record ContenderView(
    string Name, string Label, string Protocol, string Serializer, string HttpVersion, string Security, bool Available, string? Unavailable);

public sealed record WorkloadCatalog(IReadOnlyList<WorkloadView> Workloads, IReadOnlyList<ContenderView> Contenders);

/// <summary>GET /api/workloads: the workloads and the valid contenders, from their two lists.</summary>
public static class WorkloadEndpoints
{
    public static IEndpointRouteBuilder MapWorkloadEndpoints(this IEndpointRouteBuilder app)
    {
        app.MapGet("/api/workloads", (IOptions<EngineOptions> engine) => TypedResults.Ok(Catalog(engine.Value)))
            .WithTags("Protocols")
            .WithSummary("The workloads of the published gRPC-vs-REST benchmarks and the 12 contenders that run them: start one with POST /api/runs.")
            .WithDescription("Each workload: id, what one call does, the study it comes from, its default count and load, the settings it takes " +
                "(name, what, allowed, default) and its contenders. Each contender: its name (a run's strategy), label, the four fields a run names, " +
                "and whether this gateway can run it (its listener configured under Protocols:*, and the service's certificate for TLS).")
            .WithParameters(RouteParameters.None);
        return app;
    }

    public static WorkloadCatalog Catalog(EngineOptions engine) => new(
        [
            .. WorkloadList.All.Select(workload => new WorkloadView(
                workload.Id, workload.Title, workload.What, workload.Source, workload.DefaultCount, RunPlanRules.Name(workload.DefaultLoad), workload.Parameters,
                ContenderList.Names)),
        ],
        [
            .. ContenderList.All.Select(contender =>
            {
                var available = WorkloadTargets.Check(contender, engine, out var unavailable);
                return new ContenderView(
                    contender.Name, contender.Label, WireNames<ApiProtocol>.Name(contender.Protocol), WireNames<PayloadSerializer>.Name(contender.Serializer),
                    WireNames<WireVersion>.Name(contender.HttpVersion), WireNames<WireSecurity>.Name(contender.Security), available, available ? null : unavailable);
            }),
        ]);
}
