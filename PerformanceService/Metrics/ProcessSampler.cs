using System.Diagnostics;
using Microsoft.Extensions.Options;

namespace PerformanceService.Metrics;

/// <summary>The service's own figures at one moment.</summary>
public sealed record ProcessSnapshot(double CpuPercentage, double MemoryMegabytes, int Threads, int ActiveConnections);

/// <summary>
/// Samples the process a few times a second in the background, so a call only copies the latest
/// snapshot: figures are real, and measuring them costs the hot path nothing.
/// </summary>
public sealed class ProcessSampler(IOptions<MonitorOptions> options, ConnectionCounter connections, TimeProvider time) : BackgroundService
{
    private const double Mebibyte = 1024 * 1024;
    private readonly Process _process = Process.GetCurrentProcess();
    private TimeSpan _lastCpu;
    private long _lastTimestamp;
    private long _lastTick;
    private ProcessSnapshot? _latest;

    public ProcessSnapshot Latest => Volatile.Read(ref _latest) ?? Sample();

    /// <summary>The connections open this moment: a counter Kestrel keeps, so reading it costs a call nothing.</summary>
    public int ActiveConnections => connections.Active;

    /// <summary>How long ago the background loop last sampled; null before its first sample.</summary>
    public TimeSpan? SinceLastSample
    {
        get
        {
            var tick = Volatile.Read(ref _lastTick);
            return tick == 0 ? null : time.GetElapsedTime(tick);
        }
    }

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        // The timer starts before the first sample, so the ticks keep time from the start, and whoever sees the first sample
        // (a test advancing a fake clock) knows the timer is already running.
        using var timer = new PeriodicTimer(TimeSpan.FromMilliseconds(options.Value.SampleIntervalMilliseconds), time);
        Tick();
        try
        {
            while (await timer.WaitForNextTickAsync(stoppingToken))
            {
                Tick();
            }
        }
        catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
        {
        }
    }

    private void Tick()
    {
        Sample();
        Volatile.Write(ref _lastTick, time.GetTimestamp());
    }

    private ProcessSnapshot Sample()
    {
        lock (_process)
        {
            _process.Refresh();
            var now = Stopwatch.GetTimestamp();
            var cpu = _process.TotalProcessorTime;
            var wall = _lastTimestamp == 0 ? DateTime.Now - _process.StartTime : Stopwatch.GetElapsedTime(_lastTimestamp, now);
            var cpuPercentage = wall > TimeSpan.Zero
                ? Math.Clamp((cpu - _lastCpu).TotalMilliseconds / (wall.TotalMilliseconds * Environment.ProcessorCount) * 100, 0, 100)
                : 0;
            _lastCpu = cpu;
            _lastTimestamp = now;
            var snapshot = new ProcessSnapshot(
                Math.Round(cpuPercentage, 2),
                Math.Round(_process.WorkingSet64 / Mebibyte, 2),
                _process.Threads.Count,
                connections.Active);
            Volatile.Write(ref _latest, snapshot);
            return snapshot;
        }
    }

    public override void Dispose()
    {
        _process.Dispose();
        base.Dispose();
    }
}
