using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using System.Security.Cryptography.X509Certificates;
using Grpc.Core;
using GrpcBestPractices.Tests.Fakes;
using GrpcBestPractices.Tests.Infrastructure;
using GrpcBestPractices.Tests.WorkloadService;
using LoadEngine;
using LoadEngine.Calls;
using LoadEngine.Clients;
using LoadEngine.Protocols;
using LoadEngine.Runs;
using LoadEngine.Strategies;
using LoadEngine.Targets;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Performance;

namespace GrpcBestPractices.Tests.Protocols;

/// <summary>
/// The target connection settings against the real service's TLS listener on loopback: every strategy trusts exactly the
/// CA it is given, the system's CAs by default, the authority names the certificate checked, a wrong CA is one sentence,
/// gzip really shrinks what is sent, and a client certificate is presented in the handshake.
/// </summary>
[Collection(WorkloadServiceCollection.Name)]
[Trait("Category", "Process")]
public sealed class TargetConnectionTlsTests(WorkloadServiceFixture service) : IDisposable
{
    private readonly TemporaryFolder _folder = new();

    private string ServicePem => Path.Combine(service.Service.CertificateFolder!, "service-certificate.pem");

    public void Dispose() => _folder.Dispose();

    public static TheoryData<string> Strategies() => [.. StrategyList.Names];

    [Theory]
    [MemberData(nameof(Strategies))]
    public async Task EveryStrategyCallsTheTlsListenerTrustingOnlyTheGivenCa(string strategy)
    {
        var run = await RunAsync(strategy, new TargetConnection { CaCertificate = ServicePem });

        Assert.True(run.State == RunState.Completed, $"{run.State}: {run.Error}");
        Assert.Equal((4L, 0L), (run.Stats!.Succeeded, run.Stats.Failed));
    }

    [Fact]
    public async Task AnotherCaIsRefusedAndTheRunFailsWithOneSentenceAboutTheCertificate()
    {
        using var other = TestCertificates.SelfSigned("another-ca");

        var run = await RunAsync("client-wrapper", new TargetConnection { CaCertificate = TestCertificates.WritePem(other, _folder.Path) });

        Assert.Equal(RunState.Failed, run.State);
        AssertOneSentence(run.Error!, "The service is unreachable: the TLS handshake failed (The remote certificate is invalid because of errors in the certificate chain: UntrustedRoot)");
    }

    [Fact]
    public async Task AnHttpsTargetTrustsTheSystemsCasByDefaultSoASelfSignedServiceIsRefused()
    {
        var run = await RunAsync("client-wrapper", new TargetConnection());

        Assert.Equal(RunState.Failed, run.State);
        AssertOneSentence(run.Error!, "The service is unreachable: the TLS handshake failed (The remote certificate is invalid because of errors in the certificate chain: UntrustedRoot)");
    }

    [Fact]
    public async Task TheAuthorityIsTheNameTheHandshakeChecks()
    {
        // The service's certificate names localhost and 127.0.0.1; the address is 127.0.0.1 either way.
        var named = await RunAsync("single-connection", new TargetConnection { CaCertificate = ServicePem, Authority = "localhost" });
        var misnamed = await RunAsync("single-connection", new TargetConnection { CaCertificate = ServicePem, Authority = "inventory.example" });

        Assert.Equal((RunState.Completed, 4L), (named.State, named.Stats!.Succeeded));
        Assert.Equal(RunState.Failed, misnamed.State);
        AssertOneSentence(misnamed.Error!, "The service is unreachable: the TLS handshake failed (The remote certificate is invalid according to the validation procedure: RemoteCertificateNameMismatch");
    }

    [Fact]
    public async Task SkippingVerificationOnlyWhenAskedAcceptsTheUntrustedCertificateUnderAnyName()
    {
        var run = await RunAsync("client-wrapper", new TargetConnection { InsecureSkipVerify = true, Authority = "inventory.example" });

        Assert.Equal((RunState.Completed, 4L), (run.State, run.Stats!.Succeeded));
    }

    [Fact]
    public async Task GzipCompressesTheRequestsAndTheServiceAnswersThem()
    {
        var plain = await BytesSentAsync(new TargetConnection());
        var gzip = await BytesSentAsync(new TargetConnection { Compression = TargetConnection.Gzip });

        // 20 000 repeated letters in each request: gzip sends a small fraction of them.
        Assert.True(plain > 3 * 20_000, $"plain {plain} B");
        Assert.True(gzip < plain / 5, $"gzip {gzip} B against plain {plain} B");
    }

