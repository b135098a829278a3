using System.ComponentModel.DataAnnotations;
using LoadEngine;

namespace ApiGateway.Configuration;

/// <summary>Where the service is. Bound from the root key <c>ServerUrl</c>: appsettings, then environment, then command line.</summary>
public sealed class GatewayOptions : IValidatableObject
{
    [Required(ErrorMessage = "ServerUrl is required: the http:// address of the PerformanceService, e.g. http://127.0.0.1:5000.")]
    public string ServerUrl { get; set; } = string.Empty;

    public Uri GetServerUri() => new(ServerUrl, UriKind.Absolute);

    public IEnumerable<ValidationResult> Validate(ValidationContext validationContext)
    {
        if (!string.IsNullOrWhiteSpace(ServerUrl)
            && !EngineOptions.TryServiceAddress(ServerUrl, out _))
        {
            yield return new ValidationResult(
                $"ServerUrl must be an absolute http:// or https:// address with no path, e.g. http://127.0.0.1:5000; it was '{ServerUrl}'.",
                [nameof(ServerUrl)]);
        }
    }
}

/// <summary>The limits every run obeys. Section <c>Runs</c>.</summary>
public sealed class RunLimitsOptions
{
    public const string Section = "Runs";

    /// <summary>Run every strategy briefly before listening, so the first run measures steady state (off only for tests that start many gateways).</summary>
    public bool WarmUpAtStart { get; set; } = true;

    [Range(1, 10_000_000, ErrorMessage = "Runs:MaxCount must be between 1 and 10000000.")]
    public int MaxCount { get; set; } = PlanLimits.Defaults.MaxCount;

    /// <summary>Most calls in flight at once in one run; "all at once" means this many.</summary>
    [Range(1, 100_000, ErrorMessage = "Runs:MaxConcurrency must be between 1 and 100000.")]
    public int MaxConcurrency { get; set; } = PlanLimits.Defaults.MaxConcurrency;

    [Range(0, 1_000_000, ErrorMessage = "Runs:MaxWarmup must be between 0 and 1000000.")]
    public int MaxWarmup { get; set; } = PlanLimits.Defaults.MaxWarmup;

    /// <summary>
    /// The most memory one run may be estimated to need (its kept statuses, calls in flight and histograms); a plan over
    /// it is refused with 400. Default: a quarter of the memory the GC may use here, at most 4096.
    /// </summary>
    [Range(16, 1_048_576, ErrorMessage = "Runs:MaxRunMemoryMegabytes must be between 16 and 1048576.")]
    public int MaxRunMemoryMegabytes { get; set; } = (int)(RunMemoryEstimate.DefaultLimitBytes / (1024 * 1024));

    /// <summary>Runs (or suites) executing at once; more starts get 429 with Retry-After.</summary>
    [Range(1, 64, ErrorMessage = "Runs:MaxRunsInFlight must be between 1 and 64.")]
    public int MaxRunsInFlight { get; set; } = 2;

    /// <summary>The longest one run may take before it is stopped and stored as failed.</summary>
    [Range(1, 86_400, ErrorMessage = "Runs:MaxRunSeconds must be between 1 and 86400.")]
    public int MaxRunSeconds { get; set; } = PlanLimits.Defaults.MaxRunSeconds;

    /// <summary>Deadline of each call (and the longest a stream may stay silent), so a stuck service cannot hang a run.</summary>
    [Range(0.01, 3600, ErrorMessage = "Runs:CallTimeoutSeconds must be between 0.01 and 3600.")]
    public double CallTimeoutSeconds { get; set; } = 10;

    /// <summary>How long calls may be in flight with none ending, answered or failed, before the run gives up on a hung service and fails.</summary>
    [Range(0.1, 3600, ErrorMessage = "Runs:SilenceSeconds must be between 0.1 and 3600.")]
    public double SilenceSeconds { get; set; } = 5;

    /// <summary>
    /// After a run's calls have succeeded, how long calls whose connections time out or are reset (a storm overflowing the
    /// service's accept queue) may go on with none succeeding before the service counts as gone; refused connections
    /// count after SilenceSeconds.
    /// </summary>
    [Range(0.1, 3600, ErrorMessage = "Runs:ConnectFailureSeconds must be between 0.1 and 3600.")]
    public double ConnectFailureSeconds { get; set; } = 30;

    /// <summary>Calls in a row that may miss their deadline before the run gives up on the service and fails; 0 never gives up.</summary>
    [Range(0, 1_000_000, ErrorMessage = "Runs:MaxConsecutiveTimeouts must be between 0 (never give up) and 1000000.")]
    public int MaxConsecutiveTimeouts { get; set; } = 10;

    [Range(0.01, 120, ErrorMessage = "Runs:ConnectTimeoutSeconds must be between 0.01 and 120.")]
    public double ConnectTimeoutSeconds { get; set; } = 3;
}

/// <summary>
/// The service's other listeners, for the workload runs' contenders. Section <c>Protocols</c>; like ServerUrl, never an
/// address from a request. An empty URL leaves its contenders out (a run naming one is refused, naming the key).
/// </summary>
public sealed class ProtocolsOptions : IValidatableObject
{
    public const string Section = "Protocols";

    /// <summary>Cleartext HTTP/1.1: REST over HTTP/1.1.</summary>
    public string Http1Url { get; set; } = "http://127.0.0.1:5002";

    /// <summary>TLS, HTTP/1.1 and HTTP/2 by ALPN: gRPC and REST over TLS.</summary>
    public string TlsUrl { get; set; } = "https://127.0.0.1:5001";

    /// <summary>The service's public certificate (PEM), the only one TLS contenders trust; relative to the gateway's content root.</summary>
    public string CertificatePath { get; set; } = "../PerformanceService/data/service-certificate.pem";

    public IEnumerable<ValidationResult> Validate(ValidationContext validationContext)
    {
        if (!string.IsNullOrEmpty(Http1Url) && !EngineOptions.TryListenerAddress(Http1Url, Uri.UriSchemeHttp, out _))
        {
            yield return new ValidationResult(
                $"Protocols:Http1Url must be empty (no HTTP/1.1 contenders) or an absolute http:// address with no path, e.g. http://127.0.0.1:5002; it was '{Http1Url}'.",
                [nameof(Http1Url)]);
        }

        if (!string.IsNullOrEmpty(TlsUrl) && !EngineOptions.TryListenerAddress(TlsUrl, Uri.UriSchemeHttps, out _))
        {
            yield return new ValidationResult(
                $"Protocols:TlsUrl must be empty (no TLS contenders) or an absolute https:// address with no path, e.g. https://127.0.0.1:5001; it was '{TlsUrl}'.",
                [nameof(TlsUrl)]);
        }

        if (!string.IsNullOrEmpty(TlsUrl) && string.IsNullOrWhiteSpace(CertificatePath))
        {
            yield return new ValidationResult(
                "Protocols:CertificatePath is required with Protocols:TlsUrl: the service's service-certificate.pem, the only certificate TLS contenders trust.",
                [nameof(CertificatePath)]);
        }
    }

    public Uri? Http1Uri => string.IsNullOrEmpty(Http1Url) ? null : new Uri(Http1Url);

    public Uri? TlsUri => string.IsNullOrEmpty(TlsUrl) ? null : new Uri(TlsUrl);
}
