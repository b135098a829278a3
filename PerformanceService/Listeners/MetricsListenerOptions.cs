using System.ComponentModel.DataAnnotations;

namespace PerformanceService.Listeners;

/// <summary>
/// Where Prometheus scrapes the service (section <c>Metrics</c>). The gRPC port speaks only prior-knowledge HTTP/2 and a
/// Prometheus scrape speaks HTTP/1.1, so <c>/metrics</c> and <c>/health</c> have a cleartext HTTP/1.1 listener of their
/// own, and are served nowhere else.
/// </summary>
public sealed class MetricsListenerOptions
{
    public const string Section = "Metrics";

    /// <summary>Cleartext, HTTP/1.1 only: GET /metrics and /health. Empty turns the listener off (and the service exports no metrics).</summary>
    [ListenUrl("http", "Metrics:Url")]
    public string Url { get; set; } = "http://127.0.0.1:5003";

    /// <summary>The listener's address, or null when it is off.</summary>
    public ListenAddress? Address => ListenAddress.FromSetting(Url, Uri.UriSchemeHttp);
}
