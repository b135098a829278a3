using System.Net;
using System.Net.Http.Json;
using System.Net.Security;
using System.Runtime.Versioning;
using System.Security.Authentication;
using System.Text.Json;
using Grpc.Core;
using Grpc.Net.Client;
using GrpcBestPractices.Tests.Infrastructure;
using Performance;
using PerformanceService.Listeners;

namespace GrpcBestPractices.Tests.WorkloadService;

/// <summary>The service's three listeners as a client meets them on real loopback sockets, each service started for its test.</summary>
[Trait("Category", "Process")]
public sealed class ListenerTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task EveryListenerIsAnnouncedWithThePortItReallyGotAndKestrelNamesTheH2cOneFirst()
    {
        await using var service = await AppProcess.StartAsync("PerformanceService");

        var h2c = new Uri(await service.ListenerAsync("h2c"));
        var http1 = new Uri(await service.ListenerAsync("HTTP/1.1"));
        var tls = new Uri(await service.ListenerAsync("TLS"));

        Assert.Equal(service.BaseAddress, h2c);
        Assert.All([h2c, http1, tls], address => Assert.True(IPAddress.IsLoopback(IPAddress.Parse(address.Host)) && address.Port > 0, address.ToString()));
        Assert.Equal(["http", "http", "https"], new[] { h2c.Scheme, http1.Scheme, tls.Scheme });
        Assert.Equal(3, new[] { h2c.Port, http1.Port, tls.Port }.Distinct().Count());
        Assert.DoesNotContain(" WRN]", service.Output);
    }

    [Fact]
    public async Task TheTlsListenerLetsAlpnPickHttp2OrHttp11AndPresentsTheCertificateOfThePem()
    {
        await using var service = await AppProcess.StartAsync("PerformanceService");
        var tls = new Uri(await service.ListenerAsync("TLS"));
        using var pem = ServiceTls.Pem(service.CertificateFolder!);

        var both = await ServiceTls.HandshakeAsync(tls, pem, SslApplicationProtocol.Http2, SslApplicationProtocol.Http11);
        var http11 = await ServiceTls.HandshakeAsync(tls, pem, SslApplicationProtocol.Http11);

        Assert.Equal("h2", both.Alpn);
        Assert.Equal("http/1.1", http11.Alpn);
        Assert.Contains(both.Tls, new[] { SslProtocols.Tls12, SslProtocols.Tls13 });
        Assert.Equal(pem.Thumbprint, both.Thumbprint);
    }

    [Fact]
    public async Task ConnectionsOnEveryListenerAreCounted()
    {
        await using var service = await RunningService.StartAsync();

        // Each client opens its own connection, on its own listener, and keeps it while the next one asks.
        var accepted = new List<long>();
        foreach (var route in new[] { Route.H2c, Route.Http1, Route.TlsHttp11, Route.TlsHttp2 })
        {
            using var diagnostics = await service.Http(route).GetFromJsonAsync<JsonDocument>("/diagnostics");
            accepted.Add(diagnostics!.RootElement.GetProperty("acceptedConnections").GetInt64());
            Assert.Equal(accepted.Count, diagnostics.RootElement.GetProperty("activeConnections").GetInt32());
        }

        Assert.Equal([1, 2, 3, 4], accepted);
    }

    [Fact]
    public async Task AClientThatDoesNotTrustTheServicesCertificateIsRefused()
    {
        await using var service = await AppProcess.StartAsync("PerformanceService");
        var tls = await service.ListenerAsync("TLS");
        using var http = new HttpClient();

        var refused = await Assert.ThrowsAsync<HttpRequestException>(() => http.GetAsync(tls + "/diagnostics"));

        Assert.IsType<AuthenticationException>(refused.InnerException);
    }

    [Fact]
    public async Task TheHttp1ListenerRefusesPriorKnowledgeHttp2AndSoGrpc()
    {
        await using var service = await AppProcess.StartAsync("PerformanceService");
        var http1 = await service.ListenerAsync("HTTP/1.1");
        using var http = new HttpClient();

        using var asHttp11 = await http.SendAsync(new HttpRequestMessage(HttpMethod.Get, http1 + "/diagnostics") { Version = HttpVersion.Version11, VersionPolicy = HttpVersionPolicy.RequestVersionExact });
        var asHttp2 = new HttpRequestMessage(HttpMethod.Get, http1 + "/diagnostics") { Version = HttpVersion.Version20, VersionPolicy = HttpVersionPolicy.RequestVersionExact };
        await Assert.ThrowsAsync<HttpRequestException>(() => http.SendAsync(asHttp2));
        using var channel = GrpcChannel.ForAddress(http1);
        var grpc = await Assert.ThrowsAsync<RpcException>(async () => await new Monitor.MonitorClient(channel).GetPerformanceAsync(new PerformanceStatusRequest()));

        Assert.Equal(HttpStatusCode.OK, asHttp11.StatusCode);
        Assert.Equal(HttpVersion.Version11, asHttp11.Version);
        Assert.NotEqual(StatusCode.OK, grpc.StatusCode);
    }

    [Fact]
    [UnsupportedOSPlatform("windows")]
    public async Task TheCertificateIsMadeAtTheFirstStartAndServedAgainAfterARestart()
    {
        using var folder = new TemporaryFolder();
        string firstThumbprint;
        await using (var first = await AppProcess.StartAsync("PerformanceService", ["--Protocols:CertificateFolder", folder.Path]))
        {
            using var pem = ServiceTls.Pem(folder.Path);
            firstThumbprint = (await ServiceTls.HandshakeAsync(new Uri(await first.ListenerAsync("TLS")), pem, SslApplicationProtocol.Http2)).Thumbprint;
            Assert.Equal(pem.Thumbprint, firstThumbprint);
            Assert.Contains("Made a self-signed certificate", first.Output);
        }

        await using var second = await AppProcess.StartAsync("PerformanceService", ["--Protocols:CertificateFolder", folder.Path]);
        using var kept = ServiceTls.Pem(folder.Path);
        var secondThumbprint = (await ServiceTls.HandshakeAsync(new Uri(await second.ListenerAsync("TLS")), kept, SslApplicationProtocol.Http2)).Thumbprint;

        Assert.Equal(firstThumbprint, secondThumbprint);
        Assert.Contains($"Using the service certificate {firstThumbprint}", second.Output);
        Assert.DoesNotContain("Made a self-signed certificate", second.Output);
        Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite, File.GetUnixFileMode(folder.File(CertificateStore.PfxName)));
    }

    [Fact]
    public async Task AnEmptyUrlTurnsThatListenerOffAndWithoutTlsNoCertificateIsMade()
    {
        await using var service = await AppProcess.StartAsync("PerformanceService", ["--Protocols:Http1Url=", "--Protocols:TlsUrl=", "--Metrics:Url="]);

        await service.ListenerAsync("h2c");
        Assert.True(await service.WaitForOutputAsync(line => line.Contains("Application started"), Patience), service.Output);

        Assert.Single(service.Output.Split(Environment.NewLine), line => line.Contains("Listening for "));
        Assert.Single(service.Output.Split(Environment.NewLine), line => line.Contains("Now listening on: "));
        Assert.Empty(Directory.GetFiles(service.CertificateFolder!));
    }

    [Fact]
    public async Task AnHttpsAddressInUrlsStopsTheServiceNamingWhereTlsBelongs()
    {
        await using var service = await AppProcess.RunToExitAsync("PerformanceService", ["--urls", "https://127.0.0.1:0"], Patience);

        Assert.Equal(2, service.ExitCode);
        Assert.Contains("--urls must start with http:// ('https://127.0.0.1:0' does not); TLS has its own listener, Protocols:TlsUrl.", service.Output);
    }
}
