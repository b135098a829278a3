using GrpcDependencies.Hosting;
using Performance;
using PerformanceService;
using PerformanceService.Services;

var builder = WebApplication.CreateBuilder(args);

builder.AddSerilogLogging();
builder.UseLoopbackByDefault("http://127.0.0.1:5000");
builder.AddHttp2OnlyKestrelWithConnectionCounting();
builder.AddIdleConnectionTimeout();
builder.AddProcessSampling();
builder.Services.AddSingleton<PerformanceMonitor>();

var app = builder.Build().ExitOnInvalidConfiguration();

app.UseRequestLogging(LogLevel.Debug);
app.MapMonitorService<PerformanceMonitor>();
app.MapGet("/", () => "performance.Monitor speaks gRPC over HTTP/2 (h2c) here; use a gRPC client.");
app.MapDiagnostics();

app.Run();
