using System.Net;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace PerformanceService.Listeners;

/// <summary>How <see cref="CertificateStore.LoadOrCreate"/> came by the certificate.</summary>
public enum CertificateOrigin
{
    Reused,
    Created,
    RenewedAfterExpiry,
}

/// <summary>
/// The service's TLS certificate in one folder: made once, self-signed (ECDSA P-256; SAN localhost, 127.0.0.1 and ::1;
/// one year), kept as <see cref="PfxName"/> (with its private key, readable by the owner only) and <see cref="PemName"/>
/// (the public certificate, what a client trusts); every later start reuses the pair until it expires.
/// </summary>
public sealed class CertificateStore(string folder, TimeProvider time)
{
    public const string PfxName = "service-certificate.pfx";
    public const string PemName = "service-certificate.pem";
    public const UnixFileMode OwnerOnly = UnixFileMode.UserRead | UnixFileMode.UserWrite;

    public string PfxPath { get; } = Path.Combine(folder, PfxName);

    public string PemPath { get; } = Path.Combine(folder, PemName);

    public (X509Certificate2 Certificate, CertificateOrigin Origin) LoadOrCreate()
    {
        CreateFolder();
        var origin = CertificateOrigin.Created;
        if (File.Exists(PfxPath))
        {
            var kept = Load();
            if (kept.NotAfter.ToUniversalTime() > time.GetUtcNow().UtcDateTime)
            {
                KeepOwnerOnly(PfxPath);
                return (WritePem(kept, replace: false), CertificateOrigin.Reused);
            }

            kept.Dispose();
            origin = CertificateOrigin.RenewedAfterExpiry;
        }

        using (var made = Create(time.GetUtcNow()))
        {
            // Written beside and moved into place, so a crash never leaves half a file; if another process starting at
            // the same moment got there first, its certificate is the one to use.
            var replace = origin == CertificateOrigin.RenewedAfterExpiry;
            if (!Publish(PfxPath, made.Export(X509ContentType.Pkcs12), OwnerOnly, replace))
            {
                origin = CertificateOrigin.Reused;
            }
        }

        // Served exactly as it is on disk, so what a client trusts is what the listener presents.
        return (WritePem(Load(), replace: true), origin);
    }

    private static X509Certificate2 Create(DateTimeOffset now)
    {
        using var key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var request = new CertificateRequest("CN=localhost, O=GrpcBestPractices PerformanceService", key, HashAlgorithmName.SHA256);
        var names = new SubjectAlternativeNameBuilder();
        names.AddDnsName("localhost");
        names.AddIpAddress(IPAddress.Loopback);
        names.AddIpAddress(IPAddress.IPv6Loopback);
        request.CertificateExtensions.Add(names.Build());
        request.CertificateExtensions.Add(new X509BasicConstraintsExtension(certificateAuthority: false, hasPathLengthConstraint: false, pathLengthConstraint: 0, critical: true));
        request.CertificateExtensions.Add(new X509KeyUsageExtension(X509KeyUsageFlags.DigitalSignature, critical: true));
        request.CertificateExtensions.Add(new X509EnhancedKeyUsageExtension([new Oid("1.3.6.1.5.5.7.3.1", "Server Authentication")], critical: false));
        request.CertificateExtensions.Add(new X509SubjectKeyIdentifierExtension(request.PublicKey, critical: false));
        // A few minutes back, so a client whose clock is slightly behind does not see a certificate from the future.
        return request.CreateSelfSigned(now.AddMinutes(-5), now.AddYears(1));
    }

    private X509Certificate2 Load()
    {
        X509Certificate2 certificate;
        try
        {
            certificate = X509CertificateLoader.LoadPkcs12FromFile(PfxPath, password: null);
        }
        catch (CryptographicException unreadable)
        {
            throw new InvalidOperationException(
                $"{PfxPath} cannot be read as a certificate ({unreadable.Message}); delete it and {PemName} beside it, and the next start makes a new pair.", unreadable);
        }

        if (!certificate.HasPrivateKey)
        {
            certificate.Dispose();
            throw new InvalidOperationException($"{PfxPath} holds no private key, so TLS cannot use it; delete it and {PemName} beside it, and the next start makes a new pair.");
        }

        return certificate;
    }

    private void CreateFolder()
    {
        if (OperatingSystem.IsWindows())
        {
            Directory.CreateDirectory(folder);
        }
        else
        {
            Directory.CreateDirectory(folder, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
        }
    }

    /// <summary>The public certificate beside the key, written unless it is there and <paramref name="replace"/> is false.</summary>
    private X509Certificate2 WritePem(X509Certificate2 certificate, bool replace)
    {
        if (replace || !File.Exists(PemPath))
        {
            Publish(PemPath, System.Text.Encoding.ASCII.GetBytes(certificate.ExportCertificatePem()), null, replace: true);
        }

        return certificate;
    }

    /// <summary>Writes <paramref name="path"/> whole or not at all; false when it exists and <paramref name="replace"/> is false.</summary>
    private static bool Publish(string path, byte[] content, UnixFileMode? mode, bool replace)
    {
        var temporary = $"{path}.{Guid.NewGuid():N}.tmp";
        var options = new FileStreamOptions { Mode = FileMode.CreateNew, Access = FileAccess.Write };
        if (mode is { } unixMode && !OperatingSystem.IsWindows())
        {
            options.UnixCreateMode = unixMode;
        }

        using (var file = new FileStream(temporary, options))
        {
            file.Write(content);
        }

        try
        {
            File.Move(temporary, path, overwrite: replace);
            return true;
        }
        catch (IOException) when (!replace && File.Exists(path))
        {
            File.Delete(temporary);
            return false;
        }
    }

    // A copy or an unpacked archive may have widened the private key's file; only the owner may read it.
    private static void KeepOwnerOnly(string path)
    {
        if (!OperatingSystem.IsWindows() && File.GetUnixFileMode(path) != OwnerOnly)
        {
            File.SetUnixFileMode(path, OwnerOnly);
        }
    }
}
