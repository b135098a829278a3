using System.Text.Json;
using Microsoft.AspNetCore.Diagnostics.HealthChecks;
using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace ApiGateway.History;

/// <summary>
/// The history's part of GET /health: every ended run is stored, and the store takes writes now (the SQLite file is
/// there and its lock free; the PostgreSQL server answers).
/// </summary>
public sealed class HistoryHealthCheck(RunStore history, DurableRunStore durable) : IHealthCheck
{
    public const string Name = "history";

    private static readonly TimeSpan ProbeWait = TimeSpan.FromMilliseconds(500);

    public async Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default)
    {
        if (durable.PendingCount is > 0 and var waiting)
        {
            return HealthCheckResult.Unhealthy(
                $"{waiting} ended run(s), suite(s) or experiment(s) could not be stored in the history {history.Location} ({durable.PendingError}); " +
                "they are served from memory and written again until the history takes them.");
        }

        return await history.ProbeAsync(ProbeWait, cancellationToken) is { } problem
            ? HealthCheckResult.Unhealthy(problem)
            : HealthCheckResult.Healthy($"The history {history.Location} is present and writable.");
    }
}

public static class HistoryHealth
{
    /// <summary>GET /health: 200 when every check is healthy, 503 otherwise; JSON naming each check and what is wrong.</summary>
    public static IEndpointConventionBuilder MapGatewayHealth(this IEndpointRouteBuilder app) =>
        app.MapHealthChecks("/health", new HealthCheckOptions { ResponseWriter = WriteAsync });

    private static Task WriteAsync(HttpContext context, HealthReport report)
    {
        context.Response.ContentType = "application/json";
        return JsonSerializer.SerializeAsync(context.Response.Body, new
        {
            status = report.Status.ToString(),
            checks = report.Entries.Select(entry => new { name = entry.Key, status = entry.Value.Status.ToString(), description = entry.Value.Description }),
        }, cancellationToken: context.RequestAborted);
    }
}
