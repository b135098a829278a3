using System.Collections.Concurrent;
using System.Diagnostics;
using LoadEngine.Calls;

namespace LoadEngine.Runs;

/// <summary>
/// What a phase's answers tell about the service beside its figures, as the target reads them from its answers: the
/// connections that carried the calls (counted on the service's side, to prove a strategy does what its name says) and
/// the service's own load. Safe from many calls at once; a target that tells nothing leaves it empty.
/// </summary>
public sealed class RunObservations(IAnswerSpool? answers = null)
{
    // The service refreshes its figures a few times a second; sampling every answer would only add contention.
    private static readonly TimeSpan LoadSampleSpacing = TimeSpan.FromMilliseconds(10);

    private readonly ConcurrentDictionary<string, byte> _connections = new(StringComparer.Ordinal);
    private readonly object _loadGate = new();
    private long _lastLoadSample;
    private ServiceLoadFigures _load = new(0, 0, 0, 0);

    /// <summary>Where the answers go that the caller asked to keep; null when it asked for none.</summary>
    public IAnswerSpool? Answers { get; } = answers;

    public int ConnectionsUsed => _connections.Count;

    /// <summary>A call was carried by the service's connection <paramref name="id"/>.</summary>
    public void CarriedBy(string id) => _connections.TryAdd(id, 0);

    /// <summary>The service's CPU (percent of the machine) and memory (MiB) as an answer reported them; kept at most every 10 ms.</summary>
    public void ServiceLoad(double cpuPercent, double memoryMegabytes)
    {
        var now = Stopwatch.GetTimestamp();
        var last = Interlocked.Read(ref _lastLoadSample);
        if ((last != 0 && Stopwatch.GetElapsedTime(last, now) < LoadSampleSpacing) || Interlocked.CompareExchange(ref _lastLoadSample, now, last) != last)
        {
            return;
        }

        lock (_loadGate)
        {
            _load = Runs.ServiceLoadFigures.Merge([_load, new(cpuPercent, cpuPercent, memoryMegabytes, 1)]);
        }
    }

    internal ServiceLoadFigures ServiceLoadFigures()
    {
        lock (_loadGate)
        {
            return _load;
        }
    }
}
