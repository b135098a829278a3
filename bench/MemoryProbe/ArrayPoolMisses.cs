using System.Buffers;
using System.Collections.Concurrent;
using System.Diagnostics;
using System.Diagnostics.Tracing;

/// <summary>
/// What an array pool (ArrayPool&lt;byte&gt;.Shared unless another is named) could not serve from what it keeps, by array size, from the pool's own events:
/// the rentals, the new arrays it made because none of that size was kept (or the size is over its largest), and the
/// arrays it dropped on return because that size's stacks were full. Both halves of a pool too small for the buffers
/// out at once: every array dropped is garbage, every array made is a new allocation. The pool raises its events on
/// the renting thread, so each new array is also put down to the method that rented it. Each event allocates, so
/// measure a run's bytes without this listener and its misses with it.
/// </summary>
public sealed class ArrayPoolMisses(ArrayPool<byte>? pool = null) : EventListener
{
    private const string Source = "System.Buffers.ArrayPoolEventSource";

    // Field initializers run before EventListener's constructor, which may already announce the source.
    private readonly ConcurrentDictionary<int, Counts> _bySize = new();
    private readonly ConcurrentDictionary<(int Size, string Renter), long> _renters = new();
    private readonly int _pool = (pool ?? ArrayPool<byte>.Shared).GetHashCode();

    /// <summary>Every size rented since the last <see cref="Reset"/>, most bytes allocated first.</summary>
    public IReadOnlyList<ArrayPoolSize> Sizes => _bySize
        .Select(pair => new ArrayPoolSize(pair.Key, Interlocked.Read(ref pair.Value.Rented), Interlocked.Read(ref pair.Value.Allocated), Interlocked.Read(ref pair.Value.Dropped)))
        .OrderByDescending(size => size.AllocatedBytes).ThenBy(size => size.Size)
        .ToList();

    /// <summary>Which methods rented the arrays the pool had to make, most arrays first.</summary>
    public IReadOnlyList<(int Size, string Renter, long Arrays)> Renters => _renters
        .OrderByDescending(pair => pair.Value).Select(pair => (pair.Key.Size, pair.Key.Renter, pair.Value)).ToList();

    protected override void OnEventSourceCreated(EventSource eventSource)
    {
        if (eventSource.Name == Source)
        {
            EnableEvents(eventSource, EventLevel.Verbose);
        }
    }

    protected override void OnEventWritten(EventWrittenEventArgs e)
    {
        // BufferRented, BufferAllocated and BufferDropped all begin (bufferId, bufferSize, poolId, ...).
        if (e.Payload is not { Count: >= 3 } payload || payload[2] is not int id || id != _pool || payload[1] is not int size)
        {
            return;
        }

        switch (e.EventName)
        {
            case "BufferRented":
                Interlocked.Increment(ref _bySize.GetOrAdd(size, static _ => new Counts()).Rented);
                break;
            case "BufferAllocated":
                Interlocked.Increment(ref _bySize.GetOrAdd(size, static _ => new Counts()).Allocated);
                _renters.AddOrUpdate((size, Renter(new StackTrace())), 1, static (_, arrays) => arrays + 1);
                break;
            case "BufferDropped":
                Interlocked.Increment(ref _bySize.GetOrAdd(size, static _ => new Counts()).Dropped);
                break;
        }
    }

    /// <summary>The first frame outside the pool, its events and this listener: an async method by its own name.</summary>
    private static string Renter(StackTrace stack)
    {
        foreach (var frame in stack.GetFrames())
        {
            var type = frame.GetMethod()?.DeclaringType;
            if (type is null || type == typeof(ArrayPoolMisses) || type.Namespace is "System.Buffers" or "System.Diagnostics.Tracing")
            {
                continue;
            }

            // An async method's body is MoveNext of a compiler-made type, <Name>d__N, nested in the method's own type.
            return type.Name.StartsWith('<') && type.DeclaringType is { } owner
                ? $"{owner.FullName}.{type.Name[1..type.Name.IndexOf('>', StringComparison.Ordinal)]}"
                : $"{type.FullName}.{frame.GetMethod()!.Name}";
        }

        return "unknown";
    }

    private sealed class Counts
    {
        public long Rented;
        public long Allocated;
        public long Dropped;
    }
}

/// <summary>One array size of ArrayPool&lt;byte&gt;.Shared: rentals, new arrays made for them, and arrays dropped on return.</summary>
public sealed record ArrayPoolSize(int Size, long Rented, long Allocated, long Dropped)
{
    public long AllocatedBytes => (long)Size * Allocated;
}
