using System.Net.Security;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using System.Text.RegularExpressions;
using Grpc.Core;
using Grpc.Core.Interceptors;
using LoadEngine.Protocols;

namespace LoadEngine.Clients;

/// <summary>
/// How the engine connects to its target beyond the address: the TLS trust and client certificate, the :authority, the
/// metadata every call carries and the request compression. The host sets these; nothing a request says can.
/// </summary>
public sealed class TargetConnection
{
    public const string Gzip = "gzip";

    /// <summary>A PEM file of the CA certificates (or the server's self-signed certificate) an https:// target must chain to; null: the system's CAs.</summary>
    public string? CaCertificate { get; set; }

    /// <summary>The client certificate (PEM) presented for mutual TLS; with <see cref="ClientKey"/>.</summary>
    public string? ClientCertificate { get; set; }

    /// <summary>The client certificate's private key (PEM).</summary>
    public string? ClientKey { get; set; }

    /// <summary>The :authority (HTTP Host) of every call, and the name the TLS handshake asks for and checks; null: the address's host.</summary>
    public string? Authority { get; set; }

    /// <summary>Accept any server certificate: only when asked for by name.</summary>
    public bool InsecureSkipVerify { get; set; }

    /// <summary>Metadata every call carries, in order; a key ending in -bin takes its value in base64.</summary>
    public IList<KeyValuePair<string, string>> Metadata { get; set; } = [];

    /// <summary>The request messages' compression: null (none) or gzip.</summary>
    public string? Compression { get; set; }

    /// <summary>What the host calls these settings, so a sentence about a bad one names it as the user sets it.</summary>
    public ConnectionSettingNames SettingNames { get; set; } = ConnectionSettingNames.Under(null);

    /// <summary>The settings checked against the target's address and their certificates loaded, or one sentence saying what is wrong.</summary>
    public bool TryLoad(Uri target, out LoadedConnection loaded, out string error)
    {
        loaded = null!;
        var names = SettingNames;
        var secure = target.Scheme == Uri.UriSchemeHttps;
        string? tlsSetting = CaCertificate is not null ? names.CaCertificate
            : ClientCertificate is not null ? names.ClientCertificate
            : ClientKey is not null ? names.ClientKey
            : InsecureSkipVerify ? names.InsecureSkipVerify
            : null;
        if (!secure && tlsSetting is not null)
        {
            error = $"{tlsSetting} applies to TLS, and the target {target} is cleartext (http://); give an https:// address or leave {tlsSetting} out.";
            return false;
        }

        if (InsecureSkipVerify && CaCertificate is not null)
        {
            error = $"{names.InsecureSkipVerify} accepts any certificate, so {names.CaCertificate} would change nothing; give one of them.";
            return false;
        }

        if ((ClientCertificate is null) != (ClientKey is null))
        {
            error = $"{names.ClientCertificate} and {names.ClientKey} go together: the client certificate and its private key, both PEM files.";
            return false;
        }

        if (Compression is not null && Compression != Gzip)
        {
            error = $"{names.Compression} was '{Compression}'; it must be {Gzip}, or left out for none.";
            return false;
        }

        if (Authority is not null && !IsAuthority(Authority))
        {
            error = $"{names.Authority} was '{Authority}'; it must be a host name, optionally with a port, e.g. api.example.com or localhost:5001.";
            return false;
        }

        if (!TryHeaders(out var headers, out error))
        {
            return false;
        }

        X509Certificate2Collection? authorities = null;
        X509Certificate2? client = null;
        if ((CaCertificate is not null && !TryLoadAuthorities(CaCertificate, names.CaCertificate, out authorities, out error))
            || (ClientCertificate is not null && !TryLoadClient(ClientCertificate, ClientKey!, out client, out error)))
        {
            return false;
        }

        loaded = new LoadedConnection(secure, authorities, client, InsecureSkipVerify, Authority, headers);
        error = string.Empty;
        return true;
    }

