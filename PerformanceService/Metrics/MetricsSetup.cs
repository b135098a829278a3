using GrpcBestPractices.ServiceDefaults;
using PerformanceService.Listeners;

namespace PerformanceService.Metrics;

public static class MetricsSetup
{
    /// <summary>The framework's meters (requests, connections, process CPU and memory) and grpc-dotnet's server counters.</summary>
    public static WebApplicationBuilder AddServiceMetrics(this WebApplicationBuilder builder)
    {
        builder.AddMetrics("service", GrpcServerCounters.MeterName);
        builder.Services.AddHostedService<GrpcServerCounters>();
        return builder;
    }

    /// <summary>
    /// The metrics listener's own pipeline: GET /metrics and /health, and 404 for anything else. Requests on the workload
    /// listeners never enter it, so neither route exists there.
    /// </summary>
    public static WebApplication UseMetricsListener(this WebApplication app)
    {
        app.MapWhen(MetricsConnection.CameIn, listener =>
        {
            listener.UseMetrics();
            listener.UseHealthChecks("/health");
            listener.Run(context =>
            {
                context.Response.StatusCode = StatusCodes.Status404NotFound;
                return context.Response.WriteAsync($"This listener serves only GET {ServiceMetrics.Path} and GET /health.", context.RequestAborted);
            });
        });
        return app;
    }
}
