using System.Globalization;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Running;
using BenchmarkDotNet.Toolchains.InProcess.Emit;
using GrpcBestPractices.Benchmarks;
using Grpc.Net.Client;

if (args is ["probe", var probeAddress, .. var probeArguments])
{
    await Probe.RunAsync(ProbeOptions.Parse(probeAddress, probeArguments));
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

if (args is ["engine-metrics", var engineAddress, ..])
{
    LoadEngine.EngineProcess.SizeSharedArrayPoolForConcurrentStreams();
    AppContext.SetSwitch("System.Net.Http.EnableActivityPropagation", false);
    await EngineMetricsOverhead.RunAsync(engineAddress, args.Length > 2 ? int.Parse(args[2], CultureInfo.InvariantCulture) : 20000);
    return 0;
}

if (args is ["described", var describedAddress, ..])
{
    LoadEngine.EngineProcess.SizeSharedArrayPoolForConcurrentStreams();
    var (describedUs, stubUs) = await InProcess.DescribedAndStubAsync(Arguments.Parse(args).Root, describedAddress, args.Length > 2 ? int.Parse(args[2], CultureInfo.InvariantCulture) : 5000);
    Console.WriteLine($"run engine per call, client-wrapper, sequential: descriptor path {describedUs:0.0} µs, generated stub {stubUs:0.0} µs, {describedUs / stubUs:0.000}×");
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
Cores.Pinned = options.Pinned;
var root = options.Root;
// The service's own HTTP/1.1, TLS and metrics listeners (fixed ports by default) are off: this benchmark runs two services at once.
string[] onlyItsOwnListeners = ["--Protocols:Http1Url", "", "--Protocols:TlsUrl", "", "--Metrics:Url", ""];
if (options.Probe is { } probeOptions)
{
    await using var probed = await App.StartAsync(root, "PerformanceService", Cores.Service, ["--urls", "http://127.0.0.1:0", .. onlyItsOwnListeners]);
    Console.WriteLine(Cores.Describe);
    // The runtime reads the pool's size once, from the environment: a process of its own for each size.
    foreach (var arraysPerPartition in Probe.PoolSizes)
    {
        Console.WriteLine(await Command.RunAsync("dotnet", [typeof(Probe).Assembly.Location, "probe", probed.Url, .. probeOptions], timeout: TimeSpan.FromMinutes(15),
            environment: new() { [Probe.ArraysPerPartition] = arraysPerPartition }));
    }

    return 0;
}

var work = Directory.CreateTempSubdirectory("grpcbp-bench-").FullName;
var frame = Path.Combine(work, "request.bin");
File.WriteAllBytes(frame, await InProcess.CaptureRequestBodyAsync(InProcess.Request));
var h2load = new H2Load(frame, work);
var grpcJs = new GrpcJs(Path.Combine(root, "bench", "node", "grpc-js-bench.js"));
var machine = Report.Machine();
Console.WriteLine($"Benchmark: {options.Count} sequential / {options.Count * 10} concurrent calls per repetition, {options.Repetitions} repetitions; {machine}");

const string password = "bench";
var certificate = InProcess.CreateCertificate(Path.Combine(work, "service.pfx"), password);
await using var service = await App.StartAsync(root, "PerformanceService", Cores.Service, ["--urls", "http://127.0.0.1:0", .. onlyItsOwnListeners]);
await using var tlsService = await App.StartAsync(root, "PerformanceService", Cores.Service, [.. onlyItsOwnListeners, "--urls", "http://127.0.0.1:0",
    "--Kestrel:Endpoints:Tls:Url", "https://127.0.0.1:0", "--Kestrel:Endpoints:Tls:Certificate:Path", Path.Combine(work, "service.pfx"),
    "--Kestrel:Endpoints:Tls:Certificate:Password", password]);
await using var gatewayApp = await App.StartAsync(root, "ApiGateway", Cores.Load, "--urls", "http://127.0.0.1:0", "--ServerUrl", service.Url,
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
await InProcess.DescribedAndStubAsync(root, service.Url, 3000);

var samples = new Dictionary<string, List<double>>();
void Add(string key, double value) => (samples.TryGetValue(key, out var list) ? list : samples[key] = []).Add(value);
for (var repetition = 1; repetition <= options.Repetitions; repetition++)
{
    Console.WriteLine($"repetition {repetition}/{options.Repetitions}...");
    var sequential = await gateway.RunAsync(new { strategy = "client-wrapper", count, warmup = 200 });
    Add("seq.ours.p50", sequential.GetProperty("latency").GetProperty("p50Ms").GetDouble());
    Add("seq.ours.rate", sequential.GetProperty("throughputPerSecond").GetDouble());
    var h2loadSequential = await h2load.SequentialAsync(service.Url, count);
    Add("seq.h2load.p50", h2loadSequential.P50Ms);
    // What a user sees is the route: the mean per call of a 3000-call client-wrapper route run after a 500-call warm-up.
    var route = await gateway.RouteAsync("/Performance/client-wrapper/3000?includeStatuses=false&warmup=500");
    Add("route.mean", route.GetProperty("latency").GetProperty("meanMs").GetDouble());
    Add("route.h2load.mean", (await h2load.SequentialAsync(service.Url, 3000)).MeanMs);
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
    var (describedUs, stubUs) = await InProcess.DescribedAndStubAsync(root, service.Url, count);
    Add("described.us", describedUs);
    Add("stub.us", stubUs);
}

// The open model: the highest rate held within 1% for the open-seconds (achieved ÷ requested ≥ 0.99, nothing dropped):
// doubling from 2000/s until a rate is not held, then halving the gap to within 5%; and the scheduler's send-time error
// (p99 of actual − intended send time) at half that rate.
var (heldRate, heldAchieved, notHeld) = (0.0, 0.0, double.PositiveInfinity);
for (var rate = 2000.0; notHeld - heldRate > Math.Max(250, heldRate * 0.05) && rate <= 200_000;)
{
    var run = await gateway.RunRecordAsync(new { strategy = "multiple-connections", load = "open", rate, duration = options.OpenSeconds });
    var sends = run.GetProperty("stats").GetProperty("sends");
    var achieved = sends.GetProperty("achievedRatePerSecond").GetDouble();
    var held = achieved >= 0.99 * rate && sends.GetProperty("dropped").GetInt64() == 0 && run.GetProperty("state").GetString() == "Completed";
    Console.WriteLine($"open load at {rate:0}/s: achieved {achieved:0}/s, late {sends.GetProperty("late").GetInt64()}, dropped {sends.GetProperty("dropped").GetInt64()}: {(held ? "held" : "not held")}");
    if (held)
    {
        (heldRate, heldAchieved) = (rate, achieved);
    }
    else
    {
        notHeld = rate;
    }

    rate = double.IsPositiveInfinity(notHeld) ? rate * 2 : Math.Round((heldRate + notHeld) / 2);
}

var lagRun = await gateway.RunRecordAsync(new { strategy = "multiple-connections", load = "open", rate = Math.Max(100, heldRate / 2), duration = options.OpenSeconds });
var lag = lagRun.GetProperty("stats").GetProperty("sends");

double M(string key) => Statistics.Median(samples[key]);
var rows = new List<Row>
{
    new("sequential unary p50: client-wrapper (gateway)", M("seq.ours.p50"), "ms", "h2load, 1 connection, 1 stream", M("seq.h2load.p50"), "≤ 1.5×", r => r <= 1.5),
    new("sequential unary p50: client-wrapper (gateway)", M("seq.ours.p50"), "ms", "@grpc/grpc-js, same calls", M("seq.grpcjs.p50"), "< 1× (ahead)", r => r < 1),
    new("route mean per call: /Performance/client-wrapper/3000 after 500 warm-up", M("route.mean"), "ms", "h2load mean, 3000 requests, 1 connection, 1 stream", M("route.h2load.mean"), "≤ 1.5×", r => r <= 1.5),
    new($"open load: highest rate held within 1% for {options.OpenSeconds:0} s (multiple-connections)", heldAchieved, "calls/s", "rate requested", heldRate, "≥ 0.99×", r => r >= 0.99),
    new($"open load at {Math.Max(100, heldRate / 2):0}/s: send-time error p99 (actual − intended)", lag.GetProperty("lagP99Ms").GetDouble(), "ms", "late-send threshold", lag.GetProperty("lateAfterMs").GetDouble(), "–", null),
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
    new($"run engine per call, descriptor path: performance.Monitor/GetPerformance from performance.proto (client-wrapper, {count} sequential calls in 10 alternating blocks; median)", M("described.us"), "µs", "generated-stub path (MonitorTarget), same run, strategy and load", M("stub.us"), "≤ 1.10×", r => r <= 1.10),
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

internal sealed record Arguments(string Root, int Count, int Repetitions, bool SkipMicrobenchmarks, double OpenSeconds)
{
    /// <summary>bench/run.sh started this process on core 1 of two or more (<see cref="Cores"/>).</summary>
    public bool Pinned { get; init; }

    /// <summary>With --probe: only the probe, with the arguments after it (<see cref="ProbeOptions"/>), once per pool size.</summary>
    public string[]? Probe { get; init; }

    public static Arguments Parse(string[] args)
    {
        string Value(string name, string fallback) => args.SkipWhile(a => a != name).Skip(1).FirstOrDefault() ?? fallback;
        return new Arguments(
            Path.GetFullPath(Value("--root", Path.Combine(AppContext.BaseDirectory, "..", "..", "..", "..", ".."))),
            int.Parse(Value("--count", "5000"), CultureInfo.InvariantCulture),
            int.Parse(Value("--repetitions", "3"), CultureInfo.InvariantCulture),
            args.Contains("--skip-microbenchmarks"),
            double.Parse(Value("--open-seconds", "10"), CultureInfo.InvariantCulture))
        {
            Pinned = args.Contains("--pinned"),
            Probe = args.Contains("--probe") ? [.. args.SkipWhile(a => a != "--probe").Skip(1)] : null,
        };
    }
}
