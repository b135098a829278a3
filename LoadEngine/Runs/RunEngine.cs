using System.Globalization;
using Grpc.Core;
using LoadEngine.Calls;
using LoadEngine.Metrics;
using LoadEngine.Protocols;
using LoadEngine.Targets;
using LoadEngine.Thresholds;
using Microsoft.Extensions.Options;

namespace LoadEngine.Runs;

/// <summary>
/// Runs one run's calls under one plan: the warm-up calls first, apart, then the measured phase. The engine owns the
/// loop, the clock and the recording; what it calls (<see cref="IRunCalls"/>) only says how one call is made. Timestamps are taken raw on the hot
/// path and turned into statistics once, at the end; a tick every 100 ms pushes live progress and builds the time series.
/// </summary>
/// <param name="diagnostics">Reads the service's own counters around a workload run's measured phase (none in tests that need none).</param>
/// <param name="text">How the target's words (first answers, failures) are masked and escaped as they enter; made from the connection when not given.</param>
public sealed class RunEngine(IOptions<EngineOptions> options, ServiceDiagnosticsReader? diagnostics = null, TargetText? text = null)
{
    private readonly TargetText _text = text ?? TargetText.For(options.Value.Connection);

    public static readonly TimeSpan TickInterval = TimeSpan.FromMilliseconds(100);

    /// <summary>
    /// Runs <paramref name="calls"/> under <paramref name="run"/>'s plan and returns the run as it ended: Completed,
    /// Failed (the service unreachable, or no call succeeded) or Cancelled, with what it measured. Never throws for a
    /// failed call; <paramref name="cancellation"/> stops the run, and the record says what was measured until then. A
    /// completed run some of whose calls failed to connect says so in its <see cref="RunRecord.Note"/>.
    /// </summary>
    public async Task<RunRecord> ExecuteAsync(IRunCalls calls, RunRecord run, LiveRun live, CancellationToken cancellation)
    {
        var plan = run.Plan;
        var warmupTime = TimeSpan.Zero;
        var warmupSucceeded = false;
        try
        {
            if (plan.Warmup > 0)
            {
                var warmup = new RunRecorder(plan.Warmup, plan.IsOpen, new RunObservations(text: _text));
                var phase = await RunPhaseAsync(calls, plan, RunPhase.Warmup, warmup, plan.Warmup, null, live, answeredBefore: false, cancellation);
                warmupTime = phase.WallTime;
                warmupSucceeded = warmup.Succeeded > 0;
                if (phase.Unreachable is not null || phase.GaveUp is not null || cancellation.IsCancellationRequested)
                {
                    var warmupStats = warmup.ToStats(TimeSpan.Zero, 0, plan.Warmup, warmupTime, plan.Percentiles);
                    return Ended(run with { Stats = warmupStats, Measured = calls.DescribeMeasurement() }, phase, warmup, cancellation);
                }
            }

            var recorder = new RunRecorder(plan.Count, plan.IsOpen, new RunObservations(live.KeepAnswers(calls.KeepAnswers(plan)), _text), new CallMetrics(plan.Strategy));
            var workload = calls as IWireMeasured;
            var serviceBefore = workload is null || diagnostics is null ? null : await diagnostics.ReadAsync(cancellation);
            var wireBefore = workload?.Wire.StartPhase();
            var allocatedBefore = GC.GetTotalAllocatedBytes(precise: false);
            var gcBefore = GcNow();
            var measured = await RunPhaseAsync(calls, plan, RunPhase.Measured, recorder, plan.Count, plan.Duration, live, answeredBefore: warmupSucceeded, cancellation);
            var gc = GcNow() - gcBefore;
            var allocated = GC.GetTotalAllocatedBytes(precise: false) - allocatedBefore;
            var figures = recorder.ToFigures(measured.WallTime, allocated, plan.Warmup, warmupTime, measured.Schedule);
            var stats = figures.ToStats(plan.Percentiles) with { ClientGc = gc.ToStats() };
            if (workload is not null)
            {
                var wire = workload.Wire.Totals - wireBefore!.Value;
                var serviceAfter = serviceBefore is null ? null : await diagnostics!.ReadAsync(CancellationToken.None);
                stats = WithWorkloadFigures(stats, wire, workload.Wire.ConnectionsUsedInPhase, serviceBefore, serviceAfter, workload.ServiceApi);
            }

            // An agent's share keeps its unsummarised figures, for the merge; other runs need only the summary.
            var ended = run with { Stats = stats, Series = recorder.ToSeries(measured.WallTime), Measured = calls.DescribeMeasurement(), Figures = plan.Shard is null ? null : figures };
            return Ended(ended, measured, recorder, cancellation);
        }
        finally
        {
            live.Finish(live.Latest);
        }
    }

