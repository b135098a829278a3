using System.Diagnostics;
using System.Net;
using System.Net.Http.Json;
using System.Net.Security;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using System.Text.Json;
using Grpc.Core;
using Grpc.Net.Client;
using LoadEngine;
using LoadEngine.Calls;
using LoadEngine.Clients;
using LoadEngine.Targets.Described;
using LoadEngine.Strategies;
using Microsoft.Extensions.Options;
using Performance;

namespace GrpcBestPractices.Benchmarks;

/// <summary>h2load (nghttp2) sending the same gRPC request body the gateway sends.</summary>
public sealed class H2Load(string frameFile, string workDirectory)
{
    public async Task<double> SequentialP50MsAsync(string url, int count) => (await SequentialAsync(url, count)).P50Ms;

    /// <summary>Median and mean of <paramref name="count"/> requests one after another on one connection.</summary>
    public async Task<(double P50Ms, double MeanMs)> SequentialAsync(string url, int count)
    {
        var log = Path.Combine(workDirectory, "h2load-requests.tsv");
        await RunAsync(url, count, connections: 1, streams: 1, "--log-file=" + log);
        // Columns: start (µs since epoch), HTTP status, duration (µs).
        var durations = File.ReadLines(log).Select(line => Command.Number(line.Split('\t')[2]) / 1000).ToArray();
        return (Statistics.Percentile(durations, 50), durations.Average());
    }

    public async Task<double> ThroughputAsync(string url, int count, int connections, int streams)
    {
        var output = await RunAsync(url, count, connections, streams);
        var finished = output.Split('\n').Single(line => line.StartsWith("finished in", StringComparison.Ordinal));
        return Command.Number(finished.Split(", ")[1].Split(' ')[0]);
    }

    private async Task<string> RunAsync(string url, int count, int connections, int streams, params string[] extra)
    {
        var output = await Command.RunAsync("h2load",
        [
            "-n", count.ToString(), "-c", connections.ToString(), "-m", streams.ToString(), "-d", frameFile,
            "-H", "content-type: application/grpc", "-H", "te: trailers", .. extra, url + "/" + Monitor.Descriptor.FullName + "/GetPerformance",
        ]);
        var requests = output.Split('\n').Single(line => line.StartsWith("requests:", StringComparison.Ordinal));
        return requests.Contains($"{count} succeeded, 0 failed", StringComparison.Ordinal)
            ? output
            : throw new InvalidOperationException($"h2load had failures: {requests}");
    }
}

/// <summary>@grpc/grpc-js, the reference Node client, calling the same service with the same request.</summary>
public sealed class GrpcJs(string script)
{
    public async Task<(double P50Ms, double CallsPerSecond)> RunAsync(string address, string mode, int count, int inFlight)
    {
        var output = await Command.RunAsync("node", [script, address, mode, count.ToString(), inFlight.ToString()]);
        var result = JsonDocument.Parse(output).RootElement;
        return (result.GetProperty("p50Ms").GetDouble(), result.GetProperty("callsPerSecond").GetDouble());
    }
}

/// <summary>Runs through the gateway's own API: the figures are the product's own.</summary>
public sealed class Gateway(HttpClient http)
{
    /// <summary>A chapter route, as a user clicks it in Swagger; returns its stats.</summary>
    public async Task<JsonElement> RouteAsync(string route)
    {
        var answer = await http.GetFromJsonAsync<JsonElement>(route);
        return answer.GetProperty("stats");
    }

    /// <summary>The whole run as stored (stats, series, plan), for runs whose send statistics matter.</summary>
    public async Task<JsonElement> RunRecordAsync(object plan)
    {
        await RunAsync(plan);
        var newest = await http.GetFromJsonAsync<JsonElement>("/api/runs?limit=1");
        return newest.GetProperty("runs")[0];
    }

