using System.Net;
using System.Security.Authentication;
using Grpc.Core;
using GrpcBestPractices.Tests.Fakes;
using GrpcBestPractices.Tests.Infrastructure;
using LoadEngine;
using LoadEngine.Protocols;

namespace GrpcBestPractices.Tests.Protocols;

/// <summary>The client's own socket counts held against a real loopback server's, and TLS that trusts exactly one certificate.</summary>
[Trait("Category", "Process")]
public sealed class WireAndTlsTests
{
    [Fact]
    public async Task TheBytesCountedOnTheClientsSocketsAreTheBytesTheServerReadAndWrote()
    {
        await using var server = new LoopbackHttpServer("{\"salesQuantityTotal\":12345}");
        var wire = new WireCounter();
        using var http = new HttpClient(new SocketsHttpHandler { ConnectCallback = wire.ConnectAsync });

        for (var call = 0; call < 3; call++)
        {
            using var content = new ByteArrayContent(new byte[1000]);
            using var response = await http.PostAsync(server.Address, content);
            Assert.Equal("{\"salesQuantityTotal\":12345}", await response.Content.ReadAsStringAsync());
        }

        var totals = wire.Totals;
        Assert.Equal((server.Received, server.Sent, 1L), (totals.Sent, totals.Received, totals.Opened));
        Assert.True(totals.Sent > 3000, $"three 1000-byte bodies and their headers are more than {totals.Sent} bytes");
    }

    [Fact]
    public async Task UnderTlsTheCountIsTheEncryptedBytesAndMoreThanInCleartext()
    {
        using var certificate = TestCertificates.SelfSigned("loopback");
        await using var clear = new LoopbackHttpServer("{}");
        await using var tls = new LoopbackHttpServer("{}", certificate);
        var clearWire = new WireCounter();
        var tlsWire = new WireCounter();

        await GetAsync(clearWire, clear.Address, trusted: null);
        await GetAsync(tlsWire, tls.Address, certificate);

        Assert.Equal((tls.Received, tls.Sent), (tlsWire.Totals.Sent, tlsWire.Totals.Received));
        Assert.True(tlsWire.Totals.Received > clearWire.Totals.Received + 200, $"TLS {tlsWire.Totals.Received} B against cleartext {clearWire.Totals.Received} B");
    }

    [Fact]
    public async Task AConnectionCountsAsUsedInAPhaseOnlyIfItCarriedBytesInIt()
    {
        await using var server = new LoopbackHttpServer();
        var wire = new WireCounter();
        using var http = new HttpClient(new SocketsHttpHandler { ConnectCallback = wire.ConnectAsync });
        (await http.GetAsync(server.Address)).Dispose();

        wire.StartPhase();
        Assert.Equal(0, wire.ConnectionsUsedInPhase);
        (await http.GetAsync(server.Address)).Dispose();
        (await http.GetAsync(server.Address)).Dispose();

        Assert.Equal((1, 1L), (wire.ConnectionsUsedInPhase, wire.Totals.Opened));
    }

    [Fact]
    public async Task TlsTrustsTheConfiguredCertificateAndRefusesAnyOther()
    {
        using var served = TestCertificates.SelfSigned("the service");
        using var other = TestCertificates.SelfSigned("another service");
        await using var server = new LoopbackHttpServer("{}", served);

        await GetAsync(new WireCounter(), server.Address, served);
        var refused = await Assert.ThrowsAsync<HttpRequestException>(() => GetAsync(new WireCounter(), server.Address, other));

        Assert.IsType<AuthenticationException>(refused.InnerException);
        Assert.Equal(StatusCode.Internal, RestFailures.StatusOf(refused));
    }

    [Fact]
    public async Task ACertificateTheMachineWouldNotTrustEitherIsRefusedWithoutTheConfiguredOne()
    {
        using var served = TestCertificates.SelfSigned("the service");
        await using var server = new LoopbackHttpServer("{}", served);
        using var http = new HttpClient(new SocketsHttpHandler());

        await Assert.ThrowsAsync<HttpRequestException>(() => http.GetAsync(server.Address));
    }

    [Fact]
    public void ATlsContenderNeedsTheCertificateFileAndSaysWhichSettingNamesIt()
    {
        using var folder = new TemporaryFolder();
        var options = new EngineOptions { TlsUri = new Uri("https://127.0.0.1:5001"), TrustedCertificatePath = folder.File("missing.pem"), SettingNames = ListenerSettingNames.Cli };

        Assert.False(WorkloadTargets.TryResolve(ContenderList.Find("rest-stj-h1-tls")!, options, out _, out _, out var error));

        Assert.StartsWith($"rest-stj-h1-tls trusts only the service's certificate, named by --trust-certificate, and the certificate file '{folder.File("missing.pem")}' does not exist", error);
    }

    [Theory]
    [InlineData("rest-stj-h1-cleartext", "http://127.0.0.1:5002/")]
    [InlineData("rest-stj-h2-cleartext", "http://127.0.0.1:5000/")]
    [InlineData("grpc-h2-cleartext", "http://127.0.0.1:5000/")]
    [InlineData("grpc-code-first-h2-tls", "https://127.0.0.1:5001/")]
    [InlineData("rest-newtonsoft-h1-tls", "https://127.0.0.1:5001/")]
    public void EachContenderCallsItsListener(string contender, string expected)
    {
        using var folder = new TemporaryFolder();
        using var certificate = TestCertificates.SelfSigned("the service");
        var options = new EngineOptions
        {
            Http1Uri = new Uri("http://127.0.0.1:5002"),
            TlsUri = new Uri("https://127.0.0.1:5001"),
            TrustedCertificatePath = TestCertificates.WritePem(certificate, folder.Path),
        };

        Assert.True(WorkloadTargets.TryResolve(ContenderList.Find(contender)!, options, out var address, out var trusted, out var error), error);

        Assert.Equal(expected, address.ToString());
        Assert.Equal(contender.EndsWith("-tls", StringComparison.Ordinal), trusted?.Thumbprint == certificate.Thumbprint);
    }

    [Fact]
    public void AContenderWhoseListenerIsNotConfiguredIsRefusedNamingTheSetting()
    {
        Assert.False(WorkloadTargets.TryResolve(ContenderList.Find("rest-newtonsoft-h1-cleartext")!, new EngineOptions(), out _, out _, out var error));

        Assert.Equal("rest-newtonsoft-h1-cleartext calls the service's cleartext HTTP/1.1 listener, and Protocols:Http1Url gives none.", error);
    }

    private static async Task GetAsync(WireCounter wire, Uri address, System.Security.Cryptography.X509Certificates.X509Certificate2? trusted)
    {
        var handler = new SocketsHttpHandler { ConnectCallback = wire.ConnectAsync };
        if (trusted is not null)
        {
            handler.SslOptions = TlsTrust.TrustOnly(trusted);
        }

        using var http = new HttpClient(handler) { DefaultRequestVersion = HttpVersion.Version11 };
        using var response = await http.GetAsync(address);
        response.EnsureSuccessStatusCode();
    }
}
