using System.ComponentModel.DataAnnotations;
using System.Diagnostics.CodeAnalysis;
using System.Net;
using Microsoft.AspNetCore.Server.Kestrel.Core;

namespace PerformanceService.Listeners;

/// <summary>
/// One address a listener binds, read the way Kestrel reads <c>--urls</c>: an IP address, <c>localhost</c> (both
/// loopbacks), a Unix socket, or any other host (<c>*</c>, <c>+</c>, a name) meaning every interface.
/// </summary>
public sealed record ListenAddress(string Scheme, string Host, int Port, string? SocketPath)
{
    public static bool TryParse(string url, string scheme, string key, [NotNullWhen(true)] out ListenAddress? address, [NotNullWhen(false)] out string? problem)
    {
        address = null;
        BindingAddress parsed;
        try
        {
            parsed = BindingAddress.Parse(url);
        }
        catch (FormatException)
        {
            problem = $"{key} must be an address such as {scheme}://127.0.0.1:5000; '{url}' is not one.";
            return false;
        }

        if (!string.Equals(parsed.Scheme, scheme, StringComparison.OrdinalIgnoreCase))
        {
            problem = $"{key} must start with {scheme}:// ('{url}' does not){SchemeHint(scheme)}";
            return false;
        }

        if (parsed.PathBase.Length > 0 && !parsed.IsUnixPipe)
        {
            problem = $"{key} is a listening address and cannot have a path; '{url}' has '{parsed.PathBase}'.";
            return false;
        }

        if (parsed.Port == 0 && string.Equals(parsed.Host, "localhost", StringComparison.OrdinalIgnoreCase))
        {
            problem = $"{key}: port 0 (any free port) needs an IP address such as 127.0.0.1, not localhost ('{url}').";
            return false;
        }

        address = new ListenAddress(parsed.Scheme.ToLowerInvariant(), parsed.Host, parsed.Port, parsed.IsUnixPipe ? parsed.UnixPipePath : null);
        problem = null;
        return true;
    }

    /// <summary>A listener's setting read: no address when it is empty, which turns that listener off (or when it is bad: see <see cref="ListenUrlAttribute"/>).</summary>
    public static ListenAddress? FromSetting(string? url, string scheme) =>
        !string.IsNullOrWhiteSpace(url) && TryParse(url.Trim(), scheme, "", out var address, out _) ? address : null;

    /// <summary>Adds this address to Kestrel's endpoints; <paramref name="configure"/> sets the protocols and TLS.</summary>
    public void Bind(KestrelServerOptions kestrel, Action<ListenOptions> configure)
    {
        if (SocketPath is not null)
        {
            kestrel.ListenUnixSocket(SocketPath, configure);
        }
        else if (string.Equals(Host, "localhost", StringComparison.OrdinalIgnoreCase))
        {
            kestrel.ListenLocalhost(Port, configure);
        }
        else if (IPAddress.TryParse(Host, out var ip))
        {
            kestrel.Listen(ip, Port, configure);
        }
        else
        {
            kestrel.ListenAnyIP(Port, configure);
        }
    }

    /// <summary>The address as a client would use it, with the port the system really gave when 0 was asked for.</summary>
    public string Bound(ListenOptions listen) => listen switch
    {
        _ when SocketPath is not null => $"{Scheme}://unix:{SocketPath}",
        { IPEndPoint: { } endPoint } when !string.Equals(Host, "localhost", StringComparison.OrdinalIgnoreCase) => $"{Scheme}://{endPoint}",
        _ => $"{Scheme}://{Host}:{Port}",
    };

    private static string SchemeHint(string scheme) => scheme == Uri.UriSchemeHttps
        ? "; it is the TLS listener."
        : "; TLS has its own listener, Protocols:TlsUrl.";
}

/// <summary>A listener's URL setting, named <paramref name="key"/>: empty turns the listener off, anything else must be a <paramref name="scheme"/> address.</summary>
[AttributeUsage(AttributeTargets.Property)]
public sealed class ListenUrlAttribute(string scheme, string key) : ValidationAttribute
{
    protected override ValidationResult? IsValid(object? value, ValidationContext validationContext) =>
        value is string url && !string.IsNullOrWhiteSpace(url) && !ListenAddress.TryParse(url.Trim(), scheme, key, out _, out var problem)
            ? new ValidationResult(problem, [validationContext.MemberName!])
            : ValidationResult.Success;
}
