using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using GrpcBestPractices.ServiceDefaults;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.Server.Kestrel.Transport.Sockets;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;
using PerformanceService.Metrics;

namespace PerformanceService.Listeners;

public static partial class ListenerSetup
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
        // What Kestrel was told to bind, announced once it has bound it (its own "Now listening on:" lines come first): one
        // line per listener, saying what it speaks, with the port the system really gave for port 0.
        var bound = new List<(string Speaks, ListenAddress Address, ListenOptions Listen)>();
        var logger = services.GetRequiredService<ILoggerFactory>().CreateLogger(typeof(ListenerSetup));
        services.GetRequiredService<IHostApplicationLifetime>().ApplicationStarted.Register(() =>
        {
            foreach (var (speaks, address, listen) in bound)
            {
                ListeningFor(logger, speaks, address.Bound(listen));
            }
        });

        void Bind(ListenAddress address, string speaks, HttpProtocols protocols, X509Certificate2? certificate = null, bool scrape = false) => address.Bind(kestrel, listen =>
        {
            listen.Protocols = protocols;
            // A scrape is not load: a connection to the metrics listener is marked, and one to any other is counted.
            listen.Use(next => scrape
                ? connection =>
                {
                    connection.Features.Set(MetricsConnection.Instance);
                    return next(connection);
                }
                : async connection =>
                {
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
            if (certificate is not null)
            {
                listen.UseHttps(certificate);
            }

            bound.Add((speaks, address, listen));
        });

        foreach (var address in h2c)
        {
            Bind(address, "h2c (gRPC and REST over prior-knowledge HTTP/2)", HttpProtocols.Http2);
        }

        // A bad Protocols or Metrics section binds none of its listeners here (see ValidOrNull).
        var protocols = services.GetRequiredService<IOptions<ProtocolsOptions>>().ValidOrNull();
        if (protocols?.Http1Address is { } http1)
        {
            Bind(http1, "HTTP/1.1 (REST)", HttpProtocols.Http1);
        }

        if (protocols?.TlsAddress is { } tls)
        {
            Bind(tls, "TLS (HTTP/1.1 and HTTP/2 by ALPN)", HttpProtocols.Http1AndHttp2, Certificate(services, logger));
        }

        if (services.GetRequiredService<IOptions<MetricsListenerOptions>>().ValidOrNull()?.Address is { } metrics)
        {
            Bind(metrics, "metrics (Prometheus /metrics and /health over HTTP/1.1)", HttpProtocols.Http1, scrape: true);
        }
    }

    /// <summary>The TLS listener's certificate from <see cref="ProtocolsOptions.CertificateFolder"/>, made or reused, and the log says which.</summary>
    private static X509Certificate2 Certificate(IServiceProvider services, ILogger logger)
    {
        var folder = Path.GetFullPath(services.GetRequiredService<IOptions<ProtocolsOptions>>().Value.CertificateFolder, services.GetRequiredService<IHostEnvironment>().ContentRootPath);
        var store = new CertificateStore(folder, services.GetRequiredService<TimeProvider>());
        try
        {
            var (certificate, origin) = store.LoadOrCreate();
            var until = certificate.NotAfter.ToUniversalTime();
            switch (origin)
            {
                case CertificateOrigin.Created:
                    Created(logger, certificate.Thumbprint, until, store.PemPath);
                    break;
                case CertificateOrigin.RenewedAfterExpiry:
                    Renewed(logger, certificate.Thumbprint, until, store.PemPath);
                    break;
                default:
                    Reused(logger, certificate.Thumbprint, until, store.PfxPath);
                    break;
            }

            return certificate;
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

    [LoggerMessage(Level = LogLevel.Information, Message = "Made a self-signed certificate for localhost, 127.0.0.1 and ::1 (thumbprint {Thumbprint}, valid until {NotAfter:yyyy-MM-dd}); clients trust {PemPath}")]
    private static partial void Created(ILogger logger, string thumbprint, DateTime notAfter, string pemPath);

    [LoggerMessage(Level = LogLevel.Warning, Message = "The service certificate had expired; made a new one (thumbprint {Thumbprint}, valid until {NotAfter:yyyy-MM-dd}): clients must trust the new {PemPath}")]
    private static partial void Renewed(ILogger logger, string thumbprint, DateTime notAfter, string pemPath);

    [LoggerMessage(Level = LogLevel.Information, Message = "Using the service certificate {Thumbprint} (valid until {NotAfter:yyyy-MM-dd}) from {PfxPath}")]
    private static partial void Reused(ILogger logger, string thumbprint, DateTime notAfter, string pfxPath);

    [LoggerMessage(Level = LogLevel.Information, Message = "Listening for {Listener} on {Address}")]
    private static partial void ListeningFor(ILogger logger, string listener, string address);
}
