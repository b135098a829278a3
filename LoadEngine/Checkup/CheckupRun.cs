using System.Diagnostics;
using System.Globalization;
using LoadEngine.Lessons;
using LoadEngine.Runs;
using LoadEngine.Strategies;

namespace LoadEngine.Checkup;

/// <summary>
/// Runs a checkup's measurements one after another within its budget, as a lesson's experiment runs its steps: each run
/// through the sequence (stored in the gateway, in-process in the CLI), the record told after every step with its items
/// judged so far. Each measurement has its share of the budget, and one that no longer fits in what is left is not started
/// and says so; the budget's end (with a tenth more for the step going then) cancels whatever still runs.
/// </summary>
public static class CheckupRun
{
    // The shares of the budget each measurement's runs are sized to; the keep-alive pause takes its own fixed time.
    private const double ReuseShare = 0.12;
    private const double SweepShare = 0.25;
    private const double ConnectionsShare = 0.1;
    private const double StreamingShare = 0.08;
    private const double CompressionShare = 0.06;

    /// <summary>What a run costs beyond its measured seconds: its warm-up, the connection, the answer's checks.</summary>
    private const double RunOverheadSeconds = 0.4;

    private const double ShortestRunSeconds = 0.3;

    /// <summary>The shortest sweep step: enough calls at one in flight to read a p99 from, for a method of tens of milliseconds.</summary>
    private const double SweepStepSeconds = 0.6;

    private const int ExpectedSweepSteps = 8;

    /// <summary>The sweep stops at this many calls in flight (or the host's most, if lower).</summary>
    public const int SweepMostInFlight = 1024;

    /// <summary>A doubling of calls in flight that adds less than this share of calls per second is where the sweep stops.</summary>
    public const double GrowthAtLeast = 0.10;

    /// <summary>The p99 bound: this many times the p99 at one call in flight (and at least a millisecond more).</summary>
    public const double P99BoundTimes = 10;

    public static async Task<CheckupRecord> RunAsync(
        CheckupPlan plan, CheckupRecord record, RunSequence runs, IServiceProvider services, Action<CheckupRecord> changed, CancellationToken cancellation)
    {
        var clock = Stopwatch.StartNew();
        var budget = plan.Budget.TotalSeconds;
        using var overrun = CancellationTokenSource.CreateLinkedTokenSource(cancellation);
        overrun.CancelAfter(plan.Budget * 1.1);
        var findings = new CheckupFindings(plan);
        var current = record;
        void Publish(string? step)
        {
            current = current with { Step = step, Experiments = findings.Experiments, Sweep = findings.Sweep, Items = findings.Items(done: step is null) };
            changed(current);
        }

        double Left() => budget - clock.Elapsed.TotalSeconds;

        // Each measurement, in order, with the runs it makes and each run's seconds: what it needs is said again before it starts, from
        // what runs have cost beyond their seconds so far (warm-up, connections), so a slow method's checkup still ends within its budget.
        var pace = new Pace();
        var reuseSeconds = RunSeconds(budget * ReuseShare, 3);
        var connectionsSeconds = RunSeconds(budget * ConnectionsShare, 2);
        var streamingSeconds = RunSeconds(budget * StreamingShare, 2);
        var compressionSeconds = Math.Max(ShortestRunSeconds, budget * CompressionShare / CheckupList.Repetitions);
        var measurements = new List<(string Id, string Title, Func<double> Needs, Func<string, Task> Measure)>
        {
            ("reuse-channel", "a channel per call against a reused one", () => pace.Needs(3, reuseSeconds), step =>
                ExperimentAsync(CheckupList.ReuseChannel(reuseSeconds), step, findings, runs, services, Publish, pace, overrun.Token)),
            ("capacity", "the capacity sweep", () => pace.Needs(1, ShortestRunSeconds) * 2 / CheckupList.Repetitions, step =>
                SweepAsync(plan, budget * SweepShare, step, findings, runs, Publish, pace, overrun.Token)),
            ("connections", "one connection against several", () => pace.Needs(2, connectionsSeconds), step =>
                findings.Sweep?.Beyond is { } beyond
                    ? ExperimentAsync(CheckupList.Connections(beyond.InFlight, connectionsSeconds), step, findings, runs, services, Publish, pace, overrun.Token)
                    : findings.NoKnee()),
            ("streaming", "one stream against unary calls", () => pace.Needs(2, streamingSeconds), step =>
                ExperimentAsync(CheckupList.Streaming(streamingSeconds), step, findings, runs, services, Publish, pace, overrun.Token)),
            ("compression", "gzip against none", () => CheckupList.Repetitions * (compressionSeconds + 2 * pace.OverheadSeconds), step =>
                ExperimentAsync(CheckupList.Compression, step, findings, runs, services, Publish, pace, overrun.Token, probeSeconds: compressionSeconds)),
            ("keep-alive", "a pinged channel against an unpinged one after an idle pause", () => KeepAliveNeeds, step =>
                ExperimentAsync(LessonList.KeepAlive, step, findings, runs, services, Publish, pace, overrun.Token)),
        };

        foreach (var (measurement, index) in measurements.Select((measurement, index) => (measurement, index)))
        {
            if (cancellation.IsCancellationRequested)
            {
                break;
            }

            if (overrun.IsCancellationRequested || Left() < measurement.Needs())
            {
                findings.NotMeasured(measurement.Id,
                    $"The budget of {Seconds(budget)} s had {Seconds(Math.Max(0, Left()))} s left for {measurement.Title}, which needs about {Seconds(measurement.Needs())} s; " +
                    $"give a larger budget (the default is {Seconds(CheckupPlan.DefaultBudgetSeconds)} s).");
                continue;
            }

            await measurement.Measure($"{index + 1} of {measurements.Count}: {measurement.Title}");
            Publish($"{index + 1} of {measurements.Count}: {measurement.Title} ended");
        }

        findings.Ended(overrun.IsCancellationRequested && !cancellation.IsCancellationRequested
            ? $"The budget of {Seconds(budget)} s ran out before this measurement ended."
            : null);
        var state = cancellation.IsCancellationRequested ? RunState.Cancelled : RunState.Completed;
        current = current with
        {
            State = state,
            FinishedAt = DateTimeOffset.UtcNow,
            Error = state == RunState.Cancelled ? "The checkup was cancelled." : null,
            Step = null,
            Experiments = findings.Experiments,
            Sweep = findings.Sweep,
            Items = findings.Items(done: true),
            StreamCall = findings.StreamCall,
            Caveats = findings.Caveats(),
        };
        changed(current);
        return current;
    }

