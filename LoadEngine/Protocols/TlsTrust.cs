using System.Net.Security;
using System.Security.Cryptography.X509Certificates;

namespace LoadEngine.Protocols;

/// <summary>
/// TLS that trusts exactly one certificate, the service's own self-signed one (its public PEM): never "accept any", and
/// not the machine's trust store either. The chain is built with that certificate as the only root (so expiry and the
/// host name are still checked), and the certificate presented must be that very certificate.
/// </summary>
public static class TlsTrust
{
    /// <summary>The certificate in a PEM file, or a sentence saying why it could not be read.</summary>
    public static bool TryLoad(string? path, out X509Certificate2 certificate, out string error)
    {
        certificate = null!;
        if (string.IsNullOrWhiteSpace(path) || !File.Exists(path))
        {
            error = $"the certificate file '{path}' does not exist; PerformanceService writes service-certificate.pem into its data folder at its first start.";
            return false;
        }

        try
        {
            certificate = X509Certificate2.CreateFromPem(File.ReadAllText(path));
            error = string.Empty;
            return true;
        }
        catch (Exception invalid) when (invalid is System.Security.Cryptography.CryptographicException or ArgumentException)
        {
            error = $"'{path}' holds no PEM certificate ({invalid.Message}).";
            return false;
        }
    }

    /// <summary>Client options for SocketsHttpHandler.SslOptions; SocketsHttpHandler adds the host name and ALPN itself.</summary>
    public static SslClientAuthenticationOptions TrustOnly(X509Certificate2 trusted)
    {
        var pinned = trusted.RawData;
        return new SslClientAuthenticationOptions
        {
            CertificateChainPolicy = RootedIn([trusted]),
            RemoteCertificateValidationCallback = (_, presented, _, errors) =>
                errors == SslPolicyErrors.None && presented is not null && presented.GetRawCertData().AsSpan().SequenceEqual(pinned),
        };
    }

    /// <summary>A chain policy whose only roots are <paramref name="roots"/>: the system's store is not consulted, the host name and expiry still are.</summary>
    public static X509ChainPolicy RootedIn(X509Certificate2Collection roots)
    {
        // A self-signed certificate has nowhere to publish revocation; checking would only fail or wait.
        var policy = new X509ChainPolicy { TrustMode = X509ChainTrustMode.CustomRootTrust, RevocationMode = X509RevocationMode.NoCheck };
        policy.CustomTrustStore.AddRange(roots);
        return policy;
    }
}
