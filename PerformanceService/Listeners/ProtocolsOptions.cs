using System.ComponentModel.DataAnnotations;

namespace PerformanceService.Listeners;

/// <summary>
/// The listeners beside the h2c one from <c>--urls</c> (section <c>Protocols</c>). Cleartext HTTP/1.1 and prior-knowledge
/// HTTP/2 cannot share a port without TLS, so REST over HTTP/1.1 has its own; TLS lets ALPN pick either version.
/// </summary>
public sealed class ProtocolsOptions
{
    public const string Section = "Protocols";

    /// <summary>Cleartext, HTTP/1.1 only (REST; gRPC fails here). Empty turns the listener off.</summary>
    [ListenUrl("http", "Protocols:Http1Url")]
    public string Http1Url { get; set; } = "http://127.0.0.1:5002";

    /// <summary>TLS, HTTP/1.1 and HTTP/2 by ALPN (gRPC and REST). Empty turns the listener off.</summary>
    [ListenUrl("https", "Protocols:TlsUrl")]
    public string TlsUrl { get; set; } = "https://127.0.0.1:5001";

    /// <summary>
    /// Each listener's accept queue: connections the kernel has set up that the service has not accepted yet (Kestrel's
    /// default, 512; Linux caps it at net.core.somaxconn). When it is full, Linux drops new connection attempts
    /// (TcpExtListenOverflows) and clients retry after a second: a connection storm then shows as calls that fail to
    /// connect. A small queue reproduces that with a storm this machine can make.
    /// </summary>
    [Range(1, 65_535, ErrorMessage = "Protocols:ListenBacklog must be between 1 and 65535: how many set-up connections each listener may hold before the service accepts them (default 512).")]
    public int ListenBacklog { get; set; } = 512;

    /// <summary>Where the self-signed certificate is made at first start and kept; relative to the content root.</summary>
    [Required(AllowEmptyStrings = false, ErrorMessage = "Protocols:CertificateFolder must name the folder that keeps the service's certificate (default: data).")]
    public string CertificateFolder { get; set; } = "data";

    /// <summary>The HTTP/1.1 listener's address, or null when it is off.</summary>
    public ListenAddress? Http1Address => ListenAddress.FromSetting(Http1Url, Uri.UriSchemeHttp);

    /// <summary>The TLS listener's address, or null when it is off.</summary>
    public ListenAddress? TlsAddress => ListenAddress.FromSetting(TlsUrl, Uri.UriSchemeHttps);
}
