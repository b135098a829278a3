using GrpcBestPractices.ServiceDefaults;
using ApiGateway.Comparisons;
using ApiGateway.Configuration;
using LoadEngine;
using LoadEngine.Protocols;
using Microsoft.Extensions.Options;
using ApiGateway.Endpoints;
using ApiGateway.Checkups;
using ApiGateway.Lessons;
using ApiGateway.Runs;
using ApiGateway.Security;
using ApiGateway.Targets;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;

namespace ApiGateway;

public static partial class GatewaySetup
{
    public static WebApplicationBuilder AddGatewayOptions(this WebApplicationBuilder builder)
    {
        // ServerUrl is a root key, as the design names it, so it binds from the whole configuration.
        builder.Services.AddOptions<GatewayOptions>()
            .Bind(builder.Configuration)
            .ValidateDataAnnotations()
            .ValidateOnStart();
        builder.Services.AddValidatedOptions<RunLimitsOptions>(RunLimitsOptions.Section);
        builder.Services.AddValidatedOptions<ProtocolsOptions>(ProtocolsOptions.Section);
        // The engine calls the configured addresses only, within the configured limits.
        builder.Services.AddOptions<EngineOptions>().Configure<IOptions<GatewayOptions>, IOptions<RunLimitsOptions>, IOptions<ProtocolsOptions>, IHostEnvironment>(
            (engine, gateway, limits, protocols, environment) =>
            {
                engine.ServerUri = gateway.Value.GetServerUri();
                engine.ConnectTimeout = TimeSpan.FromSeconds(limits.Value.ConnectTimeoutSeconds);
                engine.CallTimeout = TimeSpan.FromSeconds(limits.Value.CallTimeoutSeconds);
                engine.SilenceTimeout = TimeSpan.FromSeconds(limits.Value.SilenceSeconds);
                engine.ConnectFailureWindow = TimeSpan.FromSeconds(limits.Value.ConnectFailureSeconds);
                engine.MaxConsecutiveTimeouts = limits.Value.MaxConsecutiveTimeouts;
                engine.MaxInFlight = limits.Value.MaxConcurrency;
                engine.Http1Uri = protocols.Value.Http1Uri;
                engine.TlsUri = protocols.Value.TlsUri;
                engine.TrustedCertificatePath = string.IsNullOrWhiteSpace(protocols.Value.CertificatePath)
                    ? null
                    : Path.GetFullPath(protocols.Value.CertificatePath, environment.ContentRootPath);
                engine.SettingNames = ListenerSettingNames.Gateway;
            });
        return builder;
    }

    /// <summary>
    /// Every route the gateway answers, mapped in one place: Program.cs maps them, and the OpenAPI tests map the same
    /// (on an app that is never started) to check that the document describes each one.
    /// </summary>
    public static IEndpointRouteBuilder MapGatewayEndpoints(this IEndpointRouteBuilder app)
    {
        // Beyond loopback each of them needs the key, reads and event streams as much as work (docs/security.md).
        var routes = app.MapGroup("").NeedsKeyBeyondLoopback();
        routes.MapStrategyEndpoints();
        routes.MapRunApi();
        routes.MapRunExport();
        routes.MapLessonApi();
        routes.MapCheckupApi();
        routes.MapGatewayStatus();
        routes.MapWorkloadEndpoints();
        routes.MapComparisonEndpoints();
        routes.MapTargetEndpoints();
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
