namespace PerformanceService.Metrics;

/// <summary>Counts the transport connections Kestrel accepts, so "one connection" can be proven, not assumed.</summary>
public sealed class ConnectionCounter
{
    private int _active;
    private long _accepted;

    public int Active => Volatile.Read(ref _active);

    public long Accepted => Interlocked.Read(ref _accepted);

    public void Opened()
    {
        Interlocked.Increment(ref _active);
        Interlocked.Increment(ref _accepted);
    }

    public void Closed() => Interlocked.Decrement(ref _active);
}
