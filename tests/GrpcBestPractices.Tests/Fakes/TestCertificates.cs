using System.Net;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace GrpcBestPractices.Tests.Fakes;

/// <summary>Self-signed server certificates for loopback, made as the service makes its own (ECDSA P-256, SAN 127.0.0.1).</summary>
public static class TestCertificates
{
    public static X509Certificate2 SelfSigned(string name)
    {
        using var key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var request = new CertificateRequest($"CN={name}", key, HashAlgorithmName.SHA256);
        var names = new SubjectAlternativeNameBuilder();
        names.AddDnsName("localhost");
        names.AddIpAddress(IPAddress.Loopback);
        request.CertificateExtensions.Add(names.Build());
        request.CertificateExtensions.Add(new X509EnhancedKeyUsageExtension([new Oid("1.3.6.1.5.5.7.3.1")], critical: false));
        return request.CreateSelfSigned(DateTimeOffset.UtcNow.AddDays(-1), DateTimeOffset.UtcNow.AddDays(1));
    }

    /// <summary>The certificate's public part as a PEM file, as the service writes service-certificate.pem.</summary>
    public static string WritePem(X509Certificate2 certificate, string folder)
    {
        var path = Path.Combine(folder, "service-certificate.pem");
        File.WriteAllText(path, certificate.ExportCertificatePem());
        return path;
    }

    /// <summary>A client certificate (EKU client authentication) and its private key as two PEM files, as --cert and --key take them.</summary>
    public static (string Certificate, string Key, string Thumbprint) WriteClientPair(string folder, string name)
    {
        using var key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var request = new CertificateRequest($"CN={name}", key, HashAlgorithmName.SHA256);
        request.CertificateExtensions.Add(new X509EnhancedKeyUsageExtension([new Oid("1.3.6.1.5.5.7.3.2")], critical: false));
        using var certificate = request.CreateSelfSigned(DateTimeOffset.UtcNow.AddDays(-1), DateTimeOffset.UtcNow.AddDays(1));
        var certificatePath = Path.Combine(folder, $"{name}.pem");
        var keyPath = Path.Combine(folder, $"{name}.key");
        File.WriteAllText(certificatePath, certificate.ExportCertificatePem());
        File.WriteAllText(keyPath, key.ExportPkcs8PrivateKeyPem());
        return (certificatePath, keyPath, certificate.Thumbprint);
    }
}
