using System.Collections.Concurrent;
using System.Diagnostics;
using LoadEngine.Calls;
using LoadEngine.Targets;

namespace LoadEngine.Runs;

/// <summary>
/// What a phase's answers tell about the service beside its figures, as the target reads them from its answers: the
/// connections that carried the calls (counted on the service's side, to prove a strategy does what its name says) and
/// the service's own load. Safe from many calls at once; a target that tells nothing leaves it empty.
/// </summary>
/// <param name="text">How the first answer is masked, escaped and cut as it enters the engine (the engine's connection's metadata).</param>
public sealed class RunObservations(IAnswerSpool? answers = null, TargetText? text = null)
{
    private readonly TargetText _text = text ?? TargetText.None;

    // The service refreshes its figures a few times a second; sampling every answer would only add contention.
    private static readonly TimeSpan LoadSampleSpacing = TimeSpan.FromMilliseconds(10);

    private readonly ConcurrentDictionary<string, byte> _connections = new(StringComparer.Ordinal);
    private readonly object _loadGate = new();
    private long _lastLoadSample;
    private ServiceLoadFigures _load = new(0, 0, 0, 0);
    private int _answered;
    private long _answers;
    private string? _firstAnswer;

    /// <summary>Where the answers go that the caller asked to keep; null when it asked for none.</summary>
    public IAnswerSpool? Answers { get; } = answers;

    public int ConnectionsUsed => _connections.Count;

    /// <summary>A call was carried by the service's connection <paramref name="id"/>.</summary>
    public void CarriedBy(string id) => _connections.TryAdd(id, 0);

    /// <summary>The phase's first answer as its target wrote it (a described method's, as JSON); null when the target keeps none.</summary>
    public string? FirstAnswer => Volatile.Read(ref _firstAnswer);

    /// <summary>
    /// An answer came; the first of the phase is kept as <paramref name="write"/> writes it, the metadata values it echoes
    /// masked, its control characters escaped and cut at <see cref="MaxFirstAnswer"/> characters.
    /// </summary>
    public void Answered<T>(T answer, Func<T, string> write)
    {
        Interlocked.Increment(ref _answers);
        if (Volatile.Read(ref _answered) == 0 && Interlocked.Exchange(ref _answered, 1) == 0)
        {
            Volatile.Write(ref _firstAnswer, _text.Clean(write(answer), MaxFirstAnswer));
        }
    }

    public const int MaxFirstAnswer = 16 * 1024;

    /// <summary>Answers counted by <see cref="Answered"/>: a server stream's messages each count.</summary>
    public long AnswerMessages => Interlocked.Read(ref _answers);

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
