using ApiGateway.Configuration;
using LoadEngine;
using Microsoft.Extensions.Options;
using ApiGateway.Endpoints;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;

namespace ApiGateway;

public static partial class GatewaySetup
{
    /// <summary>
    /// Let the shared ArrayPool keep enough buffers for many HTTP/2 streams at once. SocketsHttpHandler buffers
    /// each stream's response in 16 KB blocks from that pool; at 100 calls in flight the default 32 arrays per
    /// partition overflowed and every miss allocated a fresh block (measured: 10.9 KB allocated per call and
    /// 66k calls/s, against 4.7 KB and 87k with 256). The runtime reads this setting only from the environment,
    /// once, when the pool is first used, so this must run first thing in Main; a value the user set wins.
    /// </summary>
    public static void SizeSharedArrayPoolForConcurrentStreams(int arraysPerPartition = 256)
    {
        const string Variable = "DOTNET_SYSTEM_BUFFERS_SHAREDARRAYPOOL_MAXARRAYSPERPARTITION";
        if (string.IsNullOrEmpty(Environment.GetEnvironmentVariable(Variable)))
        {
            Environment.SetEnvironmentVariable(Variable, arraysPerPartition.ToString(System.Globalization.CultureInfo.InvariantCulture));
        }
    }

    public static WebApplicationBuilder AddGatewayOptions(this WebApplicationBuilder builder)
    {
        // ServerUrl is a root key, as the design names it, so it binds from the whole configuration.
        builder.Services.AddOptions<GatewayOptions>()
            .Bind(builder.Configuration)
            .ValidateDataAnnotations()
            .ValidateOnStart();
        builder.Services.AddOptions<RunLimitsOptions>()
            .BindConfiguration(RunLimitsOptions.Section)
            .ValidateDataAnnotations()
            .ValidateOnStart();
        // The engine calls the configured address only, within the configured limits.
        builder.Services.AddOptions<EngineOptions>().Configure<IOptions<GatewayOptions>, IOptions<RunLimitsOptions>>((engine, gateway, limits) =>
        {
            engine.ServerUri = gateway.Value.GetServerUri();
            engine.ConnectTimeout = limits.Value.ConnectTimeout;
            engine.CallTimeout = limits.Value.CallTimeout;
            engine.MaxInFlight = limits.Value.MaxConcurrency;
        });
        return builder;
    }

    /// <summary>
    /// Every route the gateway answers, mapped in one place: Program.cs maps them, and the OpenAPI tests map the same
    /// (on an app that is never started) to check that the document describes each one.
    /// </summary>
    public static IEndpointRouteBuilder MapGatewayEndpoints(this IEndpointRouteBuilder app)
    {
        app.MapStrategyEndpoints();
        app.MapRunApi();
        app.MapRunExport();
        app.MapLessonEndpoints();
        return app;
    }

    /// <summary>Say where to click once Kestrel knows its real addresses (port 0 becomes a real port).</summary>
    public static WebApplication LogSwaggerUrlOnStart(this WebApplication app)
    {
        app.Lifetime.ApplicationStarted.Register(() =>
        {
            var addresses = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()?.Addresses ?? [];
            var gateway = app.Services.GetRequiredService<IOptions<GatewayOptions>>().Value;
            foreach (var address in addresses)
            {
                LogSwagger(app.Logger, address.TrimEnd('/') + "/swagger", gateway.ServerUrl);
            }
        });
        return app;
    }

    [LoggerMessage(Level = LogLevel.Information, Message = "Swagger UI: {SwaggerUrl} (calling the performance service at {ServerUrl})")]
    private static partial void LogSwagger(ILogger logger, string swaggerUrl, string serverUrl);
}
