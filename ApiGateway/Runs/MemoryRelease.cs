using System.Runtime;
using Microsoft.Extensions.Options;

namespace ApiGateway.Runs;

/// <summary>Whether the gateway gives memory back after a peak. Section <c>Runs</c>.</summary>
public sealed class MemoryReleaseOptions
{
    public const string Section = "Runs";

    /// <summary>Once a peak is over and nothing is measured, one compacting collection returns what the GC holds free (default on).</summary>
    public bool GiveMemoryBack { get; set; } = true;
}

/// <summary>
/// Gives memory back once a peak is over. The GC collects only when something allocates, so after a suite with 10 000
/// calls in flight, or a 1.4 GB answer, an idle gateway kept what the GC had committed: 270-327 MiB of it, RSS 416-458 MiB
/// a minute later, under every GC setting measured (docs/benchmarks.md). Once a second <see cref="PeakRule"/> is told the
/// GC's two counters and whether any work holds a slot; once a peak is over, this makes one blocking collection that
/// compacts every generation and decommits what is free (<see cref="GCCollectionMode.Aggressive"/>).
/// </summary>
public sealed partial class MemoryRelease(RunCoordinator runs, IOptions<MemoryReleaseOptions> options, TimeProvider time, ILogger<MemoryRelease> logger) : BackgroundService
{
    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        if (!options.Value.GiveMemoryBack)
        {
            return;
        }

        var rule = new PeakRule(GC.GetTotalAllocatedBytes(), Committed());
        using var ticks = new PeriodicTimer(TimeSpan.FromSeconds(1), time);
        try
        {
            while (await ticks.WaitForNextTickAsync(stoppingToken))
            {
                var held = Committed();
                if (!rule.IsOver(GC.GetTotalAllocatedBytes(), held, runs.IsIdle))
                {
                    continue;
                }

                var started = time.GetTimestamp();
                GCSettings.LargeObjectHeapCompactionMode = GCLargeObjectHeapCompactionMode.CompactOnce;
                GC.Collect(GC.MaxGeneration, GCCollectionMode.Aggressive, blocking: true, compacting: true);
                rule.Collected(GC.GetTotalAllocatedBytes(), Committed());
                LogReleased(logger, held / PeakRule.MiB, rule.Baseline / PeakRule.MiB, time.GetElapsedTime(started).TotalMilliseconds);
            }
        }
        catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
        {
        }
    }

    private static long Committed() => GC.GetGCMemoryInfo().TotalCommittedBytes;

    [LoggerMessage(Level = LogLevel.Information, Message = "Gave memory back after a peak: the GC held {HeldMegabytes} MiB, and {NowMegabytes} MiB after a compacting collection of {PauseMs:0} ms")]
    private static partial void LogReleased(ILogger logger, long heldMegabytes, long nowMegabytes, double pauseMs);
}

/// <summary>
/// When a peak is over, told once a second: nothing is measured (no run, suite, experiment or lesson holds a slot, so no
/// call's latency can take the pause) and the gateway has allocated less than <see cref="QuietBytesPerSecond"/> a second
/// for <see cref="QuietSeconds"/> seconds (no large answer is being written), and the GC holds at least
/// <see cref="GrowthBytes"/> more than after the last collection made for it, so a gateway that stays small never pauses.
/// </summary>
public sealed class PeakRule(long allocated, long committed)
{
    public const long MiB = 1024 * 1024;

    public const long QuietBytesPerSecond = 1 * MiB;

    public const int QuietSeconds = 5;

    public const long GrowthBytes = 64 * MiB;

    private long _allocated = allocated;
    private int _quiet;

    /// <summary>What the GC held after the last collection made for a peak, or at start, or less if the GC's own collections left less.</summary>
    public long Baseline { get; private set; } = committed;

    /// <summary>One second later: the bytes allocated so far, what the GC holds now, and whether any work holds a slot.</summary>
    public bool IsOver(long allocated, long committed, bool idle)
    {
        _quiet = idle && allocated - _allocated < QuietBytesPerSecond ? _quiet + 1 : 0;
        _allocated = allocated;
        Baseline = Math.Min(Baseline, committed);
        return _quiet >= QuietSeconds && committed - Baseline >= GrowthBytes;
    }

    public void Collected(long allocated, long committed)
    {
        _allocated = allocated;
        _quiet = 0;
        Baseline = committed;
    }
}
