using ApiGateway.Endpoints;

namespace ApiGateway.Runs;

/// <summary>The warm-up's report, for GET /api/status and the page; null until the warm-up has run.</summary>
public sealed class WarmupState
{
    public WarmupReport? Report { get; internal set; }
}

/// <summary>What GET /api/status answers: whether the start-up warm-up ran, and the service address the gateway calls.</summary>
public sealed record GatewayStatus(bool Warmed, string Warmup, double WarmupMs, IReadOnlyList<string> WarmedUp, string ServerUrl);

public static partial class GatewayWarmup
{
    /// <summary>
    /// Warms every strategy and contender before the gateway listens, so the first click of the day measures steady state.
    /// Kestrel is not yet started, so nobody can start a run meanwhile; a dead or hung service only skips the warm-up.
    /// </summary>
    public static async Task<WebApplication> WarmUpEngineAsync(this WebApplication app)
    {
        var report = app.Services.GetRequiredService<Microsoft.Extensions.Options.IOptions<Configuration.RunLimitsOptions>>().Value.WarmUpAtStart
            ? await EngineWarmup.RunAsync(app.Services, app.Lifetime.ApplicationStopping)
            : new WarmupReport(false, "Not warmed: Runs:WarmUpAtStart is false, so the first run of each strategy includes start-up costs.", 0, []);
        app.Services.GetRequiredService<WarmupState>().Report = report;
        LogWarmup(app.Logger, report.Warmed ? LogLevel.Information : LogLevel.Warning, report.Summary);
        return app;
    }

    public static IEndpointRouteBuilder MapGatewayStatus(this IEndpointRouteBuilder app)
    {
        app.MapGet("/api/status", (WarmupState warmup, Microsoft.Extensions.Options.IOptions<Configuration.GatewayOptions> gateway) =>
            {
                var report = warmup.Report;
                return TypedResults.Ok(new GatewayStatus(report?.Warmed ?? false, report?.Summary ?? "Not warmed.", report?.DurationMs ?? 0, report?.Ran ?? [], gateway.Value.ServerUrl));
            })
            .WithTags("Runs")
            .WithParameters(RouteParameters.None)
            .WithSummary("Whether the gateway warmed its strategies and contenders at start (so first runs measure steady state), and the service address it calls.");
        return app;
    }

    [LoggerMessage(Message = "{Summary}")]
    private static partial void LogWarmup(ILogger logger, LogLevel level, string summary);
}
