using System.Net;
using System.Net.Http.Json;
using System.Security.Cryptography.X509Certificates;
using System.Text.Json;
using Grpc.Net.Client;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.WorkloadService;

/// <summary>One way a client reaches the service: a listener and, where it offers both, the HTTP version asked for.</summary>
public enum Route
{
    H2c,
    Http1,
    TlsHttp11,
    TlsHttp2,
}

/// <summary>What /diagnostics counted: workload requests per (httpVersion, tls) for one API.</summary>
public sealed record ProtocolCount(string HttpVersion, string Tls, long Requests);

/// <summary>
/// A PerformanceService with all three listeners on free loopback ports, and the clients a test reaches it with: each
/// API over each route, TLS trusting only the service's own PEM. Everything made here is disposed with it.
/// </summary>
public class RunningService : IAsyncDisposable
{
    private readonly List<IDisposable> _owned = [];
    private HttpClient _diagnostics = null!;

    public AppProcess Service { get; private set; } = null!;

    public Uri H2c { get; private set; } = null!;

    public Uri Http1 { get; private set; } = null!;

    public Uri Tls { get; private set; } = null!;

    public X509Certificate2 Pem { get; private set; } = null!;

    public static Task<RunningService> StartAsync(params string[] arguments) => StartAsync(arguments, null);

    /// <summary>The service with these arguments and, besides the test process's own, these environment variables.</summary>
    public static async Task<RunningService> StartAsync(IEnumerable<string> arguments, IDictionary<string, string>? environment)
    {
        var service = new RunningService();
        await service.StartServiceAsync(arguments, environment);
        return service;
    }

    public async ValueTask DisposeAsync()
    {
        foreach (var owned in _owned)
        {
            owned.Dispose();
        }

        Pem?.Dispose();
        if (Service is not null)
        {
            await Service.DisposeAsync();
        }

        GC.SuppressFinalize(this);
    }

    protected async Task StartServiceAsync(IEnumerable<string> arguments, IDictionary<string, string>? environment = null)
    {
        Service = await AppProcess.StartAsync("PerformanceService", arguments, environment);
        H2c = new Uri(await Service.ListenerAsync("h2c"));
        Http1 = new Uri(await Service.ListenerAsync("HTTP/1.1"));
        Tls = new Uri(await Service.ListenerAsync("TLS"));
        Pem = ServiceTls.Pem(Service.CertificateFolder!);
        _diagnostics = Http(Route.H2c);
    }

    /// <summary>A client of <paramref name="api"/> ("grpc", "grpc-code-first", "rest-stj", "rest-newtonsoft") over <paramref name="route"/>, disposed with the fixture.</summary>
    public WorkloadClient Client(string api, Route route) => api switch
    {
        "grpc" => new ContractFirstClient(Channel(route)),
        "grpc-code-first" => new CodeFirstClient(Channel(route)),
        "rest-stj" => new StjClient(Http(route)),
        "rest-newtonsoft" => new NewtonsoftClient(Http(route)),
        _ => throw new ArgumentOutOfRangeException(nameof(api), api, null),
    };

    public GrpcChannel Channel(Route route) => Own(route switch
    {
        Route.H2c => GrpcChannel.ForAddress(H2c),
        Route.Http1 => GrpcChannel.ForAddress(Http1),
        _ => GrpcChannel.ForAddress(Tls, new GrpcChannelOptions { HttpHandler = ServiceTls.Handler(Pem) }),
    });

    /// <summary>An HttpClient that speaks exactly the route's HTTP version (h2c by prior knowledge), trusting only the service's PEM for TLS.</summary>
    public HttpClient Http(Route route)
    {
        var (address, version) = route switch
        {
            Route.H2c => (H2c, HttpVersion.Version20),
            Route.Http1 => (Http1, HttpVersion.Version11),
            Route.TlsHttp11 => (Tls, HttpVersion.Version11),
            _ => (Tls, HttpVersion.Version20),
        };
        return Own(new HttpClient(route is Route.TlsHttp11 or Route.TlsHttp2 ? ServiceTls.Handler(Pem) : new SocketsHttpHandler())
        {
            BaseAddress = address,
            DefaultRequestVersion = version,
            DefaultVersionPolicy = HttpVersionPolicy.RequestVersionExact,
            Timeout = TimeSpan.FromSeconds(120),
        });
    }

    /// <summary>The workload requests /diagnostics has counted for <paramref name="api"/>, read over h2c.</summary>
    public async Task<IReadOnlyList<ProtocolCount>> ProtocolsAsync(string api)
    {
        using var diagnostics = await _diagnostics.GetFromJsonAsync<JsonDocument>("/diagnostics");
        return
        [
            .. diagnostics!.RootElement.GetProperty("protocols").EnumerateArray()
                .Where(count => count.GetProperty("api").GetString() == api)
                .Select(count => new ProtocolCount(count.GetProperty("httpVersion").GetString()!, count.GetProperty("tls").GetString()!, count.GetProperty("requests").GetInt64())),
        ];
    }

    private T Own<T>(T disposable)
        where T : IDisposable
    {
        lock (_owned)
        {
            _owned.Add(disposable);
        }

        return disposable;
    }
}

/// <summary>One running service shared by the workload tests of a collection (which run one at a time, so /diagnostics deltas are theirs).</summary>
public sealed class WorkloadServiceFixture : RunningService, IAsyncLifetime
{
    public Task InitializeAsync() => StartServiceAsync([]);

    Task IAsyncLifetime.DisposeAsync() => DisposeAsync().AsTask();
}

[CollectionDefinition(Name)]
public sealed class WorkloadServiceCollection : ICollectionFixture<WorkloadServiceFixture>
{
    public const string Name = "The workload service";
}
