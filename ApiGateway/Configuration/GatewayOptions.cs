using System.ComponentModel.DataAnnotations;

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
            && (!Uri.TryCreate(ServerUrl, UriKind.Absolute, out var uri) || (uri.Scheme != Uri.UriSchemeHttp && uri.Scheme != Uri.UriSchemeHttps)
                || uri.AbsolutePath != "/" || !string.IsNullOrEmpty(uri.Query)))
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

    [Range(1, 10_000_000, ErrorMessage = "Runs:MaxCount must be between 1 and 10000000.")]
    public int MaxCount { get; set; } = 100_000;

    /// <summary>Deadline of each call (and the longest a stream may stay silent), so a stuck service cannot hang a run.</summary>
    [Range(0.01, 3600, ErrorMessage = "Runs:CallTimeoutSeconds must be between 0.01 and 3600.")]
    public double CallTimeoutSeconds { get; set; } = 10;

    [Range(0.01, 120, ErrorMessage = "Runs:ConnectTimeoutSeconds must be between 0.01 and 120.")]
    public double ConnectTimeoutSeconds { get; set; } = 3;

    public TimeSpan CallTimeout => TimeSpan.FromSeconds(CallTimeoutSeconds);

    public TimeSpan ConnectTimeout => TimeSpan.FromSeconds(ConnectTimeoutSeconds);
}
