using System.Collections.Concurrent;
using System.Diagnostics.Tracing;

namespace GrpcBestPractices.Benchmarks;

/// <summary>
/// Which types this process allocates most, from the runtime's GC AllocationTick events (one about every 100 KB):
/// a cheap profile for finding what a call allocates, without installing a profiler.
/// </summary>
public sealed class AllocationSampler : EventListener
{
    private const EventKeywords GcKeyword = (EventKeywords)0x1;
    private readonly ConcurrentDictionary<string, long> _ticks = new(StringComparer.Ordinal);

    public IEnumerable<(string Type, long Ticks)> Top(int count) =>
        _ticks.OrderByDescending(pair => pair.Value).Take(count).Select(pair => (pair.Key, pair.Value));

    /// <summary>The runtime hands its events over on a thread of its own: waits (2 s at most) until no tick arrived for 200 ms.</summary>
    public async Task SettledAsync()
    {
        for (var (last, waited) = (-1L, 0); waited < 2000; waited += 200)
        {
            var now = _ticks.Values.Sum();
            if (now == last)
            {
                return;
            }

            last = now;
            await Task.Delay(200);
        }
    }

    protected override void OnEventSourceCreated(EventSource eventSource)
    {
        if (eventSource.Name == "Microsoft-Windows-DotNETRuntime")
        {
            EnableEvents(eventSource, EventLevel.Verbose, GcKeyword);
        }
    }

    protected override void OnEventWritten(EventWrittenEventArgs eventData)
    {
        if (eventData.EventName?.StartsWith("GCAllocationTick", StringComparison.Ordinal) == true
            && eventData.PayloadNames?.IndexOf("TypeName") is >= 0 and var index
            && eventData.Payload?[index] is string type)
        {
            _ticks.AddOrUpdate(type, 1, static (_, count) => count + 1);
        }
    }
}
