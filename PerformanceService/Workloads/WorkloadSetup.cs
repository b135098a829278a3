using GrpcBestPractices.ServiceDefaults;
using PerformanceService.Metrics;
using ProtoBuf.Grpc.Server;
using Workloads;

namespace PerformanceService.Workloads;

/// <summary>
/// The workloads of the published gRPC-vs-REST benchmarks, served four ways from the same answers: contract-first gRPC,
/// code-first gRPC (protobuf-net.Grpc), REST with System.Text.Json (minimal APIs) and REST with Newtonsoft.Json (MVC).
/// </summary>
public static class WorkloadSetup
{
    public static WebApplicationBuilder AddWorkloads(this WebApplicationBuilder builder)
    {
        builder.Services.AddValidatedOptions<WorkloadOptions>(WorkloadOptions.Section);
        builder.Services.AddSingleton<ProtocolCounter>();
        // Registered, grpc-dotnet resolves each service from DI for each call instead of constructing one per call.
        builder.Services.AddSingleton<ContractFirstWorkloadsService>();
        builder.Services.AddSingleton<CodeFirstWorkloadsService>();
        builder.Services.AddCodeFirstGrpc();
        builder.Services.AddControllers().AddNewtonsoftJson(json => WorkloadNewtonsoft.Configure(json.SerializerSettings));
        return builder.BoundUploadReadAhead();
    }

    public static WebApplication MapWorkloads(this WebApplication app)
    {
        app.MapGrpcService<ContractFirstWorkloadsService>();
        app.MapGrpcService<CodeFirstWorkloadsService>();
        app.MapStjWorkloads();
        app.MapControllers();
        return app;
    }
}
