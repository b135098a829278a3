using System.Diagnostics;
using System.Globalization;
using Grpc.Net.Client;
using LoadEngine;
using LoadEngine.Calls;
using LoadEngine.Clients;
using LoadEngine.Strategies;
using Microsoft.Extensions.Options;
using Performance;

namespace GrpcBestPractices.Benchmarks;

/// <summary>
/// A bare Grpc.Net.Client in this process, on one channel as GrpcChannel.ForAddress makes it: per number of calls in
/// flight, the rate and the bytes allocated per call (GC.GetTotalAllocatedBytes over a fixed number of calls, with
/// no listener on), then the same calls again with listeners on: what ArrayPool&lt;byte&gt;.Shared had to make anew
/// (by array size) and which types were allocated most (GC allocation ticks, one about every 100 KB). With --engine,
/// also the run engine's own calls (the multiple-connections strategy, closed load) at the same numbers in flight.
/// </summary>
public static class Probe
{
    public const string ArraysPerPartition = "DOTNET_SYSTEM_BUFFERS_SHAREDARRAYPOOL_MAXARRAYSPERPARTITION";

    /// <summary>What bench/run.sh --probe compares: the runtime's default (32), what the gateway and the CLI set (256), and more.</summary>
    public static IReadOnlyList<string> PoolSizes { get; } = ["", "256", "1024"];