    /// <summary>
    /// ghz's metadata forms: <c>key: value</c> (one pair), or a JSON object of string values (<c>{"key":"value"}</c>). The
    /// pairs, or a sentence naming <paramref name="setting"/> that never quotes what was given: a value may be a secret.
    /// </summary>
    public static bool TryParseMetadata(string text, string setting, out IReadOnlyList<KeyValuePair<string, string>> pairs, out string error)
    {
        pairs = [];
        error = string.Empty;
        var trimmed = text.Trim();
        if (trimmed.StartsWith('{'))
        {
            try
            {
                using var json = System.Text.Json.JsonDocument.Parse(trimmed);
                var list = new List<KeyValuePair<string, string>>();
                foreach (var property in json.RootElement.EnumerateObject())
                {
                    if (property.Value.ValueKind != System.Text.Json.JsonValueKind.String)
                    {
                        error = $"{setting}: the value of \"{Runs.Excerpt.Of(property.Name, 64)}\" must be a JSON string.";
                        return false;
                    }

                    list.Add(new(property.Name, property.Value.GetString()!));
                }

                pairs = list;
                return true;
            }
            catch (System.Text.Json.JsonException invalid)
            {
                error = $"{setting} is not a JSON object of strings (invalid at line {invalid.LineNumber + 1}, byte {invalid.BytePositionInLine + 1}; " +
                    "the text is not shown, as it may hold a secret); give 'key: value' or {\"key\":\"value\"}.";
                return false;
            }
        }

        var colon = trimmed.IndexOf(':');
        if (colon <= 0)
        {
            error = $"{setting} must be 'key: value' (or a JSON object {{\"key\":\"value\"}}); what was given has no key before a ':', and is not shown, as it may hold a secret.";
            return false;
        }

        pairs = [new(trimmed[..colon].Trim(), trimmed[(colon + 1)..].Trim())];
        return true;
    }

    private static readonly Regex KeyForm = new("^[0-9a-z_.-]+$", RegexOptions.CultureInvariant);

    // The headers gRPC and HTTP/2 set themselves: sending them as metadata would contradict the call.
    private static readonly HashSet<string> Reserved = ["host", "te", "content-type", "user-agent", "connection"];

    private bool TryHeaders(out Metadata headers, out string error)
    {
        headers = [];
        error = string.Empty;
        var names = SettingNames;
        foreach (var (given, value) in Metadata)
        {
            var key = given.ToLowerInvariant();
            if (!KeyForm.IsMatch(key) || key.StartsWith("grpc-", StringComparison.Ordinal) || Reserved.Contains(key))
            {
                error = $"{names.Metadata} key '{given}' cannot be sent: a key is letters, digits, '-', '_' and '.', and neither grpc-* nor {string.Join(", ", Reserved)}, which the call sets itself.";
                return false;
            }

            if (key.EndsWith(Grpc.Core.Metadata.BinaryHeaderSuffix, StringComparison.Ordinal))
            {
                var bytes = new byte[value.Length];
                if (!Convert.TryFromBase64String(value, bytes, out var written))
                {
                    error = $"{names.Metadata} '{given}' ends in -bin, so its value must be base64; it is not (the value is not shown).";
                    return false;
                }

                headers.Add(key, bytes[..written]);
            }
            else if (value.Any(letter => letter < ' ' || letter > '~'))
            {
                error = $"{names.Metadata} '{given}' has a value with characters outside printable ASCII; binary values go under a key ending in -bin, in base64.";
                return false;
            }
            else
            {
                headers.Add(key, value);
            }
        }

        if (Compression == Gzip)
        {
            // grpc-dotnet reads this header to compress the request messages (and sends grpc-encoding: gzip instead).
            headers.Add("grpc-internal-encoding-request", Gzip);
        }

        return true;
    }

    private static bool IsAuthority(string authority)
    {
        var host = authority;
        var colon = authority.LastIndexOf(':');
        if (colon > 0 && !authority.EndsWith(']') && authority.IndexOf(':') == colon)
        {
            if (!ushort.TryParse(authority[(colon + 1)..], out var port) || port == 0)
            {
                return false;
            }

            host = authority[..colon];
        }

        return Uri.CheckHostName(host.Trim('[', ']')) != UriHostNameType.Unknown;
    }

    private static bool TryLoadAuthorities(string path, string setting, out X509Certificate2Collection authorities, out string error)
    {
        authorities = [];
        error = string.Empty;
        if (!File.Exists(path))
        {
            error = $"{setting} '{path}' does not exist; it names a PEM file of the CA certificates the target's certificate must chain to.";
            return false;
        }

        try
        {
            authorities.ImportFromPemFile(path);
        }
        catch (Exception invalid) when (invalid is CryptographicException or ArgumentException)
        {
            error = $"{setting} '{path}' holds no readable PEM certificate ({invalid.Message.TrimEnd('.')}).";
            return false;
        }

        if (authorities.Count == 0)
        {
            error = $"{setting} '{path}' holds no PEM certificate (no -----BEGIN CERTIFICATE----- block).";
            return false;
        }

        return true;
    }