    public async Task<JsonElement> RunAsync(object plan)
    {
        using var started = await http.PostAsJsonAsync("/api/runs", plan);
        var id = (await started.Content.ReadFromJsonAsync<JsonElement>()).GetProperty("id").GetString();
        var clock = Stopwatch.StartNew();
        while (true)
        {
            var run = await http.GetFromJsonAsync<JsonElement>($"/api/runs/{id}");
            switch (run.GetProperty("state").GetString())
            {
                case "Completed":
                    return run.GetProperty("stats");
                case "Running" when clock.Elapsed < TimeSpan.FromMinutes(5):
                    await Task.Delay(50);
                    break;
                default:
                    throw new InvalidOperationException($"Run {id} did not complete: {run}");
            }
        }
    }
}

/// <summary>Measurements made in this process, on channels of its own.</summary>
public static class InProcess
{
    public static PerformanceStatusRequest Request => new() { ClientName = "client-wrapper #1", PayloadBytes = 100 };

    /// <summary>The request body exactly as Grpc.Net.Client frames it, taken from the client itself, so h2load sends the same bytes.</summary>
    public static async Task<byte[]> CaptureRequestBodyAsync(PerformanceStatusRequest request)
    {
        var capture = new BodyCapture();
        using var channel = GrpcChannel.ForAddress("http://127.0.0.1", new GrpcChannelOptions { HttpHandler = capture });
        var call = new Monitor.MonitorClient(channel).GetPerformanceAsync(request);
        await Assert.ThrowsRpcAsync(call.ResponseAsync);
        return capture.Body ?? throw new InvalidOperationException("The client sent no request.");
    }

    /// <summary>One stream, one message at a time: write, wait for the answer, write the next.</summary>
    public static async Task<double> PingPongMessagesPerSecondAsync(GrpcChannel channel, int count)
    {
        using var call = new Monitor.MonitorClient(channel).GetManyPerformanceStats();
        var request = Request;
        var start = Stopwatch.GetTimestamp();
        for (var i = 0; i < count; i++)
        {
            await call.RequestStream.WriteAsync(request);
            if (!await call.ResponseStream.MoveNext())
            {
                throw new InvalidOperationException("The stream ended early.");
            }
        }

        var elapsed = Stopwatch.GetElapsedTime(start);
        await call.RequestStream.CompleteAsync();
        while (await call.ResponseStream.MoveNext())
        {
        }

        return count / elapsed.TotalSeconds;
    }

    /// <summary>Median latency of a call on a channel made (and disposed) for that call alone.</summary>
    public static async Task<double> ChannelPerCallP50MsAsync(string address, int count, Func<SocketsHttpHandler> handler)
    {
        var latencies = new double[count];
        for (var i = 0; i < count; i++)
        {
            var start = Stopwatch.GetTimestamp();
            using (var channel = GrpcChannel.ForAddress(address, new GrpcChannelOptions { HttpHandler = handler(), DisposeHttpClient = true }))
            {
                await new Monitor.MonitorClient(channel).GetPerformanceAsync(Request);
            }

            latencies[i] = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
        }

        return Statistics.Percentile(latencies, 50);
    }

    public static async Task<double> KeptChannelP50MsAsync(GrpcChannel channel, int count)
    {
        var client = new Monitor.MonitorClient(channel);
        var latencies = new double[count];
        for (var i = 0; i < count; i++)
        {
            var start = Stopwatch.GetTimestamp();
            await client.GetPerformanceAsync(Request);
            latencies[i] = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
        }

        return Statistics.Percentile(latencies, 50);
    }

    /// <summary>
    /// The same calls on the same channel, through the run engine and a strategy, and as a bare loop, in ten
    /// interleaved blocks so machine drift falls on both alike. Returns the median of the blocks' engine ÷ bare.
    /// </summary>
    public static async Task<double> EngineOverBareLoopAsync(string address, int count)
    {
        const int Blocks = 10;
        using var engine = new EngineUnderTest(address, Math.Max(1, count / Blocks));
        var client = new Monitor.MonitorClient(engine.Wrapper.Channel);
        var request = Request;
        var ratios = new double[Blocks];
        for (var block = 0; block < Blocks; block++)
        {
            var bare = Stopwatch.GetTimestamp();
            for (var i = 0; i < engine.Plan.Count; i++)
            {
                await client.GetPerformanceAsync(request);
            }

            var bareSeconds = Stopwatch.GetElapsedTime(bare).TotalSeconds;
            ratios[block] = (await engine.RunAsync()).WallTimeMs / 1000 / bareSeconds;
        }

        return Statistics.Median(ratios);
    }

