using System.Security.Cryptography.X509Certificates;
using Microsoft.Extensions.Options;

namespace PerformanceService.Listeners;

/// <summary>The TLS listener's certificate from <see cref="ProtocolsOptions.CertificateFolder"/>, made or reused once per process.</summary>
public sealed partial class ServiceCertificate(IOptions<ProtocolsOptions> options, IHostEnvironment environment, TimeProvider time, ILogger<ServiceCertificate> logger)
{
    private readonly Lazy<X509Certificate2> _certificate = new(() =>
    {
        var store = new CertificateStore(Path.GetFullPath(options.Value.CertificateFolder, environment.ContentRootPath), time);
        var (certificate, origin) = store.LoadOrCreate();
        var until = certificate.NotAfter.ToUniversalTime();
        switch (origin)
        {
            case CertificateOrigin.Created:
                Created(logger, certificate.Thumbprint, until, store.PemPath);
                break;
            case CertificateOrigin.RenewedAfterExpiry:
                Renewed(logger, certificate.Thumbprint, until, store.PemPath);
                break;
            default:
                Reused(logger, certificate.Thumbprint, until, store.PfxPath);
                break;
        }

        return certificate;
    });

    public X509Certificate2 Certificate => _certificate.Value;

    [LoggerMessage(Level = LogLevel.Information, Message = "Made a self-signed certificate for localhost, 127.0.0.1 and ::1 (thumbprint {Thumbprint}, valid until {NotAfter:yyyy-MM-dd}); clients trust {PemPath}")]
    private static partial void Created(ILogger logger, string thumbprint, DateTime notAfter, string pemPath);

    [LoggerMessage(Level = LogLevel.Warning, Message = "The service certificate had expired; made a new one (thumbprint {Thumbprint}, valid until {NotAfter:yyyy-MM-dd}): clients must trust the new {PemPath}")]
    private static partial void Renewed(ILogger logger, string thumbprint, DateTime notAfter, string pemPath);

    [LoggerMessage(Level = LogLevel.Information, Message = "Using the service certificate {Thumbprint} (valid until {NotAfter:yyyy-MM-dd}) from {PfxPath}")]
    private static partial void Reused(ILogger logger, string thumbprint, DateTime notAfter, string pfxPath);
}
