using System.Diagnostics.Metrics;
using System.Globalization;
using System.Text;

/// <summary>
/// Loaded by the runtime before Main when DOTNET_STARTUP_HOOKS names this assembly (bench/memory.mjs does, for the
/// gateway and the service): if MEMORY_PROBE_FILE names a file, a thread of its own appends one line of JSON to it every
/// MEMORY_PROBE_INTERVAL_MS (default 50), with what the GC and Kestrel's memory pool say at that moment. Before a line it
/// makes a full blocking GC, so that the line says what is really alive, when asked: once, when a file of the same name
/// ending ".collect" appears (deleted once done), and before every line while one ending ".collecting" exists.
/// </summary>
internal static class StartupHook
{
    public static void Initialize()
    {
        if (Environment.GetEnvironmentVariable("MEMORY_PROBE_FILE") is not { Length: > 0 } file)
        {
            return;
        }

        var interval = int.TryParse(Environment.GetEnvironmentVariable("MEMORY_PROBE_INTERVAL_MS"), CultureInfo.InvariantCulture, out var ms) && ms > 0 ? ms : 50;
        var pool = new KestrelPool();
        var writer = new StreamWriter(file, append: false, Encoding.ASCII) { AutoFlush = true };
        var once = file + ".collect";
        var always = file + ".collecting";
        new Thread(() =>
        {
            while (true)
            {
                var asked = File.Exists(once);
                var collected = asked || File.Exists(always);
                if (collected)
                {
                    GC.Collect();
                    GC.WaitForPendingFinalizers();
                    GC.Collect();
                }

                writer.WriteLine(MemorySample.Now(pool, collected).ToJson());
                if (asked)
                {
                    File.Delete(once);
                }

                Thread.Sleep(interval);
            }
        })
        { IsBackground = true, Name = "memory probe" }.Start();
    }
}

/// <summary>
/// Kestrel's buffers (its PinnedBlockMemoryPool, meter Microsoft.AspNetCore.MemoryPool, ASP.NET Core 10): how much the
/// pool holds, and how much of it is rented out, i.e. holds bytes read but not yet consumed or not yet written, with
/// the most rented out at once since the last sample.
/// </summary>
internal sealed class KestrelPool
{
    private const string Meter = "Microsoft.AspNetCore.MemoryPool";
    private readonly MeterListener _listener = new();
    private long _allocated;
    private long _evicted;
    private long _pooled;
    private long _mostInUse;

    public KestrelPool()
    {
        _listener.InstrumentPublished = (instrument, listener) =>
        {
            if (instrument.Meter.Name == Meter)
            {
                listener.EnableMeasurementEvents(instrument);
            }
        };
        _listener.SetMeasurementEventCallback<long>((instrument, value, _, _) => Measured(instrument.Name, value));
        _listener.Start();
    }

    /// <summary>Blocks the pool has made and not evicted: pooled or rented out.</summary>
    public long Bytes => Volatile.Read(ref _allocated) - Volatile.Read(ref _evicted);

    public long InUse => Bytes - Volatile.Read(ref _pooled);

    /// <summary>The most rented out at once since the last call (or now, if more).</summary>
    public long TakeMostInUse() => Math.Max(Interlocked.Exchange(ref _mostInUse, 0), InUse);

    private void Measured(string instrument, long value)
    {
        switch (instrument)
        {
            case "aspnetcore.memory_pool.allocated":
                Interlocked.Add(ref _allocated, value);
                break;
            case "aspnetcore.memory_pool.evicted":
                Interlocked.Add(ref _evicted, value);
                break;
            case "aspnetcore.memory_pool.pooled":
                Interlocked.Add(ref _pooled, value);
                break;
            default:
                return;
        }

        var inUse = InUse;
        long most;
        while (inUse > (most = Volatile.Read(ref _mostInUse)) && Interlocked.CompareExchange(ref _mostInUse, inUse, most) != most)
        {
        }
    }
}

/// <summary>One sample; every size in bytes.</summary>
/// <param name="HeapBytes">In use on the managed heap now: what the last GC left plus all allocated since, garbage included (GC.GetTotalMemory(false)).</param>
/// <param name="LiveAfterGcBytes">What the last GC left, free space excluded (heap size − fragmentation after it): what was really held then.</param>
/// <param name="Gen0BudgetBytes">Generation 0 when the last gen0/gen1 GC began: the garbage the GC lets pile up before collecting.</param>
/// <param name="LargeAfterGcBytes">The large object heap (arrays from 85 000 bytes) after the last GC, part of <paramref name="LiveAfterGcBytes"/>.</param>
/// <param name="CommittedBytes">What the GC had committed from the system when the last GC ended (heap, free space and budget).</param>
/// <param name="Collected">This sample follows a full GC the bench asked for.</param>
internal sealed record MemorySample(
    bool Collected, long Time, long HeapBytes, long LiveAfterGcBytes, long Gen0BudgetBytes, long CommittedBytes, long AllocatedBytes, int Gen0, int Gen1, int Gen2,
    long LargeAfterGcBytes, long PoolBytes, long PoolInUseBytes, long PoolMostInUseBytes)
{
    public static MemorySample Now(KestrelPool pool, bool collected)
    {
        var last = GC.GetGCMemoryInfo(GCKind.Any);
        var ephemeral = GC.GetGCMemoryInfo(GCKind.Ephemeral).GenerationInfo;
        return new MemorySample(
            collected,
            DateTimeOffset.UtcNow.ToUnixTimeMilliseconds(),
            GC.GetTotalMemory(forceFullCollection: false),
            last.HeapSizeBytes - last.FragmentedBytes,
            ephemeral.Length > 0 ? ephemeral[0].SizeBeforeBytes : 0,
            last.TotalCommittedBytes,
            GC.GetTotalAllocatedBytes(precise: false),
            GC.CollectionCount(0),
            GC.CollectionCount(1),
            GC.CollectionCount(2),
            last.GenerationInfo.Length > 3 ? last.GenerationInfo[3].SizeAfterBytes : 0,
            pool.Bytes,
            pool.InUse,
            pool.TakeMostInUse());
    }

    // By hand: System.Text.Json's reflection would be loaded into an app that may not use it.
    public string ToJson() => string.Create(CultureInfo.InvariantCulture,
        $"{{\"collected\":{(Collected ? "true" : "false")},\"time\":{Time},\"heapBytes\":{HeapBytes},\"liveAfterGcBytes\":{LiveAfterGcBytes},\"gen0BudgetBytes\":{Gen0BudgetBytes},\"committedBytes\":{CommittedBytes}," +
        $"\"allocatedBytes\":{AllocatedBytes},\"gen0\":{Gen0},\"gen1\":{Gen1},\"gen2\":{Gen2},\"largeAfterGcBytes\":{LargeAfterGcBytes},\"poolBytes\":{PoolBytes},\"poolInUseBytes\":{PoolInUseBytes},\"poolMostInUseBytes\":{PoolMostInUseBytes}}}");
}
