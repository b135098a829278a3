using System.Security.Cryptography;
using GrpcBestPractices.ServiceDefaults;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;
using PerformanceService.Metrics;

namespace PerformanceService.Listeners;

public static class ListenerSetup
{
    private const string NoAddress = ";";

    /// <summary>
    /// The service's listeners, every connection on them counted: h2c on the <c>--urls</c> addresses (HTTP/2 only:
    /// without TLS there is no ALPN to negotiate it), cleartext HTTP/1.1 on <c>Protocols:Http1Url</c>, and TLS with
    /// HTTP/1.1 and HTTP/2 by ALPN on <c>Protocols:TlsUrl</c>. Beside them, the metrics listener on <c>Metrics:Url</c>
    /// (HTTP/1.1), whose connections are marked <see cref="MetricsConnection"/> and not counted: a scrape is not load.
    /// </summary>
    public static WebApplicationBuilder AddProtocolListeners(this WebApplicationBuilder builder)
    {
        var h2c = H2cAddresses(builder.Configuration);
        // Endpoints bound in code replace --urls (with a warning), so the service binds the --urls addresses itself and
        // leaves the hosting layer nothing of its own to bind. An empty "urls" would not do: the hosting layer then
        // falls back to its start-time copy of --urls. A lone separator is not empty and names no address.
        builder.WebHost.UseSetting(WebHostDefaults.ServerUrlsKey, NoAddress);
        builder.WebHost.UseSetting(WebHostDefaults.HttpPortsKey, string.Empty);
        builder.WebHost.UseSetting(WebHostDefaults.HttpsPortsKey, string.Empty);

        builder.Services.AddValidatedOptions<ProtocolsOptions>(ProtocolsOptions.Section);
        builder.Services.AddValidatedOptions<MetricsListenerOptions>(MetricsListenerOptions.Section);
        builder.Services.TryAddSingleton(TimeProvider.System);
        builder.Services.AddSingleton<ConnectionCounter>();
        builder.Services.AddSingleton<ServiceCertificate>();
        builder.Services.AddSingleton<ServiceListeners>();
        builder.Services.AddHostedService<ListenerAnnouncer>();
        builder.Services.AddOptions<KestrelServerOptions>()
            .Configure<IServiceProvider>((kestrel, services) => Listen(kestrel, h2c, services));
        builder.Services.AddOptions<SocketTransportOptions>()
            .Configure<IOptions<ProtocolsOptions>>((sockets, protocols) => sockets.Backlog = protocols.Value.ListenBacklog);
        return builder;
    }

    private static void Listen(KestrelServerOptions kestrel, IReadOnlyList<ListenAddress> h2c, IServiceProvider services)
    {
        // Kestrel's default, stated because lesson 2 depends on it: about 100 calls in flight per connection.
        kestrel.Limits.Http2.MaxStreamsPerConnection = 100;
        var counter = services.GetRequiredService<ConnectionCounter>();
        var listeners = services.GetRequiredService<ServiceListeners>();
        kestrel.ConfigureEndpointDefaults(listen =>
        {
            listen.Protocols = HttpProtocols.Http2;
            listen.Use(next => async connection =>
            {
                if (listeners.IsMetrics(listen))
                {
                    connection.Features.Set(MetricsConnection.Instance);
                    await next(connection);
                    return;
                }

                counter.Opened();
                try
                {
                    await next(connection);
                }
                finally
                {
                    counter.Closed();
                }
            });
        });

        foreach (var address in h2c)
        {
            address.Bind(kestrel, listen => listeners.Add(ListenerKind.H2c, address, listen));
        }

        // Kestrel reads its options while the app is built, before ExitOnInvalidConfiguration can report a bad setting in
        // one line; so a bad Protocols or Metrics section binds none of its listeners here and is reported (exit code 2) right after.
        var protocols = Configured<ProtocolsOptions>(services);
        if (protocols?.Http1Address is { } http1)
        {
            http1.Bind(kestrel, listen =>
            {
                listen.Protocols = HttpProtocols.Http1;
                listeners.Add(ListenerKind.Http1, http1, listen);
            });
        }

        if (protocols?.TlsAddress is { } tls)
        {
            var certificate = Certificate(services);
            tls.Bind(kestrel, listen =>
            {
                listen.Protocols = HttpProtocols.Http1AndHttp2;
                listen.UseHttps(certificate);
                listeners.Add(ListenerKind.Tls, tls, listen);
            });
        }

        if (Configured<MetricsListenerOptions>(services)?.Address is { } metrics)
        {
            metrics.Bind(kestrel, listen =>
            {
                listen.Protocols = HttpProtocols.Http1;
                listeners.Add(ListenerKind.Metrics, metrics, listen);
            });
        }
    }

    /// <summary>The options, or null when they are invalid: ExitOnInvalidConfiguration reports them right after the build.</summary>
    private static TOptions? Configured<TOptions>(IServiceProvider services)
        where TOptions : class
    {
        try
        {
            return services.GetRequiredService<IOptions<TOptions>>().Value;
        }
        catch (OptionsValidationException)
        {
            return null;
        }
    }

    private static System.Security.Cryptography.X509Certificates.X509Certificate2 Certificate(IServiceProvider services)
    {
        try
        {
            return services.GetRequiredService<ServiceCertificate>().Certificate;
        }
        catch (Exception unusable) when (unusable is IOException or UnauthorizedAccessException or InvalidOperationException or CryptographicException)
        {
            ServiceDefaultsExtensions.ExitWithInvalidConfiguration($"Protocols:CertificateFolder cannot give the TLS listener a certificate: {unusable.Message}");
            throw;
        }
    }

    /// <summary>The h2c addresses, from --urls (or ASPNETCORE_URLS, or the service's loopback default), as the hosting layer would read them.</summary>
    private static List<ListenAddress> H2cAddresses(IConfiguration configuration)
    {
        var urls = configuration[WebHostDefaults.ServerUrlsKey];
        if (string.IsNullOrWhiteSpace(urls))
        {
            urls = string.Join(';', Ports(configuration[WebHostDefaults.HttpPortsKey], Uri.UriSchemeHttp).Concat(Ports(configuration[WebHostDefaults.HttpsPortsKey], Uri.UriSchemeHttps)));
        }

        var addresses = new List<ListenAddress>();
        foreach (var url in urls.Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            if (!ListenAddress.TryParse(url, Uri.UriSchemeHttp, "--urls", out var address, out var problem))
            {
                ServiceDefaultsExtensions.ExitWithInvalidConfiguration(problem);
            }

            addresses.Add(address!);
        }

        return addresses;
    }

    private static IEnumerable<string> Ports(string? ports, string scheme) =>
        (ports ?? string.Empty).Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).Select(port => $"{scheme}://*:{port}");
}
