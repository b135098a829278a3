using ApiGateway;
using ApiGateway.Agents;
using ApiGateway.Endpoints;
using ApiGateway.Errors;
using ApiGateway.History;
using ApiGateway.OpenApi;
using ApiGateway.Page;
using ApiGateway.Runs;
using ApiGateway.Security;
using GrpcBestPractices.ServiceDefaults;
using LoadEngine;
using LoadEngine.Metrics;

EngineProcess.SizeSharedArrayPoolForConcurrentStreams();
return await ServiceHost.RunAsync("gateway", async () =>
{
    var builder = WebApplication.CreateBuilder(args);

    builder.AddServiceDefaults("gateway", "http://127.0.0.1:5080");
    builder.AddMetrics("gateway", EngineMetrics.MeterName, RunMetrics.MeterName);
    builder.AddGatewayOptions();
    builder.AddAllowedHosts();
    builder.AddWorkAccess();
    builder.AddSlowClientLimits();
    builder.AddRunHistory();
    builder.AddAgentRuns();
    builder.Services.AddStrategies();
    builder.Services.AddRunViews();
    builder.Services.AddProblemResponses();
    builder.Services.AddRequestBodies();
    builder.Services.AddSwaggerDocs();

    var app = builder.Build().ExitOnInvalidConfiguration();
    await app.EnsureHistoryWritableAsync();
    await app.EnsureAgentTablesAsync();
    await app.WarmUpEngineAsync();

    app.UseRequestLogging();
    app.UseAllowedHosts();
    app.UseDashboardPage();
    app.UseExceptionHandler();
    app.UseStatusCodePages();
    // The page's files (above) and Swagger UI with its document hold no data, so they load before a key is typed.
    app.UseSwaggerDocs();
    app.UseWorkAccess();
    app.UseRequestBodies();
    app.MapGatewayEndpoints();
    // Probes and scrapers: no plan, data or answer in either, so no key beyond loopback.
    app.MapGatewayHealth().AllowAnonymous();
    app.MapMetrics().AllowAnonymous();
    app.LogSwaggerUrlOnStart();
    return app;
});