    [Fact]
    public async Task AClientCertificateIsPresentedInTheHandshake()
    {
        using var serverCertificate = TestCertificates.SelfSigned("mtls-server");
        var (certificate, key, thumbprint) = TestCertificates.WriteClientPair(_folder.Path, "load-client");
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        var presented = AcceptOneAsync(listener, serverCertificate);
        var target = new Uri($"https://127.0.0.1:{((IPEndPoint)listener.LocalEndpoint).Port}");
        var channels = Channels(target, new TargetConnection { InsecureSkipVerify = true, ClientCertificate = certificate, ClientKey = key });

        using var channel = channels.CreateChannel(channels.CreateHandler());
        // The listener only shakes hands, so the call itself fails; what matters is the certificate it saw.
        await Assert.ThrowsAsync<RpcException>(() => channels.CreateInvoker(channel)
            .AsyncUnaryCall(MonitorTarget.GetPerformance, null, new CallOptions(deadline: DateTime.UtcNow.AddSeconds(10)), new PerformanceStatusRequest()).ResponseAsync);

        Assert.Equal(thumbprint, await presented.WaitAsync(TimeSpan.FromSeconds(10)));
    }

    private static void AssertOneSentence(string error, string mentions)
    {
        Assert.Contains(mentions, error, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain('\n', error);
        Assert.DoesNotContain("   at ", error);
    }

    private async Task<RunRecord> RunAsync(string strategy, TargetConnection connection)
    {
        var services = new ServiceCollection();
        services.AddLogging();
        services.AddLoadEngine();
        services.Configure<EngineOptions>(engine =>
        {
            engine.ServerUri = service.Tls;
            engine.Connection = connection;
            engine.ConnectTimeout = TimeSpan.FromSeconds(5);
        });
        await using var provider = services.BuildServiceProvider();
        await using var scope = provider.CreateAsyncScope();
        var info = StrategyList.Find(strategy)!;
        var plan = new RunPlan { Strategy = strategy, Load = info.DefaultLoad, Count = 4, Concurrency = 2 };
        using var calls = await scope.ServiceProvider.GetRequiredService<RunCallsFactory>().CreateAsync(plan, CancellationToken.None);
        return await provider.GetRequiredService<RunEngine>().ExecuteAsync(
            calls, new RunRecord(Guid.NewGuid(), plan, RunState.Running, DateTimeOffset.UtcNow, null, null, null, null), new LiveRun(), CancellationToken.None);
    }

    /// <summary>Bytes the client wrote for three calls of 20 000 repeated letters each, over the h2c listener.</summary>
    private async Task<long> BytesSentAsync(TargetConnection connection)
    {
        var channels = Channels(service.H2c, connection);
        var wire = new WireCounter();
        var handler = channels.CreateHandler();
        handler.ConnectCallback = wire.ConnectAsync;
        using var channel = channels.CreateChannel(handler);
        var invoker = channels.CreateInvoker(channel);
        var request = new PerformanceStatusRequest { ClientName = new string('a', 20_000) };
        for (var call = 0; call < 3; call++)
        {
            await invoker.AsyncUnaryCall(MonitorTarget.GetPerformance, null, new CallOptions(deadline: DateTime.UtcNow.AddSeconds(10)), request);
        }

        return wire.Totals.Sent;
    }

    private static ChannelFactory Channels(Uri target, TargetConnection connection) =>
        new(Options.Create(new EngineOptions { ServerUri = target, Connection = connection }));

    /// <summary>One TLS handshake that asks for a client certificate and accepts any: the thumbprint of the one presented.</summary>
    private static async Task<string?> AcceptOneAsync(TcpListener listener, X509Certificate2 certificate)
    {
        using var client = await listener.AcceptTcpClientAsync();
        await using var tls = new SslStream(client.GetStream());
        await tls.AuthenticateAsServerAsync(new SslServerAuthenticationOptions
        {
            ServerCertificate = certificate,
            ClientCertificateRequired = true,
            ApplicationProtocols = [SslApplicationProtocol.Http2],
            RemoteCertificateValidationCallback = (_, _, _, _) => true,
        });
        return tls.RemoteCertificate?.GetCertHashString();
    }
}