    /// <summary>
    /// The run engine's time per call on the built-in service through the descriptor path (the plan names
    /// performance.Monitor/GetPerformance and carries the descriptors of the shipped performance.proto, so the calls are
    /// Roslyn-compiled messages behind a <c>Method&lt;IMessage, IMessage&gt;</c>) and through the generated stub's
    /// (MonitorTarget), same strategy, channel and sequential load, in ten blocks whose order alternates, so machine
    /// drift falls on both alike. Returns the median µs per call of each.
    /// </summary>
    public static async Task<(double DescribedUs, double StubUs)> DescribedAndStubAsync(string root, string address, int count)
    {
        const int Blocks = 10;
        using var engine = new EngineUnderTest(address, Math.Max(1, count / Blocks));
        var proto = Path.Combine(root, "GrpcDependencies", "Protos", "performance.proto");
        using var channel = GrpcChannel.ForAddress(address);
        var described = await DescribedTarget.DescribeAsync(new DescriptorSource([proto], [Path.GetDirectoryName(proto)!], null), channel.CreateCallInvoker(), new CallOptions());
        // The stub's request: the same client name and answer size, given as data (fixed, so built once as the stub's are per call).
        var plan = described.Describing(engine.Plan with { Called = new MethodCall { Call = "performance.Monitor/GetPerformance", Data = """{"clientName": "client-wrapper #1", "payloadBytes": 100}""" } });
        var calls = engine.Compose(plan);
        await engine.RunAsync();
        await engine.RunAsync(calls, plan);
        var (describedUs, stubUs) = (new double[Blocks], new double[Blocks]);
        for (var block = 0; block < Blocks; block++)
        {
            double PerCallUs(RunStats stats) => stats.WallTimeMs * 1000 / stats.Calls;
            if (block % 2 == 0)
            {
                stubUs[block] = PerCallUs(await engine.RunAsync());
                describedUs[block] = PerCallUs(await engine.RunAsync(calls, plan));
            }
            else
            {
                describedUs[block] = PerCallUs(await engine.RunAsync(calls, plan));
                stubUs[block] = PerCallUs(await engine.RunAsync());
            }
        }

        return (Statistics.Median(describedUs), Statistics.Median(stubUs));
    }

    /// <summary>Bytes the service allocated per call while h2load made <paramref name="count"/> sequential calls.</summary>
    public static async Task<double> ServiceBytesPerCallAsync(string address, H2Load h2load, int count)
    {
        using var http = new HttpClient { DefaultRequestVersion = HttpVersion.Version20, DefaultVersionPolicy = HttpVersionPolicy.RequestVersionExact };
        var diagnostics = new Uri(new Uri(address), "/diagnostics");
        var before = (await http.GetFromJsonAsync<JsonElement>(diagnostics)).GetProperty("allocatedBytes").GetInt64();
        await h2load.ThroughputAsync(address, count, connections: 1, streams: 1);
        var after = (await http.GetFromJsonAsync<JsonElement>(diagnostics)).GetProperty("allocatedBytes").GetInt64();
        return (double)(after - before) / count;
    }

