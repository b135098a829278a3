using System.Security.Cryptography.X509Certificates;

namespace LoadEngine.Protocols;

/// <summary>What the host calls the three settings a contender may need, so a missing one is named as the user sets it.</summary>
public sealed record ListenerSettingNames(string Target, string Http1, string Tls, string Certificate)
{
    public static ListenerSettingNames Gateway { get; } = new("ServerUrl", "Protocols:Http1Url", "Protocols:TlsUrl", "Protocols:CertificatePath");

    public static ListenerSettingNames Cli { get; } = new("--target", "--http1-target", "--tls-target", "--trust-certificate");
}

/// <summary>
/// Which of the service's listeners a contender calls: TLS ones the TLS listener (HTTP/1.1 and HTTP/2 by ALPN),
/// cleartext REST over HTTP/1.1 the HTTP/1.1 listener, the rest the h2c listener (the engine's ServerUri). Addresses come
/// from the engine's options only, never from a request.
/// </summary>
public static class WorkloadTargets
{
    /// <summary>Whether the host can run <paramref name="contender"/>: its listener configured, and under TLS the certificate readable.</summary>
    public static bool Check(Contender contender, EngineOptions options, out string error)
    {
        var ready = TryResolve(contender, options, out _, out var trusted, out error);
        trusted?.Dispose();
        return ready;
    }

    public static bool TryResolve(Contender contender, EngineOptions options, out Uri address, out X509Certificate2? trusted, out string error)
    {
        var names = options.SettingNames;
        trusted = null;
        error = string.Empty;
        (Uri? uri, string setting, string what) = contender switch
        {
            { Security: WireSecurity.Tls } => (options.TlsUri, names.Tls, "the service's TLS listener"),
            { HttpVersion: WireVersion.Http11 } => (options.Http1Uri, names.Http1, "the service's cleartext HTTP/1.1 listener"),
            _ => (options.ServerUri.Scheme == Uri.UriSchemeHttp ? options.ServerUri : null, names.Target, "the service's h2c listener (an http:// address)"),
        };
        address = uri!;
        if (uri is null)
        {
            error = $"{contender.Name} calls {what}, and {setting} gives none.";
            return false;
        }

        if (contender.Security == WireSecurity.Tls)
        {
            if (!TlsTrust.TryLoad(options.TrustedCertificatePath, out var certificate, out var problem))
            {
                error = $"{contender.Name} trusts only the service's certificate, named by {names.Certificate}, and {problem}";
                return false;
            }

            trusted = certificate;
        }

        return true;
    }
}
