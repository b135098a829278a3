using System.Buffers;
using System.Collections.Concurrent;
using System.Diagnostics.Metrics;
using System.Diagnostics.Tracing;
using System.Globalization;
using System.Text;

/// <summary>
/// Loaded by the runtime before Main when DOTNET_STARTUP_HOOKS names this assembly (bench/memory.mjs does, for the
/// gateway and the service): if MEMORY_PROBE_FILE names a file, a thread of its own appends one line of JSON to it every
/// MEMORY_PROBE_INTERVAL_MS (default 50), with what the GC and Kestrel's memory pool say at that moment. Before a line it
/// makes a full blocking GC, so that the line says what is really alive, when asked: once, when a file of the same name
/// ending ".collect" appears (deleted once done), and before every line while one ending ".collecting" exists; while
/// that one exists it also follows the buffers rented from ArrayPool&lt;byte&gt;.Shared (its events cost allocations,
/// so not in a run measured for its own sake).
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
        var rentals = new ArrayPoolRentals();
        var writer = new StreamWriter(file, append: false, Encoding.ASCII) { AutoFlush = true };
        var once = file + ".collect";
        var always = file + ".collecting";
        new Thread(() =>
        {
            while (true)
            {
                var asked = File.Exists(once);
                var collecting = File.Exists(always);
                var collected = asked || collecting;
                rentals.Follow(collecting);
                if (collected)
                {
                    GC.Collect();
                    GC.WaitForPendingFinalizers();
                    GC.Collect();
                }

                writer.WriteLine(MemorySample.Now(pool, rentals, collected).ToJson());
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

/// <summary>
/// The buffers rented from ArrayPool&lt;byte&gt;.Shared (the chunk buffers, grpc-dotnet's serialization buffers,
/// SocketsHttpHandler's) and not yet returned, from the pool's own events, while followed: those rented before are
/// not counted, nor their return. Also the bytes of new arrays the pool made meanwhile, which the GC sees as alive.
/// </summary>
internal sealed class ArrayPoolRentals : EventListener
{
    private const string Source = "System.Buffers.ArrayPoolEventSource";

    // Field initializers run before EventListener's constructor, which may already announce the source.
    private readonly ConcurrentDictionary<int, int> _outstanding = new();
    private readonly int _bytePool = ArrayPool<byte>.Shared.GetHashCode();
    private EventSource? _source;
    private volatile bool _following;
    private long _bytes;
    private long _most;
    private long _allocated;

    /// <summary>Rented and not returned since it was last told to follow; nothing while it does not.</summary>
    public long Bytes => _following ? Interlocked.Read(ref _bytes) : 0;

    public long Allocated => Interlocked.Read(ref _allocated);

    /// <summary>The most rented out at once since the last call (or now, if more).</summary>
    public long TakeMost() => Math.Max(Interlocked.Exchange(ref _most, 0), Bytes);

    public void Follow(bool follow)
    {
        lock (_outstanding)
        {
            if (follow == _following)
            {
                return;
            }

            _following = follow;
            if (_source is null)
            {
                return;
            }

            if (follow)
            {
                EnableEvents(_source, EventLevel.Verbose);
            }
            else
            {
                DisableEvents(_source);
                _outstanding.Clear();
                Interlocked.Exchange(ref _bytes, 0);
            }
        }
    }

    protected override void OnEventSourceCreated(EventSource eventSource)
    {
        if (eventSource.Name != Source)
        {
            return;
        }

        lock (_outstanding)
        {
            _source = eventSource;
            if (_following)
            {
                EnableEvents(eventSource, EventLevel.Verbose);
            }
        }
    }

    protected override void OnEventWritten(EventWrittenEventArgs e)
    {
        if (e.Payload is not { Count: >= 3 } payload || payload[2] is not int pool || pool != _bytePool || payload[0] is not int id || payload[1] is not int size)
        {
            return;
        }

        switch (e.EventName)
        {
            case "BufferRented" when _outstanding.TryAdd(id, size):
                var now = Interlocked.Add(ref _bytes, size);
                long most;
                while (now > (most = Interlocked.Read(ref _most)) && Interlocked.CompareExchange(ref _most, now, most) != most)
                {
                }

                break;
            case "BufferReturned" when _outstanding.TryRemove(id, out var rented):
                Interlocked.Add(ref _bytes, -rented);
                break;
            case "BufferAllocated":
                Interlocked.Add(ref _allocated, size);
                break;
        }
    }
}

/// <summary>One sample; every size in bytes.</summary>
/// <param name="HeapBytes">In use on the managed heap now: what the last GC left plus all allocated since, garbage included (GC.GetTotalMemory(false)).</param>
/// <param name="LiveAfterGcBytes">What the last GC left, free space excluded (heap size − fragmentation after it): what was really held then.</param>
/// <param name="Gen0BudgetBytes">Generation 0 when the last gen0/gen1 GC began: the garbage the GC lets pile up before collecting.</param>
/// <param name="LargeAfterGcBytes">The large object heap (arrays from 85 000 bytes) after the last GC, part of <paramref name="LiveAfterGcBytes"/>.</param>
/// <param name="RentedBytes">Buffers rented from ArrayPool&lt;byte&gt;.Shared and not returned, while followed; <paramref name="MostRentedBytes"/> the most at once since the last sample, <paramref name="RentedAllocatedBytes"/> the new arrays it made (a running total).</param>
/// <param name="CommittedBytes">What the GC had committed from the system when the last GC ended (heap, free space and budget).</param>
/// <param name="Collected">This sample follows a full GC the bench asked for.</param>
internal sealed record MemorySample(
    bool Collected, long Time, long HeapBytes, long LiveAfterGcBytes, long Gen0BudgetBytes, long CommittedBytes, long AllocatedBytes, int Gen0, int Gen1, int Gen2,
    long LargeAfterGcBytes, long PoolBytes, long PoolInUseBytes, long PoolMostInUseBytes, long RentedBytes, long MostRentedBytes, long RentedAllocatedBytes)
{
    public static MemorySample Now(KestrelPool pool, ArrayPoolRentals rentals, bool collected)
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
            pool.TakeMostInUse(),
            rentals.Bytes,
            rentals.TakeMost(),
            rentals.Allocated);
    }

    // By hand: System.Text.Json's reflection would be loaded into an app that may not use it.
    public string ToJson() => string.Create(CultureInfo.InvariantCulture,
        $"{{\"collected\":{(Collected ? "true" : "false")},\"time\":{Time},\"heapBytes\":{HeapBytes},\"liveAfterGcBytes\":{LiveAfterGcBytes},\"gen0BudgetBytes\":{Gen0BudgetBytes},\"committedBytes\":{CommittedBytes}," +
        $"\"allocatedBytes\":{AllocatedBytes},\"gen0\":{Gen0},\"gen1\":{Gen1},\"gen2\":{Gen2},\"largeAfterGcBytes\":{LargeAfterGcBytes},\"poolBytes\":{PoolBytes},\"poolInUseBytes\":{PoolInUseBytes},\"poolMostInUseBytes\":{PoolMostInUseBytes}," +
        $"\"rentedBytes\":{RentedBytes},\"mostRentedBytes\":{MostRentedBytes},\"rentedAllocatedBytes\":{RentedAllocatedBytes}}}");
}
