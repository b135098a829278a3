using System.Text.Json;
using Microsoft.AspNetCore.Diagnostics.HealthChecks;
using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace ApiGateway.History;

/// <summary>
/// The history's part of GET /health: its file is still there (SQLite goes on writing to a deleted file, and all of it is
/// gone at the next start), every ended run is stored, and the write lock can be taken.
/// </summary>
public sealed class HistoryHealthCheck(SqliteRunStore sqlite, DurableRunStore durable) : IHealthCheck
{
    public const string Name = "history";

    private static readonly TimeSpan ProbeWait = TimeSpan.FromMilliseconds(500);

    public async Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default)
    {
        var path = sqlite.DatabasePath;
        if (!File.Exists(path))
        {
            return HealthCheckResult.Unhealthy(
                $"The history file {path} is gone (its file or folder was deleted while the gateway ran): what is stored now is lost when " +
                "the gateway stops. Restart the gateway to create it again.");
        }

        if (durable.PendingCount is > 0 and var waiting)
        {
            return HealthCheckResult.Unhealthy(
                $"{waiting} ended run(s), suite(s) or experiment(s) could not be stored in the history {path} ({durable.PendingError}); " +
                "they are served from memory and written again until the history takes them.");
        }

        try
        {
            await sqlite.ProbeWritableAsync(ProbeWait);
            return HealthCheckResult.Healthy($"The history {path} is present and writable.");
        }
        catch (Exception refused) when (refused is Microsoft.Data.Sqlite.SqliteException or IOException or UnauthorizedAccessException)
        {
            return HealthCheckResult.Unhealthy($"The history {path} cannot be written: {refused.Message}");
        }
    }
}

public static class HistoryHealth
{
    /// <summary>GET /health: 200 when every check is healthy, 503 otherwise; JSON naming each check and what is wrong.</summary>
    public static IEndpointRouteBuilder MapGatewayHealth(this IEndpointRouteBuilder app)
    {
        app.MapHealthChecks("/health", new HealthCheckOptions { ResponseWriter = WriteAsync });
        return app;
    }

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
