using System.Globalization;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Running;
using BenchmarkDotNet.Toolchains.InProcess.Emit;
using GrpcBestPractices.Benchmarks;
using Grpc.Net.Client;

if (args is ["probe", var probeAddress, ..])
{
    await Probe.RunAsync(probeAddress, args.Length > 2 ? int.Parse(args[2], CultureInfo.InvariantCulture) : 20000);
    return 0;
}

if (args is ["layers", var layersAddress, ..])
{
    // This process as the gateway runs: its ArrayPool size, and no trace context on calls.
    LoadEngine.EngineProcess.SizeSharedArrayPoolForConcurrentStreams();
    AppContext.SetSwitch("System.Net.Http.EnableActivityPropagation", false);
    await ClientLayers.RunAsync(layersAddress, args.Length > 2 ? int.Parse(args[2], CultureInfo.InvariantCulture) : 20000);
    return 0;
}

if (args is ["pingpong", var pingAddress])
{
    using var pingChannel = GrpcChannel.ForAddress(pingAddress);
    for (var i = 0; i < 3; i++)
    {
        Console.WriteLine($"ping-pong: {await InProcess.PingPongMessagesPerSecondAsync(pingChannel, 2000):0} msg/s");
    }

    return 0;
}

var options = Arguments.Parse(args);
var root = options.Root;
var work = Directory.CreateTempSubdirectory("grpcbp-bench-").FullName;
var frame = Path.Combine(work, "request.bin");
File.WriteAllBytes(frame, await InProcess.CaptureRequestBodyAsync(InProcess.Request));
var h2load = new H2Load(frame, work);
var grpcJs = new GrpcJs(Path.Combine(root, "bench", "node", "grpc-js-bench.js"));
var machine = Report.Machine();
Console.WriteLine($"Benchmark: {options.Count} sequential / {options.Count * 10} concurrent calls per repetition, {options.Repetitions} repetitions; {machine}");

const string password = "bench";
var certificate = InProcess.CreateCertificate(Path.Combine(work, "service.pfx"), password);
await using var service = await App.StartAsync(root, "PerformanceService", "--urls", "http://127.0.0.1:0");
await using var tlsService = await App.StartAsync(root, "PerformanceService",
    "--Kestrel:Endpoints:Tls:Url", "https://127.0.0.1:0", "--Kestrel:Endpoints:Tls:Certificate:Path", Path.Combine(work, "service.pfx"),
    "--Kestrel:Endpoints:Tls:Certificate:Password", password);
await using var gatewayApp = await App.StartAsync(root, "ApiGateway", "--urls", "http://127.0.0.1:0", "--ServerUrl", service.Url,
    "--Runs:MaxCount", "1000000", "--History:DatabasePath", Path.Combine(work, "history.db"));
using var http = new HttpClient { BaseAddress = gatewayApp.BaseAddress, Timeout = TimeSpan.FromMinutes(5) };
var gateway = new Gateway(http);
using var channel = GrpcChannel.ForAddress(service.Url);
using var tlsChannel = GrpcChannel.ForAddress(tlsService.Url, new GrpcChannelOptions { HttpHandler = InProcess.TrustOnly(certificate), DisposeHttpClient = true });
var authority = service.BaseAddress.Authority;
int count = options.Count, concurrentCount = options.Count * 10, streamCount = 1000;

// Warm every path once, so no repetition pays for JIT, pools or first connections.
await gateway.RunAsync(new { strategy = "client-wrapper", count = 2000, warmup = 500 });
await gateway.RunAsync(new { strategy = "multiple-connections", count = 20000, concurrency = 100 });
await gateway.RunAsync(new { strategy = "multiple-connections", count = 20000, concurrency = 400 });
await gateway.RunAsync(new { strategy = "streaming-call", count = streamCount, warmup = 1000 });
await h2load.ThroughputAsync(service.Url, 5000, 1, 10);
await grpcJs.RunAsync(authority, "concurrent", 5000, 100);
await InProcess.KeptChannelP50MsAsync(tlsChannel, 500);
await InProcess.PingPongMessagesPerSecondAsync(channel, 3000);
await InProcess.ChannelPerCallP50MsAsync(service.Url, 100, () => new SocketsHttpHandler { UseProxy = false });
await InProcess.ChannelPerCallP50MsAsync(tlsService.Url, 100, () => InProcess.TrustOnly(certificate));
await InProcess.EngineOverBareLoopAsync(service.Url, 3000);