    private static RunRecord Ended(RunRecord run, PhaseOutcome phase, RunRecorder recorder, CancellationToken cancellation)
    {
        var (state, error) = (phase.Unreachable, recorder) switch
        {
            ({ } unreachable, _) => (RunState.Failed, unreachable),
            _ when phase.GaveUp is { } gaveUp => (RunState.Failed, gaveUp),
            _ when cancellation.IsCancellationRequested => (RunState.Cancelled, "The run was cancelled before it finished."),
            (_, { Succeeded: 0 }) => (RunState.Failed, NoCallSucceeded(recorder)),
            _ => (RunState.Completed, (string?)null),
        };
        var note = state == RunState.Completed && phase.ConnectFailures is { } failures ? ConnectFailuresNote(failures, recorder, phase.WallTime) : null;
        return ThresholdJudge.WithVerdict(run with { State = state, Error = error, Note = note, FinishedAt = DateTimeOffset.UtcNow });
    }

    /// <summary>
    /// A completed run some of whose calls failed to connect: how many, how, and that calls kept succeeding, so a storm
    /// the service's accept queue could not take reads as the strategy's cost, not as a dead service.
    /// </summary>
    private static string ConnectFailuresNote(ConnectFailures failures, RunRecorder recorder, TimeSpan wallTime)
    {
        var otherwise = recorder.StatusCounts.Where(pair => pair.Key is not (nameof(StatusCode.OK) or nameof(StatusCode.Unavailable))).ToList();
        var last = failures.LastSuccess is { } at ? $", the last of them {Math.Max(0, (wallTime - at).TotalSeconds):0.###} s before the run ended" : "";
        var failedOtherwise = otherwise.Count == 0 ? "" : $"; {Whole(otherwise.Sum(pair => pair.Value))} failed otherwise ({Describe(otherwise.ToDictionary())})";
        return $"{Whole(failures.Calls)} of {Whole(recorder.Completed)} calls failed to connect ({nameof(StatusCode.Unavailable)}: {failures.Detail}) while the service kept " +
            $"answering: {(otherwise.Count == 0 ? "the other " : "")}{Whole(recorder.Succeeded)} succeeded{last}{failedOtherwise}.";
    }

    /// <summary>"No call succeeded (100 × PermissionDenied: 'tenant (none) is not allowed')." The server's words, not only its codes.</summary>
    private static string NoCallSucceeded(RunRecorder recorder)
    {
        var details = recorder.StatusDetails;
        var described = details.Count == 0 ? Describe(recorder.StatusCounts) : StatusDetails.Describe(details);
        return $"No call succeeded ({described}).";
    }

    private static string Whole(long value) => value.ToString("N0", CultureInfo.InvariantCulture);

    private static string Describe(IReadOnlyDictionary<string, long> counts) =>
        counts.Count == 0 ? "no call was made" : string.Join(", ", counts.Select(pair => $"{pair.Value} × {pair.Key}"));

