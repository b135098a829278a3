using System.Net.Security;
using System.Net.Sockets;
using System.Security.Authentication;
using System.Security.Cryptography.X509Certificates;

namespace GrpcBestPractices.Tests.WorkloadService;

/// <summary>TLS to the service as a careful client does it: trusting exactly the service's PEM as the only root, never "accept any".</summary>
public static class ServiceTls
{
    public static X509Certificate2 Pem(string certificateFolder) =>
        X509Certificate2.CreateFromPem(File.ReadAllText(Path.Combine(certificateFolder, PerformanceService.Listeners.CertificateStore.PemName)));

    public static X509ChainPolicy TrustOnly(X509Certificate2 root) => new()
    {
        TrustMode = X509ChainTrustMode.CustomRootTrust,
        CustomTrustStore = { root },
        RevocationMode = X509RevocationMode.NoCheck,
    };

    /// <summary>A handler for HttpClient and GrpcChannel whose TLS trusts only <paramref name="root"/>.</summary>
    public static SocketsHttpHandler Handler(X509Certificate2 root) => new()
    {
        SslOptions = new SslClientAuthenticationOptions { CertificateChainPolicy = TrustOnly(root) },
    };

    /// <summary>A bare TLS handshake offering <paramref name="protocols"/> by ALPN: what the listener chose, and with which certificate.</summary>
    public static async Task<(string Alpn, SslProtocols Tls, string Thumbprint)> HandshakeAsync(Uri address, X509Certificate2 root, params SslApplicationProtocol[] protocols)
    {
        using var tcp = new TcpClient();
        await tcp.ConnectAsync(address.Host, address.Port);
        await using var tls = new SslStream(tcp.GetStream());
        await tls.AuthenticateAsClientAsync(new SslClientAuthenticationOptions
        {
            TargetHost = address.Host,
            ApplicationProtocols = [.. protocols],
            CertificateChainPolicy = TrustOnly(root),
        });
        return (tls.NegotiatedApplicationProtocol.ToString(), tls.SslProtocol, tls.RemoteCertificate!.GetCertHashString());
    }
}
