using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Running;
using BenchmarkDotNet.Toolchains.InProcess.Emit;
using Grpc.Core;
using LoadEngine.Metrics;
using OpenTelemetry;
using OpenTelemetry.Metrics;

namespace GrpcBestPractices.Benchmarks;

/// <summary>
/// What exporting the engine's metrics costs a run (<c>engine-metrics</c> mode): the run engine's time and bytes per call
/// against the same service with no meter provider and with one exporting the engine's meter to Prometheus, in
/// alternating blocks; then the recording alone, per call, under BenchmarkDotNet.
/// </summary>
public static class EngineMetricsOverhead
{
    public static async Task RunAsync(string address, int count)
    {
        const int Blocks = 10;
        using var engine = new EngineUnderTest(address, Math.Max(1, count / Blocks));
        var figures = new Dictionary<bool, List<(double Nanoseconds, double Bytes)>> { [false] = [], [true] = [] };
        await engine.RunAsync();
        for (var block = 0; block < Blocks * 2; block++)
        {
            var exported = block % 2 == 1;
            using var provider = exported ? Sdk.CreateMeterProviderBuilder().AddMeter(EngineMetrics.MeterName).AddPrometheusExporter().Build() : null;
            var stats = await engine.RunAsync();
            figures[exported].Add((stats.WallTimeMs * 1e6 / stats.Calls, stats.AllocatedBytesPerCall));
        }

        Console.WriteLine($"run engine, {engine.Plan.Count} sequential client-wrapper calls per block, {Blocks} blocks each, medians:");
        foreach (var (exported, blocks) in figures)
        {
            Console.WriteLine($"  {(exported ? "engine meter exported to Prometheus" : "no meter provider"),-38} {Statistics.Median([.. blocks.Select(b => b.Nanoseconds)]),8:0} ns/call {Statistics.Median([.. blocks.Select(b => b.Bytes)]),7:0} B/call");
        }

        var config = ManualConfig.CreateMinimumViable()
            .AddJob(Job.ShortRun.WithToolchain(InProcessEmitToolchain.Instance))
            .WithOptions(ConfigOptions.DisableLogFile);
        BenchmarkRunner.Run<CallRecordingBenchmarks>(config);
    }
}

/// <summary>Recording one call (a success, and one failure in ten) into a run's recorder, without and with the engine's metrics exported.</summary>
[MemoryDiagnoser]
public class CallRecordingBenchmarks
{
    private const int Calls = 1000;
    private MeterProvider _provider = null!;
    private RunRecorder _bare = null!;
    private RunRecorder _metered = null!;

    [GlobalSetup]
    public void Setup()
    {
        _provider = Sdk.CreateMeterProviderBuilder().AddMeter(EngineMetrics.MeterName).AddPrometheusExporter().Build();
        _bare = new RunRecorder(count: null);
        _metered = new RunRecorder(count: null, metrics: new CallMetrics("client-wrapper"));
    }

    [GlobalCleanup]
    public void Cleanup() => _provider.Dispose();

    [Benchmark(Baseline = true, OperationsPerInvoke = Calls, Description = "RunRecorder, no metrics")]
    public void Bare() => Record(_bare);

    [Benchmark(OperationsPerInvoke = Calls, Description = "RunRecorder + engine meter exported to Prometheus")]
    public void Metered() => Record(_metered);

    private static void Record(RunRecorder recorder)
    {
        for (var index = 1; index <= Calls; index++)
        {
            recorder.RecordSuccess(index, dueAt: 1000, sentAt: 1000, endedAt: 1000 + index * 1000);
            if (index % 10 == 0)
            {
                recorder.RecordFailure(StatusCode.Unavailable);
            }
        }
    }
}
