using GrpcBestPractices.Tests.Fakes;
using GrpcBestPractices.Tests.WorkloadService;
using LoadEngine;
using LoadEngine.Calls;
using LoadEngine.Clients;
using LoadEngine.Protocols;
using LoadEngine.Strategies;
using Microsoft.Extensions.DependencyInjection;

namespace GrpcBestPractices.Tests.Protocols;

/// <summary>
/// The engine's workload strategies against the real service on loopback sockets, as the gateway and the CLI run them:
/// every contender round-trips every workload (each answer checked), bytes per call are measured and plausible, and
/// the service saw the HTTP and TLS versions the contender promises.
/// </summary>
[Collection(WorkloadServiceCollection.Name)]
[Trait("Category", "Process")]
public sealed class ContenderRoundTripTests(WorkloadServiceFixture service)
{
    public static TheoryData<string, string> EveryContenderAndWorkload()
    {
        var cases = new TheoryData<string, string>();
        foreach (var contender in ContenderList.Names)
        {
            foreach (var workload in WorkloadList.Ids)
            {
                cases.Add(contender, workload);
            }
        }

        return cases;
    }

    [Theory]
    [MemberData(nameof(EveryContenderAndWorkload))]
    public async Task EachContenderRoundTripsEachWorkloadAndTheServiceSawItsProtocol(string contenderName, string workload)
    {
        var contender = ContenderList.Find(contenderName)!;

        // A small set: bulk-read over 3000 users (3 pages), a file of 200 000 bytes (three full chunks and a short one).
        var run = await RunAsync(Plan(workload, contender, count: 3, warmup: 1).WithWorkload(plan => plan with
        {
            Users = workload == "bulk-read" ? 3000 : null,
            FileBytes = workload == "file-upload" ? 200_000 : null,
        }));

        Assert.True(run.State == RunState.Completed, $"{run.State}: {run.Error} {string.Join(", ", run.Stats?.StatusCounts ?? new Dictionary<string, long>())}");
        var stats = run.Stats!;
        Assert.Equal((3L, 0L), (stats.Succeeded, stats.Failed));
        Assert.True(stats.BytesSentPerCall > 0 && stats.BytesReceivedPerCall > 0, $"sent {stats.BytesSentPerCall} B, received {stats.BytesReceivedPerCall} B per call");
        Assert.True(stats.ServiceAllocatedBytesPerCall > 0, $"service allocated {stats.ServiceAllocatedBytesPerCall} B per call");
        AssertSaw(contender, stats.ServerSaw, workload == "bulk-read" ? 3 * 3 : 3);
    }

    [Theory]
    [InlineData("grpc-h2-cleartext")]
    [InlineData("grpc-h2-tls")]
    [InlineData("grpc-code-first-h2-cleartext")]
    [InlineData("grpc-code-first-h2-tls")]
    public async Task BulkReadAsOneServerStreamChecksEveryUser(string contenderName)
    {
        var contender = ContenderList.Find(contenderName)!;

        var run = await RunAsync(Plan("bulk-read", contender, count: 2).WithWorkload(plan => plan with { Variant = BulkReadVariant.Stream, Users = 20_000 }));

        Assert.Equal((RunState.Completed, 2L), (run.State, run.Stats!.Succeeded));
        AssertSaw(contender, run.Stats.ServerSaw, requests: 2);
        // 20 000 users of about 100 bytes each arrived in each call.
        Assert.InRange(run.Stats.BytesReceivedPerCall!.Value, 1_500_000, 3_000_000);
    }

    [Fact]
    public async Task BytesPerCallAreMeasuredAndPlausibleJsonOutweighsProtobufAndTlsOutweighsCleartext()
    {
        var grpc = await ReceivedPerCallAsync("big-list", "grpc-h2-cleartext");
        var stj = await ReceivedPerCallAsync("big-list", "rest-stj-h1-cleartext");
        var newtonsoft = await ReceivedPerCallAsync("big-list", "rest-newtonsoft-h2-cleartext");
        var clear = await ReceivedPerCallAsync("small-ints", "rest-stj-h1-cleartext");
        var tls = await ReceivedPerCallAsync("small-ints", "rest-stj-h1-tls");
        var grpcTls = await ReceivedPerCallAsync("small-ints", "grpc-h2-tls");
        var grpcClear = await ReceivedPerCallAsync("small-ints", "grpc-h2-cleartext");

        // The bodies' own sizes (65 000 B protobuf, 134 011 B JSON; docs/protocols.md, big-list) plus each protocol's framing and headers.
        Assert.InRange(grpc, 65_000, 67_500);
        Assert.InRange(stj, 134_011, 135_000);
        Assert.InRange(newtonsoft, 134_011, 136_000);
        Assert.True(tls > clear && grpcTls > grpcClear, $"TLS {tls} B vs cleartext {clear} B (REST), {grpcTls} B vs {grpcClear} B (gRPC)");
    }

