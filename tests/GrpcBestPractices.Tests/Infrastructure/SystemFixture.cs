using System.Net.Http.Json;
using System.Text.Json;

namespace GrpcBestPractices.Tests.Infrastructure;

/// <summary>
/// The whole system, started once for a collection of tests: the service with its three listeners on free ports, and a
/// gateway pointed at all of them and at the service's own certificate, as run.sh starts them.
/// </summary>
public sealed class SystemFixture : IAsyncLifetime
{
    public AppProcess Service { get; private set; } = null!;

    public AppProcess Gateway { get; private set; } = null!;

    public HttpClient Http { get; private set; } = null!;

    /// <summary>The service's cleartext HTTP/1.1 listener.</summary>
    public string Http1 { get; private set; } = null!;

    /// <summary>The service's TLS listener.</summary>
    public string Tls { get; private set; } = null!;

    /// <summary>The service's public certificate, the only one TLS contenders trust.</summary>
    public string Certificate => CertificateOf(Service);

    /// <summary>The CLI's options that point it at the service's three listeners and its certificate.</summary>
    public string[] CliTargets => ["--target", Service.Url, "--http1-target", Http1, "--tls-target", Tls, "--trust-certificate", Certificate];

    public async Task InitializeAsync()
    {
        Service = await AppProcess.StartAsync("PerformanceService");
        Http1 = await Service.ListenerAsync("HTTP/1.1");
        Tls = await Service.ListenerAsync("TLS");
        // The shared system is a freshly started one as a user gets it: warmed before it listens.
        Gateway = await AppProcess.StartAsync("ApiGateway", [.. await GatewayArgumentsAsync(Service), "--Runs:WarmUpAtStart", "true"]);
        Http = new HttpClient { BaseAddress = Gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(120) };
    }

    /// <summary>What points a gateway at all three of a running service's listeners and at its certificate, as run.sh does.</summary>
    public static async Task<string[]> GatewayArgumentsAsync(AppProcess service) =>
    [
        "--ServerUrl", service.Url, "--Protocols:Http1Url", await service.ListenerAsync("HTTP/1.1"), "--Protocols:TlsUrl", await service.ListenerAsync("TLS"),
        "--Protocols:CertificatePath", CertificateOf(service),
    ];

    private static string CertificateOf(AppProcess service) => Path.Combine(service.CertificateFolder!, "service-certificate.pem");

    public async Task DisposeAsync()
    {
        Http.Dispose();
        await Gateway.DisposeAsync();
        await Service.DisposeAsync();
    }

    public async Task<JsonElement> GetRunAsync(string route)
    {
        using var response = await Http.GetAsync(route);
        var body = await response.Content.ReadAsStringAsync();
        Assert.True(response.IsSuccessStatusCode, $"GET {route} answered {(int)response.StatusCode}: {body}");
        return JsonDocument.Parse(body).RootElement.Clone();
    }

    public static async Task<JsonElement> ReadProblemAsync(HttpResponseMessage response)
    {
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        return (await response.Content.ReadFromJsonAsync<JsonElement>()).Clone();
    }
}

[CollectionDefinition(Name)]
public sealed class SystemCollection : ICollectionFixture<SystemFixture>
{
    public const string Name = "The running system";
}
