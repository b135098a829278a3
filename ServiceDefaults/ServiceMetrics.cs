using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;

namespace GrpcBestPractices.ServiceDefaults;

/// <summary>
/// OpenTelemetry metrics the same way in both apps, served for Prometheus to scrape at <see cref="Path"/>: the meters
/// ASP.NET Core and Kestrel publish, the runtime's (process CPU time and working set, GC, thread pool), and the app's own.
/// An instrument no exporter listens to records nothing, so an app pays only for the meters named here.
/// </summary>
public static class ServiceMetrics
{
    public const string Path = "/metrics";

    /// <summary>The framework's meters and <paramref name="meters"/>, exported in Prometheus' text format, labelled with <paramref name="application"/>.</summary>
    public static WebApplicationBuilder AddMetrics(this WebApplicationBuilder builder, string application, params string[] meters)
    {
        builder.Services.AddOpenTelemetry()
            .ConfigureResource(resource => resource.AddService(application))
            .WithMetrics(metrics => metrics
                // Published by the framework itself: requests and connections, and "System.Runtime" (.NET 9 and later), whose
                // dotnet.process.cpu.time and dotnet.process.memory.working_set are the process's CPU and memory.
                .AddMeter(["Microsoft.AspNetCore.Hosting", "Microsoft.AspNetCore.Server.Kestrel", "System.Runtime", .. meters])
                .AddPrometheusExporter());
        return builder;
    }

    /// <summary>GET /metrics on the app's own listeners, left out of the OpenAPI document as /health is.</summary>
    public static IEndpointConventionBuilder MapMetrics(this IEndpointRouteBuilder app) =>
        app.MapPrometheusScrapingEndpoint(Path).ExcludeFromDescription();

    /// <summary>GET /metrics as middleware, for a pipeline branch that serves it on one listener only.</summary>
    public static IApplicationBuilder UseMetrics(this IApplicationBuilder branch) =>
        branch.UseOpenTelemetryPrometheusScrapingEndpoint(context => context.Request.Path == Path);
}