var samples = new Dictionary<string, List<double>>();
void Add(string key, double value) => (samples.TryGetValue(key, out var list) ? list : samples[key] = []).Add(value);
for (var repetition = 1; repetition <= options.Repetitions; repetition++)
{
    Console.WriteLine($"repetition {repetition}/{options.Repetitions}...");
    var sequential = await gateway.RunAsync(new { strategy = "client-wrapper", count, warmup = 200 });
    Add("seq.ours.p50", sequential.GetProperty("latency").GetProperty("p50Ms").GetDouble());
    Add("seq.ours.rate", sequential.GetProperty("throughputPerSecond").GetDouble());
    Add("seq.h2load.p50", await h2load.SequentialP50MsAsync(service.Url, count));
    Add("seq.grpcjs.p50", (await grpcJs.RunAsync(authority, "sequential", count, 1)).P50Ms);

    var concurrent = await gateway.RunAsync(new { strategy = "multiple-connections", count = concurrentCount, concurrency = 100, warmup = 1000 });
    Add("conc.ours", concurrent.GetProperty("throughputPerSecond").GetDouble());
    Add("conc.h2load.1", await h2load.ThroughputAsync(service.Url, concurrentCount, connections: 1, streams: 100));
    // h2load -c 4 -m 100 keeps 400 calls in flight: compare it with the same number in flight.
    var concurrent400 = await gateway.RunAsync(new { strategy = "multiple-connections", count = concurrentCount, concurrency = 400, warmup = 1000 });
    Add("conc.ours.400", concurrent400.GetProperty("throughputPerSecond").GetDouble());
    Add("conc.h2load.4", await h2load.ThroughputAsync(service.Url, concurrentCount, connections: 4, streams: 100));
    Add("conc.grpcjs", (await grpcJs.RunAsync(authority, "concurrent", concurrentCount, 100)).CallsPerSecond);

    Add("stream.pipelined", (await gateway.RunAsync(new { strategy = "streaming-call", count = streamCount, warmup = 200 })).GetProperty("throughputPerSecond").GetDouble());
    Add("stream.pingpong", await InProcess.PingPongMessagesPerSecondAsync(channel, streamCount));

    Add("channel.h2c.new", await InProcess.ChannelPerCallP50MsAsync(service.Url, 300, () => new SocketsHttpHandler { UseProxy = false }));
    Add("channel.h2c.kept", await InProcess.KeptChannelP50MsAsync(channel, 300));
    Add("channel.tls.new", await InProcess.ChannelPerCallP50MsAsync(tlsService.Url, 300, () => InProcess.TrustOnly(certificate)));
    Add("channel.tls.kept", await InProcess.KeptChannelP50MsAsync(tlsChannel, 300));

    Add("service.bytes", await InProcess.ServiceBytesPerCallAsync(service.Url, h2load, count));
    Add("engine.ratio", await InProcess.EngineOverBareLoopAsync(service.Url, count));
}