    // A new HTTP/2 connection sends its preface and settings first, a TLS one its handshake; cleartext HTTP/1.1 sends nothing more.
    [Theory]
    [InlineData("grpc-code-first-h2-tls", true)]
    [InlineData("rest-stj-h2-cleartext", true)]
    [InlineData("rest-newtonsoft-h1-cleartext", false)]
    public async Task BigDtoFromZeroOpensAConnectionPerCallAndPaysItsHandshakeOnTheWire(string contenderName, bool handshakeBytes)
    {
        var contender = ContenderList.Find(contenderName)!;

        var kept = await RunAsync(Plan("big-dto", contender, count: 10, warmup: 2));
        var fromZero = await RunAsync(Plan("big-dto", contender, count: 10, warmup: 2).WithWorkload(plan => plan with { Connection = ConnectionUse.NewPerCall }));

        Assert.Equal((10L, 10L), (kept.Stats!.Succeeded, fromZero.Stats!.Succeeded));
        Assert.Equal((1, 10), (kept.Stats.ConnectionsUsed, fromZero.Stats.ConnectionsUsed));
        Assert.True(handshakeBytes ? fromZero.Stats.BytesSentPerCall > kept.Stats.BytesSentPerCall : fromZero.Stats.BytesSentPerCall == kept.Stats.BytesSentPerCall,
            $"from zero sent {fromZero.Stats.BytesSentPerCall} B, kept {kept.Stats.BytesSentPerCall} B per call");
    }

    [Theory]
    [InlineData("closed")]
    [InlineData("open")]
    [InlineData("ramping")]
    public async Task AWorkloadRunsUnderEachLoadModelAgainstTheService(string load)
    {
        var input = new PlanText(null, "60", "4")
        {
            Workload = "log-write", Protocol = "rest", HttpVersion = "2", Clients = "3", Load = load,
            Rate = load == "open" ? "300" : null, Stages = load == "ramping" ? "0.3:300" : null,
        };
        Assert.True(PlanText.TryCreate(input, PlanLimits.Defaults, [], out var plan, out var error), error);

        var run = await RunAsync(plan);

        Assert.Equal(RunState.Completed, run.State);
        Assert.Equal(0, run.Stats!.Failed);
        Assert.True(run.Stats.Succeeded > 0);
        Assert.InRange(run.Stats.ConnectionsUsed, 1, 3);
    }

    [Fact]
    public async Task UploadsSpreadOverClientsInParallelArriveWhole()
    {
        var run = await RunAsync(Plan("file-upload", ContenderList.Find("grpc-h2-cleartext")!, count: 8).WithWorkload(plan => plan with { FileBytes = 1 << 20, Clients = 4 }) with { Load = LoadKind.Closed, Concurrency = 4 });

        Assert.Equal((8L, 0L), (run.Stats!.Succeeded, run.Stats.Failed));
        Assert.Equal(4, run.Stats.ConnectionsUsed);
        Assert.InRange(run.Stats.BytesSentPerCall!.Value, 1 << 20, (1 << 20) + 20_000);
    }

    private static void AssertSaw(Contender contender, ServerSaw? saw, long requests)
    {
        Assert.NotNull(saw);
        Assert.Equal(contender.ServiceApi, saw.Api);
        Assert.Equal(contender.HttpVersion == WireVersion.Http11 ? "HTTP/1.1" : "HTTP/2", saw.HttpVersion);
        if (contender.Security == WireSecurity.Tls)
        {
            Assert.Contains(saw.Tls, new[] { "Tls12", "Tls13" });
        }
        else
        {
            Assert.Equal("none", saw.Tls);
        }

        Assert.Equal(requests, saw.Requests);
    }

    private async Task<double> ReceivedPerCallAsync(string workload, string contender)
    {
        var run = await RunAsync(Plan(workload, ContenderList.Find(contender)!, count: 5, warmup: 1));
        Assert.Equal(5, run.Stats!.Succeeded);
        return run.Stats.BytesReceivedPerCall!.Value;
    }

    private static RunPlan Plan(string workload, Contender contender, int count, int warmup = 0)
    {
        var input = new PlanText(null, count.ToString(System.Globalization.CultureInfo.InvariantCulture), Warmup: warmup.ToString(System.Globalization.CultureInfo.InvariantCulture))
        {
            Workload = workload,
            Protocol = WireNames<ApiProtocol>.Name(contender.Protocol),
            Serializer = WireNames<PayloadSerializer>.Name(contender.Serializer),
            HttpVersion = WireNames<WireVersion>.Name(contender.HttpVersion),
            Security = WireNames<WireSecurity>.Name(contender.Security),
        };
        Assert.True(PlanText.TryCreate(input, PlanLimits.Defaults, [], out var plan, out var error), error);
        return plan;
    }

    /// <summary>One run as the hosts run it: the engine and its strategies from DI, a scope per run, the workload strategy made from the plan.</summary>
    private async Task<RunRecord> RunAsync(RunPlan plan)
    {
        var services = new ServiceCollection();
        services.AddLogging();
        services.AddLoadEngine();
        services.Configure<EngineOptions>(engine =>
        {
            engine.ServerUri = service.H2c;
            engine.Http1Uri = service.Http1;
            engine.TlsUri = service.Tls;
            engine.TrustedCertificatePath = Path.Combine(service.Service.CertificateFolder!, "service-certificate.pem");
        });
        await using var provider = services.BuildServiceProvider();
        await using var scope = provider.CreateAsyncScope();
        using var calls = await scope.ServiceProvider.GetRequiredService<RunCallsFactory>().CreateAsync(plan, CancellationToken.None);
        return await provider.GetRequiredService<RunEngine>().ExecuteAsync(
            calls, new RunRecord(Guid.NewGuid(), plan, RunState.Running, DateTimeOffset.UtcNow, null, null, null, null), new LiveRun(), CancellationToken.None);
    }
}