    private async Task<PhaseOutcome> RunPhaseAsync(
        IRunCalls calls, RunPlan plan, RunPhase phaseName, RunRecorder recorder, int? count, double? duration, LiveRun live, bool answeredBefore,
        CancellationToken cancellation)
    {
        var engine = options.Value;
        var servicePerCall = (calls as ICallSource)?.ServiceCallsPerCall ?? 1;
        var service = calls is IWireMeasured ? $"the {calls.Info.Name} contender's service" : engine.ServerUri.GetLeftPart(UriPartial.Authority);
        // A plan that asks the service to wait before it answers, or a workload call made of many service calls, is not silence.
        var silenceWindow = engine.SilenceTimeout * servicePerCall + TimeSpan.FromMilliseconds((plan.Called as BuiltInCall)?.DelayMs ?? 0);
        using var phase = new Phase(plan, phaseName, recorder, count, duration, engine, service, silenceWindow, _text, cancellation, answeredBefore);
        using var ticking = new CancellationTokenSource();
        var ticker = TickAsync(phase, live, ticking.Token);
        try
        {
            await LoadDrivers.RunAsync(phase, calls);
        }
        catch (OperationCanceledException) when (phase.Stopped)
        {
        }
        finally
        {
            await ticking.CancelAsync();
            await ticker;
        }

        var wallTime = phase.Elapsed;
        phase.Detector.CheckGoneAtEnd();
        live.Publish(phase.Snapshot(recorder.Tick(wallTime.TotalMilliseconds, last: true), wallTime));
        phase.ThrowIfCrashed();
        return new PhaseOutcome(
            wallTime, phase.Detector.Unreachable, phase.Detector.GaveUp, phase.Detector.ConnectFailures, phase.Schedule is { } schedule ? (schedule.Arrivals / schedule.Seconds, phase.Sending) : null);
    }

    private static async Task TickAsync(Phase phase, LiveRun live, CancellationToken stop)
    {
        using var timer = new PeriodicTimer(TickInterval);
        try
        {
            while (await timer.WaitForNextTickAsync(stop))
            {
                phase.Detector.Check();
                var elapsed = phase.Elapsed;
                live.Publish(phase.Snapshot(phase.Recorder.Tick(elapsed.TotalMilliseconds), elapsed));
            }
        }
        catch (OperationCanceledException) when (stop.IsCancellationRequested)
        {
        }
    }

    /// <summary>A workload run's wire and service figures per call: the client's socket bytes, and the service's own counters after minus before.</summary>
    private static RunStats WithWorkloadFigures(RunStats stats, WireTotals wire, int connectionsUsed, ServiceSnapshot? before, ServiceSnapshot? after, string api)
    {
        if (stats.Calls == 0)
        {
            return stats;
        }

        return stats with
        {
            ConnectionsUsed = connectionsUsed,
            BytesSentPerCall = Math.Round((double)wire.Sent / stats.Calls, 1),
            BytesReceivedPerCall = Math.Round((double)wire.Received / stats.Calls, 1),
            ServiceAllocatedBytesPerCall = before is null || after is null ? null : Math.Round((double)(after.AllocatedBytes - before.AllocatedBytes) / stats.Calls, 1),
            ServerSaw = before is null || after is null ? null : ServiceSnapshot.Saw(before, after, api),
        };
    }

    private static GcCounts GcNow() => new(GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2), GC.GetTotalPauseDuration());

    private readonly record struct GcCounts(int Gen0, int Gen1, int Gen2, TimeSpan Pause)
    {
        public static GcCounts operator -(GcCounts after, GcCounts before) =>
            new(after.Gen0 - before.Gen0, after.Gen1 - before.Gen1, after.Gen2 - before.Gen2, after.Pause - before.Pause);

        // A gen-1 collection counts in gen 0's count too (and gen 2 in both): say each generation's own.
        public GcStats ToStats() => new(Gen0 - Gen1, Gen1 - Gen2, Gen2, Math.Round(Pause.TotalMilliseconds, 3));
    }

    private sealed record PhaseOutcome(
        TimeSpan WallTime, string? Unreachable, string? GaveUp, ConnectFailures? ConnectFailures, (double RequestedRate, TimeSpan Sending)? Schedule);
}