    /// <summary>A self-signed certificate for 127.0.0.1, written as a PFX the service's Kestrel section can load.</summary>
    public static X509Certificate2 CreateCertificate(string pfxPath, string password)
    {
        using var key = RSA.Create(2048);
        var request = new CertificateRequest("CN=127.0.0.1", key, HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1);
        var names = new SubjectAlternativeNameBuilder();
        names.AddIpAddress(IPAddress.Loopback);
        request.CertificateExtensions.Add(names.Build());
        request.CertificateExtensions.Add(new X509EnhancedKeyUsageExtension([new Oid("1.3.6.1.5.5.7.3.1")], critical: false));
        using var certificate = request.CreateSelfSigned(DateTimeOffset.UtcNow.AddDays(-1), DateTimeOffset.UtcNow.AddDays(1));
        File.WriteAllBytes(pfxPath, certificate.Export(X509ContentType.Pfx, password));
        return X509CertificateLoader.LoadPkcs12(File.ReadAllBytes(pfxPath), password);
    }

    /// <summary>A handler that trusts exactly this certificate (nothing else), for the TLS measurements.</summary>
    public static SocketsHttpHandler TrustOnly(X509Certificate2 certificate) => new()
    {
        UseProxy = false,
        SslOptions = new SslClientAuthenticationOptions
        {
            RemoteCertificateValidationCallback = (_, presented, _, _) => presented is not null && presented.GetCertHashString() == certificate.GetCertHashString(),
        },
    };
}

/// <summary>The run engine with the client-wrapper strategy against one address, as the gateway makes them: sequential runs of a fixed count.</summary>
public sealed class EngineUnderTest : IDisposable
{
    private readonly RunEngine _engine;
    private readonly IRunCalls _calls;

    public EngineUnderTest(string address, int callsPerRun)
    {
        var options = Options.Create(new EngineOptions { ServerUri = new Uri(address) });
        Wrapper = new ClientWrapper(new ChannelFactory(options));
        _engine = new RunEngine(options);
        Plan = new RunPlan { Strategy = "client-wrapper", Load = LoadKind.Sequential, Count = callsPerRun };
        _calls = RunCallsFactory.Compose(new ClientWrapperStrategy(Wrapper), Plan);
    }

    public ClientWrapper Wrapper { get; }

    public RunPlan Plan { get; }

    /// <summary>The calls of another plan (the same strategy, on the same channel), for <see cref="RunAsync(IRunCalls, RunPlan)"/>.</summary>
    public IRunCalls Compose(RunPlan plan) => RunCallsFactory.Compose(new ClientWrapperStrategy(Wrapper), plan);

    public Task<RunStats> RunAsync() => RunAsync(_calls, Plan);

    public async Task<RunStats> RunAsync(IRunCalls calls, RunPlan plan)
    {
        var run = await _engine.ExecuteAsync(calls, new RunRecord(Guid.NewGuid(), plan, RunState.Running, DateTimeOffset.UtcNow, null, null, null, null), new LiveRun(), CancellationToken.None);
        return run.State == RunState.Completed ? run.Stats! : throw new InvalidOperationException($"The engine run ended {run.State}: {run.Error}");
    }

    public void Dispose() => Wrapper.Dispose();
}

/// <summary>Keeps the body of the one request it is sent and answers 503, so the call ends there.</summary>
internal sealed class BodyCapture : HttpMessageHandler
{
    public byte[]? Body { get; private set; }

    protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
    {
        Body = await request.Content!.ReadAsByteArrayAsync(cancellationToken);
        return new HttpResponseMessage(HttpStatusCode.ServiceUnavailable) { Version = HttpVersion.Version20, RequestMessage = request };
    }
}

internal static class Assert
{
    public static async Task ThrowsRpcAsync(Task call)
    {
        try
        {
            await call;
        }
        catch (RpcException)
        {
            return;
        }

        throw new InvalidOperationException("The captured call was expected to end with an RpcException.");
    }
}

public static class Statistics
{
    public static double Percentile(double[] values, double percentile)
    {
        var sorted = values.Order().ToArray();
        return sorted[Math.Clamp((int)Math.Ceiling(percentile / 100 * sorted.Length) - 1, 0, sorted.Length - 1)];
    }

    public static double Median(IEnumerable<double> values) => Percentile(values.ToArray(), 50);
}
