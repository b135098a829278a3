namespace PerformanceService.Listeners;

/// <summary>
/// Marks a connection that came in on the metrics listener (<see cref="MetricsListenerOptions"/>). Kestrel hands a
/// connection's features to its requests, so the pipeline can tell a scrape from workload traffic by where it arrived,
/// not by a Host header the client chooses.
/// </summary>
public sealed class MetricsConnection
{
    public static readonly MetricsConnection Instance = new();

    public static bool CameIn(HttpContext context) => context.Features.Get<MetricsConnection>() is not null;
}
