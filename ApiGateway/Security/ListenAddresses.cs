using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;

namespace ApiGateway.Security;

/// <summary>
/// The addresses the gateway listens on, as Kestrel reads them from configuration, and which of them reach beyond this
/// machine: from another machine every route but /health and /metrics needs a key (see <see cref="WorkAccess"/>).
/// </summary>
public sealed class ListenAddresses(IReadOnlyList<string> addresses)
{
    public IReadOnlyList<string> All { get; } = addresses;

    /// <summary>The addresses another machine can reach: anything but 127.0.0.0/8, ::1, localhost and local sockets.</summary>
    public IReadOnlyList<string> BeyondLoopback { get; } = [.. addresses.Where(address => !IsLoopback(address))];

    /// <summary>
    /// Where Kestrel binds, in its own order of precedence: the Kestrel:Endpoints section (which overrides the rest), else
    /// urls (--urls, ASPNETCORE_URLS), else http_ports/https_ports (ASPNETCORE_HTTP_PORTS), which bind every interface.
    /// </summary>
    public static ListenAddresses FromConfiguration(IConfiguration configuration)
    {
        var endpoints = configuration.GetSection("Kestrel:Endpoints").GetChildren()
            .Select(endpoint => endpoint["Url"]).OfType<string>().Where(url => url.Length > 0).ToList();
        if (endpoints.Count > 0)
        {
            return new ListenAddresses(endpoints);
        }

        var urls = Split(configuration["urls"]);
        return new ListenAddresses(urls.Count > 0
            ? urls
            : [.. Split(configuration["http_ports"]).Select(port => $"http://*:{port}"), .. Split(configuration["https_ports"]).Select(port => $"https://*:{port}")]);
    }

    /// <summary>The addresses Kestrel reports it bound (port 0 become real ports), once it has started.</summary>
    public static ListenAddresses FromServer(IServer server) =>
        new([.. server.Features.Get<IServerAddressesFeature>()?.Addresses ?? []]);

    /// <summary>
    /// Whether only this machine can reach <paramref name="address"/>, read with Kestrel's own parser: a loopback IP,
    /// localhost, or a Unix socket or named pipe. The wildcards (*, +, 0.0.0.0, [::]), any other IP and any other host name
    /// (Kestrel binds every interface for one) reach further.
    /// </summary>
    public static bool IsLoopback(string address)
    {
        BindingAddress parsed;
        try
        {
            parsed = BindingAddress.Parse(address);
        }
        catch (FormatException)
        {
            // Kestrel refuses it at start anyway; until then, count it as reachable.
            return false;
        }

        if (parsed.IsUnixPipe || parsed.IsNamedPipe || string.Equals(parsed.Host, "localhost", StringComparison.OrdinalIgnoreCase))
        {
            return true;
        }

        return System.Net.IPAddress.TryParse(parsed.Host.TrimStart('[').TrimEnd(']'), out var ip) && System.Net.IPAddress.IsLoopback(ip);
    }

    private static List<string> Split(string? list) =>
        [.. (list ?? "").Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)];
}
