using System.Diagnostics;
using Grpc.Core;
using Grpc.Net.Client;
using Performance;

namespace GrpcBestPractices.Benchmarks;

/// <summary>A quick look at one client path: p50 and bytes allocated per call, bare loop, in this process.</summary>
public static class Probe
{
    public static async Task RunAsync(string address, int count)
    {
        using var channel = GrpcChannel.ForAddress(address);
        var client = new Monitor.MonitorClient(channel);
        var request = new PerformanceStatusRequest { ClientName = "probe" };
        for (var i = 0; i < 2000; i++)
        {
            await client.GetPerformanceAsync(request);
        }

        using var sampler = new AllocationSampler();
        var latencies = new double[count];
        var before = GC.GetTotalAllocatedBytes(precise: true);
        var start = Stopwatch.GetTimestamp();
        for (var i = 0; i < count; i++)
        {
            var t = Stopwatch.GetTimestamp();
            await client.GetPerformanceAsync(request);
            latencies[i] = Stopwatch.GetElapsedTime(t).TotalMilliseconds;
        }

        var wall = Stopwatch.GetElapsedTime(start);
        Array.Sort(latencies);
        var allocated = GC.GetTotalAllocatedBytes(precise: true) - before;
        Console.WriteLine($"sequential: p50 {latencies[count / 2] * 1000:0} us, {count / wall.TotalSeconds:0} calls/s, {allocated / count} B/call");
        Print(sampler);

        // The same loop with what the run engine adds to every call: a deadline and a cancellable token.
        using var run = new CancellationTokenSource();
        before = GC.GetTotalAllocatedBytes(precise: true);
        start = Stopwatch.GetTimestamp();
        for (var i = 0; i < count; i++)
        {
            var t = Stopwatch.GetTimestamp();
            await client.GetPerformanceAsync(request, new CallOptions(deadline: DateTime.UtcNow.AddSeconds(10), cancellationToken: run.Token));
            latencies[i] = Stopwatch.GetElapsedTime(t).TotalMilliseconds;
        }

        wall = Stopwatch.GetElapsedTime(start);
        allocated = GC.GetTotalAllocatedBytes(precise: true) - before;
        Array.Sort(latencies);
        Console.WriteLine($"sequential with deadline: p50 {latencies[count / 2] * 1000:0} us, {count / wall.TotalSeconds:0} calls/s, {allocated / count} B/call");

        sampler.Reset();
        before = GC.GetTotalAllocatedBytes(precise: true);
        start = Stopwatch.GetTimestamp();
        var next = -1;
        await Task.WhenAll(Enumerable.Range(0, 100).Select(async _ =>
        {
            while (Interlocked.Increment(ref next) < count * 3)
            {
                await client.GetPerformanceAsync(request);
            }
        }));
        wall = Stopwatch.GetElapsedTime(start);
        allocated = GC.GetTotalAllocatedBytes(precise: true) - before;
        Console.WriteLine($"concurrent 100: {count * 3 / wall.TotalSeconds:0} calls/s, {allocated / (count * 3)} B/call");
        Print(sampler);
    }

    private static void Print(AllocationSampler sampler)
    {
        foreach (var (type, ticks) in sampler.Top(12))
        {
            Console.WriteLine($"  {ticks,6}  {type}");
        }
    }
}
