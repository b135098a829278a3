using System.Net;
using System.Net.Security;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace GrpcBestPractices.Tests.Infrastructure;

/// <summary>
/// A certificate authority of its own and the certificates it signs, as PEM files in a temporary folder: the server's
/// (127.0.0.1, localhost and <see cref="ServerName"/>, for --authority), a client's for mTLS, and a stranger's signed by
/// another authority the server does not trust.
/// </summary>
public sealed class InteropCertificates : IDisposable
{
    /// <summary>A name only the server's certificate carries: a client that connects to 127.0.0.1 may name it as the authority.</summary>
    public const string ServerName = "inventory.test";

    public const string ClientName = "interop-client";

    private static readonly Oid ServerAuthentication = new("1.3.6.1.5.5.7.3.1");
    private static readonly Oid ClientAuthentication = new("1.3.6.1.5.5.7.3.2");
    private readonly TemporaryFolder _folder = new();

    public InteropCertificates()
    {
        using var authority = CreateAuthority("Interop Test CA");
        using var stranger = CreateAuthority("Stranger CA");
        Authority = X509CertificateLoader.LoadCertificate(authority.RawData);
        CaPath = Write("ca.pem", authority.ExportCertificatePem());
        (ServerCertificatePath, ServerKeyPath) = Issue(authority, "server", ServerName, ServerAuthentication, ["localhost", ServerName]);
        (ClientCertificatePath, ClientKeyPath) = Issue(authority, "client", ClientName, ClientAuthentication, []);
        (StrangerCertificatePath, StrangerKeyPath) = Issue(stranger, "stranger", "stranger", ClientAuthentication, []);
    }

    /// <summary>The authority's certificate (public part): what a client trusts.</summary>
    public X509Certificate2 Authority { get; }

    public string CaPath { get; }

    public string ServerCertificatePath { get; }

    public string ServerKeyPath { get; }

    public string ClientCertificatePath { get; }

    public string ClientKeyPath { get; }

    /// <summary>A client certificate signed by an authority the server does not know.</summary>
    public string StrangerCertificatePath { get; }

    public string StrangerKeyPath { get; }

    /// <summary>An HTTP/2 handler that trusts exactly this authority and presents the client certificate it is given (PEM paths), if any.</summary>
    public SocketsHttpHandler Handler(string? clientCertificatePath = null, string? clientKeyPath = null)
    {
        var ssl = new SslClientAuthenticationOptions { RemoteCertificateValidationCallback = TrustsAuthority };
        if (clientCertificatePath is not null)
        {
            using var pem = X509Certificate2.CreateFromPemFile(clientCertificatePath, clientKeyPath);
            // A PEM key is ephemeral; TLS client authentication wants it as a loaded PKCS#12.
            ssl.ClientCertificates = [X509CertificateLoader.LoadPkcs12(pem.Export(X509ContentType.Pkcs12), null)];
        }

        return new SocketsHttpHandler { SslOptions = ssl, EnableMultipleHttp2Connections = false };
    }

    public void Dispose()
    {
        Authority.Dispose();
        _folder.Dispose();
    }

    private bool TrustsAuthority(object sender, X509Certificate? certificate, X509Chain? _, SslPolicyErrors errors)
    {
        if (certificate is null || errors.HasFlag(SslPolicyErrors.RemoteCertificateNameMismatch))
        {
            return false;
        }

        using var chain = new X509Chain();
        chain.ChainPolicy.TrustMode = X509ChainTrustMode.CustomRootTrust;
        chain.ChainPolicy.CustomTrustStore.Add(Authority);
        chain.ChainPolicy.RevocationMode = X509RevocationMode.NoCheck;
        using var served = X509CertificateLoader.LoadCertificate(certificate.GetRawCertData());
        return chain.Build(served);
    }

    private static X509Certificate2 CreateAuthority(string name)
    {
        using var key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var request = new CertificateRequest($"CN={name}", key, HashAlgorithmName.SHA256);
        request.CertificateExtensions.Add(new X509BasicConstraintsExtension(certificateAuthority: true, hasPathLengthConstraint: true, pathLengthConstraint: 0, critical: true));
        request.CertificateExtensions.Add(new X509KeyUsageExtension(X509KeyUsageFlags.KeyCertSign | X509KeyUsageFlags.CrlSign, critical: true));
        request.CertificateExtensions.Add(new X509SubjectKeyIdentifierExtension(request.PublicKey, critical: false));
        return request.CreateSelfSigned(DateTimeOffset.UtcNow.AddDays(-1), DateTimeOffset.UtcNow.AddDays(2));
    }

    private (string Certificate, string Key) Issue(X509Certificate2 authority, string file, string commonName, Oid usage, string[] dnsNames)
    {
        using var key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var request = new CertificateRequest($"CN={commonName}", key, HashAlgorithmName.SHA256);
        request.CertificateExtensions.Add(new X509BasicConstraintsExtension(certificateAuthority: false, hasPathLengthConstraint: false, pathLengthConstraint: 0, critical: true));
        request.CertificateExtensions.Add(new X509KeyUsageExtension(X509KeyUsageFlags.DigitalSignature | X509KeyUsageFlags.KeyAgreement, critical: true));
        request.CertificateExtensions.Add(new X509EnhancedKeyUsageExtension([usage], critical: false));
        request.CertificateExtensions.Add(X509AuthorityKeyIdentifierExtension.CreateFromCertificate(authority, includeKeyIdentifier: true, includeIssuerAndSerial: false));
        if (usage.Value == ServerAuthentication.Value)
        {
            var names = new SubjectAlternativeNameBuilder();
            names.AddIpAddress(IPAddress.Loopback);
            foreach (var name in dnsNames)
            {
                names.AddDnsName(name);
            }

            request.CertificateExtensions.Add(names.Build());
        }

        var serial = RandomNumberGenerator.GetBytes(8);
        serial[0] &= 0x7F;
        using var issued = request.Create(authority, DateTimeOffset.UtcNow.AddHours(-1), DateTimeOffset.UtcNow.AddDays(1), serial);
        return (Write($"{file}.pem", issued.ExportCertificatePem()), Write($"{file}-key.pem", key.ExportPkcs8PrivateKeyPem()));
    }

    private string Write(string name, string pem)
    {
        var path = _folder.File(name);
        File.WriteAllText(path, pem);
        return path;
    }
}
