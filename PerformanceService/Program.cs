using GrpcBestPractices.ServiceDefaults;
using PerformanceService;
using PerformanceService.Listeners;
using PerformanceService.Metrics;
using PerformanceService.Services;
using PerformanceService.Workloads;
using Serilog.Events;

return await ServiceHost.RunAsync("service", () =>
{
    var builder = WebApplication.CreateBuilder(args);

    builder.AddServiceDefaults("service", "http://127.0.0.1:5000");
    builder.AddProtocolListeners();
    builder.AddServiceMetrics();
    builder.AddIdleConnectionTimeout();
    builder.AddProcessSampling();
    builder.AddMonitorService();
    builder.AddWorkloads();

    var app = builder.Build().ExitOnInvalidConfiguration();

    app.UseRequestLogging(LogEventLevel.Debug);
    app.UseMetricsListener();
    app.UseMiddleware<WorkloadTrafficMiddleware>();
    app.MapGrpcService<PerformanceMonitor>();
    app.MapGrpcHealthChecksService();
    app.MapGrpcReflectionService();
    app.MapGet("/", () => "performance.Monitor and the workloads (workloads.Workloads, workloads.CodeFirstWorkloads) speak gRPC over HTTP/2 here: use a gRPC client. Server reflection and grpc.health.v1.Health are on. REST workloads: /rest/stj/... and /rest/newtonsoft/...");
    app.MapWorkloads();
    app.MapDiagnostics();
    return Task.FromResult(app);
});