    /// <summary>Three repetitions of the arms' runs (and a pause of the keep-alive lesson's, with its channels' calls).</summary>
    private static double KeepAliveNeeds => CheckupList.Repetitions * (KeepAliveLesson.DefaultPauseMs / 1000.0 + 2);

    private static double RunSeconds(double share, int arms) => Math.Max(ShortestRunSeconds, share / (arms * CheckupList.Repetitions) - RunOverheadSeconds);

    /// <summary>What runs have cost beyond their measured seconds so far (their warm-up, connections, checks), the most seen: what the next measurement is sized with.</summary>
    private sealed class Pace
    {
        public double OverheadSeconds { get; private set; } = RunOverheadSeconds;

        public double Needs(int arms, double runSeconds) => arms * CheckupList.Repetitions * (runSeconds + OverheadSeconds);

        /// <summary>A measurement of <paramref name="runs"/> runs of <paramref name="runSeconds"/> each took <paramref name="elapsed"/>.</summary>
        public void Took(TimeSpan elapsed, int runs, double runSeconds)
        {
            if (runs > 0)
            {
                OverheadSeconds = Math.Max(OverheadSeconds, (elapsed.TotalSeconds - runs * runSeconds) / runs);
            }
        }
    }

    private static async Task ExperimentAsync(
        LessonDefinition lesson, string step, CheckupFindings findings, RunSequence runs, IServiceProvider services, Action<string?> publish, Pace pace,
        CancellationToken cancellation, double? probeSeconds = null)
    {
        lesson = CheckupList.Within(lesson, findings.Plan.Limits);
        if (!LessonPlan.TryCreate(lesson, CheckupList.Repetitions, findings.Plan.Limits, findings.Plan.Engine, findings.Plan.Call, out var plan, out var notHere))
        {
            findings.NotApplicable(lesson.Id, notHere);
            return;
        }

        plan = plan with { ProbeSeconds = probeSeconds };
        findings.Started(lesson, plan);
        publish(step);
        var clock = Stopwatch.StartNew();
        var ended = await LessonExperiment.RunAsync(plan, plan.NewRecord(), runs, services, experiment =>
        {
            findings.Changed(lesson.Id, experiment);
            publish(step);
        }, cancellation);
        findings.Changed(lesson.Id, ended);
        if (plan.Plans.Count > 0)
        {
            pace.Took(clock.Elapsed, plan.Plans.Count * plan.Repetitions, plan.Plans.Values.First().Duration ?? 0);
        }
    }