double M(string key) => Statistics.Median(samples[key]);
var rows = new List<Row>
{
    new("sequential unary p50: client-wrapper (gateway)", M("seq.ours.p50"), "ms", "h2load, 1 connection, 1 stream", M("seq.h2load.p50"), "≤ 1.5×", r => r <= 1.5),
    new("sequential unary p50: client-wrapper (gateway)", M("seq.ours.p50"), "ms", "@grpc/grpc-js, same calls", M("seq.grpcjs.p50"), "< 1× (ahead)", r => r < 1),
    new("concurrent unary: multiple-connections, 100 in flight", M("conc.ours"), "calls/s", "h2load, 1 connection × 100 streams", M("conc.h2load.1"), "≥ 0.6×", r => r >= 0.6),
    new("concurrent unary: multiple-connections, 400 in flight", M("conc.ours.400"), "calls/s", "h2load, 4 connections × 100 streams", M("conc.h2load.4"), "≥ 0.6×", r => r >= 0.6),
    new("concurrent unary: multiple-connections, 100 in flight", M("conc.ours"), "calls/s", "@grpc/grpc-js, 100 in flight", M("conc.grpcjs"), "> 1× (ahead)", r => r > 1),
    new($"streaming, pipelined, {streamCount} messages (gateway)", M("stream.pipelined"), "msg/s", "sequential unary rate (client-wrapper)", M("seq.ours.rate"), "≥ 20×", r => r >= 20),
    new($"streaming, ping-pong, {streamCount} messages", M("stream.pingpong"), "msg/s", "sequential unary rate (client-wrapper)", M("seq.ours.rate"), "–", null),
    new("channel per call p50, h2c", M("channel.h2c.new"), "ms", "kept channel p50, h2c", M("channel.h2c.kept"), "–", null),
    new("channel per call p50, TLS", M("channel.tls.new"), "ms", "kept channel p50, TLS", M("channel.tls.kept"), "–", null),
    new("channel per call p50, TLS", M("channel.tls.new"), "ms", "channel per call p50, h2c", M("channel.h2c.new"), "–", null),
    new("service bytes allocated per unary call", M("service.bytes"), "B", "target", 1024, "≤ 1×", r => r <= 1),
    new($"run engine ÷ bare await loop, same channel and process ({count} sequential calls in 10 interleaved blocks; median)", M("engine.ratio"), "", "1 (no overhead)", 1, "≤ 1.05×", r => r <= 1.05),
};

if (!options.SkipMicrobenchmarks)
{
    var config = ManualConfig.CreateMinimumViable()
        .AddJob(Job.ShortRun.WithToolchain(InProcessEmitToolchain.Instance))
        .WithOptions(ConfigOptions.DisableLogFile)
        .WithArtifactsPath(Path.Combine(work, "BenchmarkDotNet"));
    var summary = BenchmarkRunner.Run<ByteBenchmarks>(config);
    foreach (var size in new[] { 100, 65536 })
    {
        double Nanoseconds(string method) => summary.Reports.Single(r => r.BenchmarkCase.Descriptor.WorkloadMethod.Name == method
            && (int)r.BenchmarkCase.Parameters["Size"] == size).ResultStatistics!.Median;
        long Bytes(string method) => summary.Reports.Single(r => r.BenchmarkCase.Descriptor.WorkloadMethod.Name == method
            && (int)r.BenchmarkCase.Parameters["Size"] == size).GcStats.GetBytesAllocatedPerOperation(summary.BenchmarksCases.First(c => c.Descriptor.WorkloadMethod.Name == method && (int)c.Parameters["Size"] == size)) ?? 0;
        rows.Add(new($"{size} B in: UnsafeWrap ({Bytes("WrapIn")} B allocated)", Nanoseconds("WrapIn"), "ns", $"ByteString.CopyFrom ({Bytes("CopyIn")} B allocated)", Nanoseconds("CopyIn"), "–", null));
        rows.Add(new($"{size} B out: MemoryMarshal.TryGetArray ({Bytes("TakeOut")} B allocated)", Nanoseconds("TakeOut"), "ns", $"ToByteArray ({Bytes("CopyOut")} B allocated)", Nanoseconds("CopyOut"), "–", null));
    }

    rows.AddRange(HistogramBenchmarks.Rows(BenchmarkRunner.Run<HistogramBenchmarks>(config)));
}

Report.Print(rows, options.Repetitions, machine);
Directory.Delete(work, recursive: true);
return rows.All(row => row.Met is null || row.Met(row.Ratio)) ? 0 : 3;

internal sealed record Arguments(string Root, int Count, int Repetitions, bool SkipMicrobenchmarks)
{
    public static Arguments Parse(string[] args)
    {
        string Value(string name, string fallback) => args.SkipWhile(a => a != name).Skip(1).FirstOrDefault() ?? fallback;
        return new Arguments(
            Path.GetFullPath(Value("--root", Path.Combine(AppContext.BaseDirectory, "..", "..", "..", "..", ".."))),
            int.Parse(Value("--count", "5000"), CultureInfo.InvariantCulture),
            int.Parse(Value("--repetitions", "3"), CultureInfo.InvariantCulture),
            args.Contains("--skip-microbenchmarks"));
    }
}