    public static async Task RunAsync(ProbeOptions options)
    {
        using var channel = GrpcChannel.ForAddress(options.Address);
        var client = new Monitor.MonitorClient(channel);
        var request = new PerformanceStatusRequest { ClientName = "probe", PayloadBytes = options.PayloadBytes };
        Func<Task> call = () => client.GetPerformanceAsync(request).ResponseAsync;
        Console.WriteLine($"probe: {options.Count} calls per row, answers of 2 × {(options.PayloadBytes == 0 ? 100 : options.PayloadBytes)} B, "
            + $"{Environment.ProcessorCount} processor(s) seen, ArrayPool arrays per partition {Environment.GetEnvironmentVariable(ArraysPerPartition) ?? "32 (the default)"}");
        await CallAsync(call, 0, 2000);
        await CallAsync(call, options.InFlight.Max(), options.Count);

        Console.WriteLine("| in flight | calls/s | B per call | pool arrays made per call | their B per call | dropped per call | sizes made (arrays per call) |");
        Console.WriteLine("|---|---:|---:|---:|---:|---:|---|");
        var profiles = new List<(int InFlight, IReadOnlyList<(int Size, string Renter, long Arrays)> Renters, IEnumerable<(string Type, long Ticks)> Types)>();
        foreach (var inFlight in options.InFlight)
        {
            var before = GC.GetTotalAllocatedBytes(precise: true);
            var rate = await CallAsync(call, inFlight, options.Count);
            var bytes = (double)(GC.GetTotalAllocatedBytes(precise: true) - before) / options.Count;

            // The two listeners apart: the pool's events allocate, and would take the allocation ticks' top places.
            var misses = new ArrayPoolMisses();
            await CallAsync(call, inFlight, options.Count);
            misses.Dispose();
            using var sampler = new AllocationSampler();
            await CallAsync(call, inFlight, options.Count);
            await sampler.SettledAsync();
            var sizes = misses.Sizes;
            double PerCall(Func<ArrayPoolSize, long> count) => (double)sizes.Sum(count) / options.Count;
            // A stray array (fewer than one per 100 calls) is the pool warming a size, not a miss per call.
            var made = string.Join(", ", sizes.Where(size => size.Allocated * 100 >= options.Count).Take(4)
                .Select(size => string.Create(CultureInfo.InvariantCulture, $"{size.Size} B × {(double)size.Allocated / options.Count:0.##}")));
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"| {(inFlight == 0 ? "sequential" : inFlight)} | {rate:0} | {bytes:0} | {PerCall(s => s.Allocated):0.##} | {PerCall(s => s.AllocatedBytes):0} | {PerCall(s => s.Dropped):0.##} | {(made.Length == 0 ? "none" : made)} |"));
            profiles.Add((inFlight, [.. misses.Renters.Where(r => r.Arrays * 100 >= options.Count)], sampler.Top(6).ToList()));
        }

        if (options.Engine)
        {
            await EngineAsync(options);
        }

        // Who rented what the pool had to make, wherever it made any; the types allocated most, first and last row.
        foreach (var (inFlight, renters, types) in profiles)
        {
            var name = inFlight == 0 ? "sequential" : $"{inFlight} in flight";
            if (renters.Count > 0)
            {
                Console.WriteLine($"{name}: arrays the pool made, by the method that rented them");
                foreach (var (size, renter, arrays) in renters.Take(4))
                {
                    Console.WriteLine($"  {arrays,6} × {size,6} B  {renter}");
                }
            }

            if (inFlight == profiles[0].InFlight || inFlight == profiles[^1].InFlight)
            {
                Console.WriteLine($"{name}: allocation ticks (one about every 100 KB) by type");
                foreach (var (type, ticks) in types)
                {
                    Console.WriteLine($"  {ticks,6}  {type}");
                }
            }
        }
    }

    /// <summary>The engine's own calls as the gateway makes them at each number in flight: bytes per call around the whole run.</summary>
    private static async Task EngineAsync(ProbeOptions options)
    {
        var engineOptions = Options.Create(new EngineOptions { ServerUri = new Uri(options.Address) });
        using var strategy = SharedChannelStrategy.ManyConnections(new ChannelFactory(engineOptions));
        var engine = new RunEngine(engineOptions);
        Console.WriteLine("| run engine, multiple-connections, in flight | calls/s | B per call |");
        Console.WriteLine("|---|---:|---:|");
        foreach (var inFlight in options.InFlight.Where(n => n > 0))
        {
            var plan = new RunPlan { Strategy = strategy.Info.Name, Load = LoadKind.Closed, Count = options.Count, Concurrency = inFlight, Warmup = 1000, Called = new BuiltInCall(PayloadBytes: options.PayloadBytes) };
            var calls = RunCallsFactory.Compose(strategy, plan);
            var before = GC.GetTotalAllocatedBytes(precise: true);
            var run = await engine.ExecuteAsync(calls, new RunRecord(Guid.NewGuid(), plan, RunState.Running, DateTimeOffset.UtcNow, null, null, null, null), new LiveRun(), CancellationToken.None);
            var bytes = (double)(GC.GetTotalAllocatedBytes(precise: true) - before) / (options.Count + plan.Warmup);
            var stats = run.State == RunState.Completed ? run.Stats! : throw new InvalidOperationException($"The engine run ended {run.State}: {run.Error}");
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"| {inFlight} | {stats.Calls / (stats.WallTimeMs / 1000):0} | {bytes:0} |"));
        }
    }

    /// <summary>count calls, one after another (inFlight 0) or by inFlight loops at once; returns calls per second.</summary>
    private static async Task<double> CallAsync(Func<Task> call, int inFlight, int count)
    {
        var start = Stopwatch.GetTimestamp();
        if (inFlight == 0)
        {
            for (var i = 0; i < count; i++)
            {
                await call();
            }
        }
        else
        {
            var next = -1;
            await Task.WhenAll(Enumerable.Range(0, inFlight).Select(async _ =>
            {
                while (Interlocked.Increment(ref next) < count)
                {
                    await call();
                }
            }));
        }

        return count / Stopwatch.GetElapsedTime(start).TotalSeconds;
    }
}

/// <summary>
/// The probe's settings: <c>probe ADDRESS [COUNT] [--in-flight 0,1,2,10,100,400] [--payload-bytes N] [--engine]</c>; 0 in
/// flight is a sequential await loop, payload 0 the service's default (2 × 100 bytes in each answer).
/// </summary>
public sealed record ProbeOptions(string Address, int Count, IReadOnlyList<int> InFlight, int PayloadBytes, bool Engine)
{
    public static ProbeOptions Parse(string address, string[] rest)
    {
        string Value(string name, string fallback) => rest.SkipWhile(a => a != name).Skip(1).FirstOrDefault() ?? fallback;
        var count = rest.Length > 0 && !rest[0].StartsWith("--", StringComparison.Ordinal) ? rest[0] : "20000";
        return new ProbeOptions(
            address,
            int.Parse(count, CultureInfo.InvariantCulture),
            Value("--in-flight", "0,1,2,10,100,400").Split(',').Select(n => int.Parse(n, CultureInfo.InvariantCulture)).ToList(),
            int.Parse(Value("--payload-bytes", "0"), CultureInfo.InvariantCulture),
            rest.Contains("--engine"));
    }
}