    private bool TryLoadClient(string certificatePath, string keyPath, out X509Certificate2? client, out string error)
    {
        client = null;
        error = string.Empty;
        var names = SettingNames;
        foreach (var (path, setting) in new[] { (certificatePath, names.ClientCertificate), (keyPath, names.ClientKey) })
        {
            if (!File.Exists(path))
            {
                error = $"{setting} '{path}' does not exist.";
                return false;
            }
        }

        try
        {
            using var pem = X509Certificate2.CreateFromPemFile(certificatePath, keyPath);
            // A PEM key is ephemeral; SslStream presents a certificate whose key came from a PKCS#12 store on every platform.
            client = X509CertificateLoader.LoadPkcs12(pem.Export(X509ContentType.Pkcs12), null);
            return true;
        }
        catch (Exception invalid) when (invalid is CryptographicException or ArgumentException)
        {
            error = $"{names.ClientCertificate} '{certificatePath}' with {names.ClientKey} '{keyPath}' is not a PEM certificate and its matching private key ({invalid.Message.TrimEnd('.')}).";
            return false;
        }
    }
}

/// <summary>The connection settings as the host names them: the CLI's flags, or a configuration section's keys.</summary>
public sealed record ConnectionSettingNames(
    string CaCertificate, string ClientCertificate, string ClientKey, string Authority, string InsecureSkipVerify, string Metadata, string Compression)
{
    public static ConnectionSettingNames Cli { get; } = new("--cacert", "--cert", "--key", "--authority", "--insecure-skip-verify", "--metadata", "--compression");

    /// <summary>Keys of a configuration section, e.g. Targets:inventory:CaCertificate for <paramref name="section"/> Targets:inventory.</summary>
    public static ConnectionSettingNames Under(string? section)
    {
        var prefix = section is null ? "" : section + ":";
        return new(
            prefix + nameof(TargetConnection.CaCertificate), prefix + nameof(TargetConnection.ClientCertificate), prefix + nameof(TargetConnection.ClientKey),
            prefix + nameof(TargetConnection.Authority), prefix + nameof(TargetConnection.InsecureSkipVerify), prefix + nameof(TargetConnection.Metadata),
            prefix + nameof(TargetConnection.Compression));
    }
}

/// <summary>A <see cref="TargetConnection"/> checked and loaded: what every handler, channel and call of the engine gets from it.</summary>
/// <param name="headers">The metadata (and the compression's header) every call gets, as sent; never modified once loaded.</param>
public sealed class LoadedConnection(bool secure, X509Certificate2Collection? authorities, X509Certificate2? client, bool anyCertificate, string? authority, Metadata headers)
{
    public string? Authority => authority;

    /// <summary>The headers every call gets, as sent.</summary>
    public IReadOnlyList<Metadata.Entry> Headers => [.. headers];

    /// <summary>TLS options for one handler; null when the defaults apply (cleartext, or https:// trusting the system's CAs).</summary>
    public SslClientAuthenticationOptions? SslOptions()
    {
        if (!secure || (authorities is null && client is null && !anyCertificate))
        {
            return null;
        }

        var options = new SslClientAuthenticationOptions();
        if (client is not null)
        {
            options.ClientCertificates = [client];
        }

        if (anyCertificate)
        {
            options.RemoteCertificateValidationCallback = (_, _, _, _) => true;
        }
        else if (authorities is not null)
        {
            options.CertificateChainPolicy = TlsTrust.RootedIn(authorities);
        }

        return options;
    }

    /// <summary><paramref name="invoker"/> adding the headers to every call, before any the call brings itself (itself when there are none).</summary>
    public CallInvoker Intercept(CallInvoker invoker) =>
        headers.Count == 0 ? invoker : invoker.Intercept(own => [.. headers, .. own]);
}

/// <summary>Sets every request's Host header: HTTP/2's :authority, and the name SocketsHttpHandler's TLS handshake asks for (SNI) and checks.</summary>
internal sealed class AuthorityHandler(string authority) : DelegatingHandler
{
    protected override Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
    {
        request.Headers.Host = authority;
        return base.SendAsync(request, cancellationToken);
    }
}