    /// <summary>
    /// Calls in flight doubled on one connection (1, 2, 4, …), each step a run of <paramref name="share"/> ÷ the steps it may
    /// take, until calls per second grow by less than <see cref="GrowthAtLeast"/>, p99 passes its bound, a call fails, the
    /// most in flight is reached, or the sweep's share of the budget runs out.
    /// </summary>
    private static async Task SweepAsync(
        CheckupPlan plan, double share, string step, CheckupFindings findings, RunSequence runs, Action<string?> publish, Pace pace, CancellationToken cancellation)
    {
        var most = Math.Min(SweepMostInFlight, plan.Limits.MaxConcurrency);
        var stepsAtMost = (int)Math.Log2(most) + 1;
        // Sized for the steps a sweep usually takes before its knee; one that goes on stops when its share runs out.
        var seconds = Math.Clamp(share / ExpectedSweepSteps - pace.OverheadSeconds, SweepStepSeconds, 5);
        var until = Stopwatch.GetTimestamp() + (long)(share * Stopwatch.Frequency);
        var steps = new List<SweepStep>();
        var bound = 0.0;
        string? stopped = null;
        var knee = false;
        for (var inFlight = 1; stopped is null; inFlight *= 2)
        {
            if (inFlight > most)
            {
                stopped = $"calls per second kept growing up to {most} calls in flight, the most the sweep tries";
                break;
            }

            if (steps.Count > 0 && Stopwatch.GetTimestamp() + (long)((seconds + pace.OverheadSeconds) * Stopwatch.Frequency) > until)
            {
                stopped = $"calls per second kept growing up to {steps[^1].InFlight} calls in flight, where the sweep's share of the budget ({Seconds(share)} s) ran out";
                break;
            }

            var input = new RunPlanInput("single-connection", null, inFlight, IncludeStatuses: false)
            {
                Warmup = Math.Max(CheckupList.WarmupCalls, inFlight),
                Duration = seconds,
                Target = plan.Call.Target,
                Call = plan.Call.Call,
                Data = plan.Call.Data,
            };
            if (!RunPlanRules.TryCreate(input, plan.Limits, StrategyList.Names, out var runPlan, out var refusal))
            {
                stopped = $"this host's limits refuse {inFlight} calls in flight: {refusal}";
                break;
            }

            publish($"{step}, {inFlight} in flight");
            var clock = Stopwatch.StartNew();
            var run = await runs.RunAsync(plan.Call.Described.Describing(runPlan), steps.Count + 1, stepsAtMost);
            pace.Took(clock.Elapsed, 1, seconds);
            if (run is not { State: RunState.Completed, Stats: { Latency: { } latency } stats })
            {
                stopped = $"the run at {inFlight} in flight did not complete: {run.Error ?? run.State.ToString().ToLowerInvariant()}";
                break;
            }

            var measured = new SweepStep(inFlight, Math.Round(stats.ThroughputPerSecond, 1), latency.P50Ms, latency.P99Ms, latency.P999Ms, stats.Calls, stats.Failed, run.Id)
            {
                Histogram = stats.Histogram,
            };
            steps.Add(measured);
            findings.Swept(new SweepResult([.. steps], bound, "running") { StepSeconds = seconds });
            if (stats.Failed > 0)
            {
                stopped = $"{LessonVerdicts.FailedCalls(stats)} at {inFlight} in flight";
                knee = true;
            }
            else if (steps.Count == 1)
            {
                bound = Math.Round(Math.Max(latency.P99Ms * P99BoundTimes, latency.P99Ms + 1), 3);
            }
            else if (latency.P99Ms > bound)
            {
                stopped = $"p99 reached {Ms(latency.P99Ms)} ms at {inFlight} in flight, past the bound of {Ms(bound)} ms ({P99BoundTimes}× its {Ms(steps[0].P99Ms)} ms at one call in flight)";
                knee = true;
            }
            else if (measured.CallsPerSecond < steps[^2].CallsPerSecond * (1 + GrowthAtLeast))
            {
                stopped = $"calls per second grew {Percent(measured.CallsPerSecond / steps[^2].CallsPerSecond - 1)} from {steps[^2].InFlight} to {inFlight} in flight " +
                    $"({steps[^2].CallsPerSecond:0.#} to {measured.CallsPerSecond:0.#}), less than {Percent(GrowthAtLeast)}";
                knee = true;
            }
        }

        var kneeStep = knee && steps.Count >= 2 ? steps[^2] : null;
        findings.Swept(new SweepResult([.. steps], bound, stopped!)
        {
            StepSeconds = seconds,
            Knee = kneeStep,
            Beyond = kneeStep is null ? null : steps[^1],
            StreamsPerConnection = kneeStep is null || steps.Count == 0 ? null : Math.Round(kneeStep.CallsPerSecond * steps[0].P50Ms / 1000, 1),
        });
    }

    internal static string Seconds(double seconds) => seconds.ToString(seconds < 10 ? "0.#" : "0", CultureInfo.InvariantCulture);

    internal static string Ms(double milliseconds) => milliseconds.ToString(milliseconds < 10 ? "0.###" : milliseconds < 100 ? "0.#" : "0", CultureInfo.InvariantCulture);

    internal static string Percent(double share) => share.ToString(Math.Abs(share) < 0.1 ? "0.#%" : "0%", CultureInfo.InvariantCulture);
}
