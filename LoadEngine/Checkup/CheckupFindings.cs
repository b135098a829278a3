using System.Globalization;
using System.Net;
using LoadEngine.Lessons;
using LoadEngine.Runs;
using static LoadEngine.Checkup.CheckupRun;

namespace LoadEngine.Checkup;

/// <summary>
/// What a checkup has measured so far, and the prescription made from it. An item is advice only when its difference goes
/// the way that saves and is beyond the run-to-run spread (judged as the lessons judge, <see cref="LessonVerdicts"/>); one
/// within the spread is "no measurable saving here", one beyond it but under <see cref="SmallestAdvised"/> is said and not
/// advised, and one that could not be measured says why. The savings are said at
/// the user's load, in milliseconds per call, calls per second or bytes per call.
/// </summary>
internal sealed class CheckupFindings(CheckupPlan plan)
{
    /// <summary>
    /// The least ratio a change of client is advised for: a difference beyond the spread but under 5% is said, not advised.
    /// Three repetitions on one machine can agree on 2% (one connection against several where the server's workers, not the
    /// connection, are the limit); a different machine or load moves that much, and it is not worth a change of code.
    /// </summary>
    public const double SmallestAdvised = 1.05;

    private readonly Dictionary<string, LessonDefinition> _lessons = [];
    private readonly List<ExperimentRecord> _experiments = [];
    private readonly Dictionary<string, (CheckupOutcome Outcome, string Why)> _reasons = [];
    private string? _overran;

    public CheckupPlan Plan => plan;

    public SweepResult? Sweep { get; private set; }

    public string? StreamCall { get; private set; }

    public IReadOnlyList<ExperimentRecord> Experiments => [.. _experiments];

    public void Started(LessonDefinition lesson, LessonPlan lessonPlan)
    {
        _lessons[lesson.Id] = lesson;
        StreamCall ??= lessonPlan.Call?.StreamCall;
    }

    public void Changed(string lesson, ExperimentRecord experiment)
    {
        var index = _experiments.FindIndex(known => known.Id == experiment.Id);
        if (index < 0)
        {
            _experiments.Add(experiment);
        }
        else
        {
            _experiments[index] = experiment;
        }
    }

    public void Swept(SweepResult sweep) => Sweep = sweep;

    public void NotApplicable(string measurement, string why) => _reasons[measurement] = (CheckupOutcome.NotApplicable, why);

    public void NotMeasured(string measurement, string why) => _reasons[measurement] = (CheckupOutcome.NotMeasured, why);

    public Task NoKnee()
    {
        NotApplicable("connections", Sweep is { Steps.Count: > 0 } sweep
            ? $"The capacity sweep reached no limit to go past ({sweep.StoppedBecause}), so there was no load at which calls queued on one connection."
            : "The capacity sweep measured nothing, so there was no load past its limit to compare connections at.");
        return Task.CompletedTask;
    }

    /// <summary>The checkup ended; <paramref name="overran"/> says why a measurement cut short by the budget's end was.</summary>
    public void Ended(string? overran) => _overran = overran;

    /// <summary>The items judged so far (every one, once <paramref name="done"/>): advice by effect, then no saving, then what was not measured.</summary>
    public IReadOnlyList<CheckupItem> Items(bool done)
    {
        var names = Names();
        CheckupItem?[] items =
        [
            FromClaim("reuse-channel", 1, "Reuse the channel", "reuse-channel", 0, done, judged =>
                ($"Keep one channel for the app's life and make clients on it: a channel per call took {Ms(judged.Other)} ms per call (median) against {Ms(judged.Baseline)} ms on a kept channel.",
                    PerCall(judged, "per call"), CheckupCode.ReuseChannel(names))),
            FromClaim("factory-client", 2, "The client factory", "reuse-channel", 1, done, judged =>
                ($"On this hot path keep one channel instead of the client factory: the factory's client took {Ms(judged.Other)} ms per call (median) against {Ms(judged.Baseline)} ms " +
                    "on a kept channel, its handler chain's cost (logging, scopes) paid on every call.",
                    PerCall(judged, "per call"), CheckupCode.FactoryClient(names))),
            Capacity(done, names),
            FromClaim("connections", 4, "More HTTP/2 connections", "connections", 0, done, judged =>
                ($"Let the channel open more HTTP/2 connections (EnableMultipleHttp2Connections = true): at {Sweep!.Beyond!.InFlight} calls in flight one connection gave a call every " +
                    $"{Ms(judged.Other)} ms against every {Ms(judged.Baseline)} ms with more allowed{Streams()}.",
                    Rate(judged, $"at {Sweep.Beyond.InFlight} calls in flight" + (plan.InFlight < Sweep.Knee!.InFlight
                        ? $"; at your load of {InFlight(plan.InFlight)} calls do not queue past the limit, so it pays once more than {Sweep.Knee.InFlight} are in flight"
                        : "")),
                    CheckupCode.Connections(names))),
            FromClaim("keep-alive", 5, "Keep-alive pings", "keep-alive", 0, done, judged =>
                ($"Turn keep-alive pings on: after an idle pause of {KeepAliveLesson.DefaultPauseMs / 1000} s the first call took {Ms(judged.Other)} ms without them and " +
                    $"{Ms(judged.Baseline)} ms with them, because the idle connection had been closed. A server built on gRPC's core libraries (Python, Go, Java, C++) " +
                    "only accepts pings without calls in flight as often as its keep-alive policy permits, so agree the interval with its owners.",
                    new CheckupSaving(Round(judged.Other - judged.Baseline), "ms", $"{Ms(judged.Other - judged.Baseline)} ms on the first call after each idle pause"),
                    CheckupCode.KeepAlive(names, TimeSpan.FromSeconds(KeepAliveLesson.DefaultPauseMs / 2000.0)))),
            FromClaim("streaming", 6, "One stream instead of unary calls", "streaming", 0, done, judged =>
                ($"Send many messages on one bidirectional stream ({StreamCall}) instead of one unary call each: a message took {Ms(judged.Baseline)} ms of wall time on the stream " +
                    $"against {Ms(judged.Other)} ms per sequential unary call.",
                    Rate(judged, "for one caller", "messages per second"), CheckupCode.Streaming(names))),
            FromClaim("compression", 7, "Compress the requests", "compression", 0, done, judged =>
                ($"Compress the requests with gzip: each call sent {judged.Other:0} bytes uncompressed and {judged.Baseline:0} bytes with gzip{CompressionTime()}.",
                    new CheckupSaving(Math.Round(judged.Other - judged.Baseline), "bytes per call", $"{judged.Other - judged.Baseline:0} bytes fewer sent per call, headers and framing included"),
                    CheckupCode.Compression(names))),
            Deadline(done, names),
        ];
        return [.. items.OfType<CheckupItem>().OrderBy(item => item.Outcome).ThenByDescending(item => item.Effect).ThenBy(item => item.Number)];
    }

    /// <summary>What the whole checkup was measured on, said once.</summary>
    public IReadOnlyList<string> Caveats()
    {
        var address = plan.Call.Address;
        var caveats = new List<string>
        {
            $"Every figure was measured here, on this machine, against {plan.Call.Name}; the service and this client share the machine's CPU unless they run apart.",
            plan.Call.Tls
                ? "Over TLS: a new connection pays a TLS handshake, so the connection items weigh more than over cleartext."
                : "Over cleartext HTTP/2 (h2c): a new connection pays no TLS handshake here; over TLS it costs more, and the connection items save more.",
            "The capacity sweep runs once: its steps are not repeated, so the knee is known to within one doubling of calls in flight.",
        };
        if (address.IsLoopback || (IPAddress.TryParse(address.Host, out var ip) && IPAddress.IsLoopback(ip)))
        {
            caveats.Insert(1, "On loopback there is no network: a round trip and a new connection cost well under a millisecond here, so on a real network a channel " +
                "per call, a connection closed while idle and unary calls instead of a stream all cost more than measured here.");
        }

        return caveats;
    }

    private ClientNames Names()
    {
        var unary = plan.Call.Described.Find(plan.Call.Call);
        return ClientNames.Of(unary, StreamCall is { } stream ? plan.Call.Described.Find(stream) : null, plan.Call.Address);
    }

    private string Streams() => Sweep?.StreamsPerConnection is { } streams
        ? $"; one connection carried about {streams.ToString("0.#", CultureInfo.InvariantCulture)} calls at once (the knee's calls per second × the time one call took alone)"
        : "";

    private string CompressionTime()
    {
        var experiment = Experiment("compression");
        var (gzip, none) = (Median(experiment, "gzip", "p50Ms"), Median(experiment, "none", "p50Ms"));
        return gzip is null || none is null ? "" : $", at {Ms(gzip.Value)} ms per call (median) against {Ms(none.Value)} ms uncompressed";
    }

    private CheckupItem? Capacity(bool done, ClientNames names)
    {
        const string Id = "capacity";
        const string Title = "Calls in flight: the service's capacity";
        if (Sweep is not { } sweep || sweep.StoppedBecause == "running")
        {
            return _reasons.TryGetValue(Id, out var reason) ? Unmeasured(Id, 3, Title, reason.Outcome, reason.Why)
                : done ? Unmeasured(Id, 3, Title, CheckupOutcome.NotMeasured, _overran ?? Cancelled) : null;
        }

        if (sweep is not { Knee: { } knee, Beyond: { } beyond })
        {
            return sweep.Steps.Count == 0
                ? Unmeasured(Id, 3, Title, CheckupOutcome.NotMeasured, $"The capacity sweep measured nothing: {sweep.StoppedBecause}.")
                : new CheckupItem(Id, 3, Title, CheckupOutcome.NoSaving,
                    $"No limit found, so no cap to suggest: {sweep.StoppedBecause} ({sweep.Steps[^1].CallsPerSecond:0.#} calls per second, p99 {Ms(sweep.Steps[^1].P99Ms)} ms).",
                    null, null, null, 0) { Runs = [.. sweep.Steps.Select(step => step.RunId)] };
        }

        var ratio = beyond.P99Ms / knee.P99Ms;
        var measured = new CheckupMeasure($"{knee.InFlight} calls in flight", $"{beyond.InFlight} calls in flight", "p99", Math.Round(ratio, 3), null, [], false,
            $"One sweep on one connection, each step a run of {Seconds(sweep.StepSeconds)} s: it stopped because {sweep.StoppedBecause}. At {knee.InFlight} in flight " +
            $"{knee.CallsPerSecond:0.#} calls per second, p99 {Ms(knee.P99Ms)} ms; at {beyond.InFlight}, {beyond.CallsPerSecond:0.#} calls per second, p99 {Ms(beyond.P99Ms)} ms.");
        return new CheckupItem(Id, 3, Title, CheckupOutcome.Advice,
            $"Keep at most {InFlight(knee.InFlight)} to this method on one connection: past that it answered no more calls per second ({knee.CallsPerSecond:0.#} at " +
            $"{knee.InFlight}, {beyond.CallsPerSecond:0.#} at {beyond.InFlight}) while p99 grew from {Ms(knee.P99Ms)} ms to {Ms(beyond.P99Ms)} ms{Streams()}" +
            (knee.InFlight > 1 ? $". The sweep doubles calls in flight, so the limit lies between {knee.InFlight / 2} and {beyond.InFlight}." : "."),
            measured,
            new CheckupSaving(Round(beyond.P99Ms - knee.P99Ms), "ms p99", $"{Ms(beyond.P99Ms - knee.P99Ms)} ms off p99 against {beyond.InFlight} in flight, at no cost in calls per second"),
            CheckupCode.Capacity(names, knee.InFlight),
            Math.Max(0, 1 - 1 / ratio)) { Runs = [.. sweep.Steps.Select(step => step.RunId)] };
    }

    private CheckupItem? Deadline(bool done, ClientNames names)
    {
        const string Id = "deadline";
        const string Title = "A deadline on every call";
        if (Sweep is not { Steps.Count: > 0 } sweep || (sweep.StoppedBecause == "running" && !done))
        {
            return done ? Unmeasured(Id, 8, Title, CheckupOutcome.NotMeasured, "The capacity sweep measured no calls, and the deadline is read from its latencies.") : null;
        }

        var yours = sweep.Steps.LastOrDefault(step => step.InFlight <= plan.InFlight && step.Failed == 0) ?? sweep.Steps[0];
        var deadline = yours.P999Ms < 10 ? Math.Ceiling(yours.P999Ms * 10) / 10 : Math.Ceiling(yours.P999Ms);
        var loads = new List<string> { $"{Percent(Above(yours, deadline))} of calls at your load ({InFlight(yours.InFlight)})" };
        loads.AddRange(new[] { sweep.Knee, sweep.Beyond }.OfType<SweepStep>().Where(step => step.InFlight != yours.InFlight)
            .Select(step => $"{Percent(Above(step, deadline))} at {step.InFlight} in flight"));
        return new CheckupItem(Id, 8, Title, CheckupOutcome.Advice,
            $"Set a deadline on every call: at {Ms(deadline)} ms (the p99.9 at your load) it would have failed {string.Join(", ", loads)}; size it for the load you run, " +
            "so a hung service fails a call fast instead of holding its caller.",
            new CheckupMeasure($"{InFlight(yours.InFlight)}", "a deadline at its p99.9", "share of calls slower than the deadline", null, null, [], false,
                $"Read from the capacity sweep's latency histograms: p99.9 {Ms(yours.P999Ms)} ms at {InFlight(yours.InFlight)}."),
            new CheckupSaving(Math.Round(Above(yours, deadline) * 100, 2), "% of calls", $"{Percent(Above(yours, deadline))} of calls would have failed at your load"),
            CheckupCode.Deadline(names, deadline),
            Above(yours, deadline)) { Runs = [yours.RunId] };
    }

    /// <summary>The share of a step's calls slower than <paramref name="deadline"/>, from its histogram (the bin it falls in split evenly).</summary>
    private static double Above(SweepStep step, double deadline)
    {
        var total = step.Histogram.Sum(bin => bin.Count);
        if (total == 0)
        {
            return 0;
        }

        var above = step.Histogram.Sum(bin => bin.FromMs >= deadline ? bin.Count
            : bin.ToMs > deadline && bin.ToMs > bin.FromMs ? bin.Count * (bin.ToMs - deadline) / (bin.ToMs - bin.FromMs) : 0);
        return above / total;
    }

    private sealed record Judged(double Baseline, double Other, double Ratio);

    private CheckupItem? FromClaim(string id, int number, string title, string lessonId, int claimIndex, bool done, Func<Judged, (string Advice, CheckupSaving Saving, string Code)> advise)
    {
        if (_reasons.TryGetValue(lessonId, out var reason))
        {
            return Unmeasured(id, number, title, reason.Outcome, reason.Why);
        }

        var experiment = Experiment(lessonId);
        if (experiment is null || experiment.State == RunState.Running)
        {
            return done ? Unmeasured(id, number, title, CheckupOutcome.NotMeasured, _overran ?? Cancelled) : null;
        }

        if (experiment.State != RunState.Completed)
        {
            // Repetitions cut short are not the design: what they measured stays in the experiment, and the item says why it is not judged.
            var why = experiment.State == RunState.Cancelled ? _overran ?? Cancelled : experiment.Error ?? "the measurement failed.";
            return Unmeasured(id, number, title, CheckupOutcome.NotMeasured, why) with { ExperimentId = experiment.Id };
        }

        var lesson = _lessons[lessonId];
        var claim = lesson.Claims[claimIndex];
        if (lessonId == "keep-alive")
        {
            // The probe measures over the target's own transport: its claim is the TLS one or the h2c one.
            claim = lesson.Claims.First(candidate => plan.Call.Tls == candidate.Baseline.EndsWith("-tls", StringComparison.Ordinal));
        }

        var verdict = LessonVerdicts.Judge(lesson, claim, experiment);
        var runs = experiment.Samples.Where(sample => sample.Arm == claim.Baseline || sample.Arm == claim.Other).Select(sample => sample.RunId).OfType<Guid>().ToList();
        if (verdict.MeasuredRatio is not { } ratio || Median(experiment, claim.Baseline, claim.Figure) is not { } baseline || Median(experiment, claim.Other, claim.Figure) is not { } other)
        {
            var why = verdict.Sentence.StartsWith(LessonVerdicts.NotJudged, StringComparison.Ordinal) ? Capital(verdict.Sentence[LessonVerdicts.NotJudged.Length..])
                : verdict.Sentence;
            return Unmeasured(id, number, title, CheckupOutcome.NotMeasured, why) with { ExperimentId = experiment.Id, Runs = runs };
        }

        var measured = new CheckupMeasure(lesson.Arm(claim.Baseline).Label, lesson.Arm(claim.Other).Label, claim.FigureTitle, verdict.MeasuredRatio, verdict.Range, verdict.Ratios,
            verdict.BeyondNoise, verdict.Sentence);
        // Advice only where the change saves beyond the spread, and enough to act on: the other arm costs more, whatever the
        // lesson expected of it.
        var least = claim.Expected == ExpectedDirection.Near1 ? LessonVerdicts.SimilarWithin : SmallestAdvised;
        if (!verdict.BeyondNoise || ratio <= least)
        {
            var nothing = verdict.BeyondNoise && ratio > 1
                ? $"A saving too small to act on: {measured.Other} ÷ {measured.Baseline} was {LessonVerdicts.Times(ratio)} in {claim.FigureTitle}, beyond the " +
                    $"run-to-run spread but under the {least.ToString("0.00", CultureInfo.InvariantCulture)}× a change of client is advised for, so as measured nothing needs to change for this."
                : $"No measurable saving here: {measured.Other} ÷ {measured.Baseline} was {LessonVerdicts.Times(ratio)} in {claim.FigureTitle}, " +
                    $"{(verdict.BeyondNoise ? "beyond" : "within")} the run-to-run spread, so as measured nothing needs to change for this.";
            return new CheckupItem(id, number, title, CheckupOutcome.NoSaving, nothing, measured, null, null, 0)
            {
                ExperimentId = experiment.Id,
                Runs = runs,
            };
        }

        var (advice, saving, code) = advise(new Judged(baseline, other, ratio));
        return new CheckupItem(id, number, title, CheckupOutcome.Advice, advice, measured, saving, code, Math.Round(1 - 1 / ratio, 4)) { ExperimentId = experiment.Id, Runs = runs };
    }

    private CheckupSaving PerCall(Judged judged, string what) => new(Round(judged.Other - judged.Baseline), "ms per call",
        $"{Ms(judged.Other - judged.Baseline)} ms {what}; at your load of {InFlight(plan.InFlight)}, about {plan.InFlight * 1000 / judged.Other:0} → " +
        $"{plan.InFlight * 1000 / judged.Baseline:0} calls per second");

    private static CheckupSaving Rate(Judged judged, string where, string unit = "calls per second") =>
        new(Math.Round(1000 / judged.Baseline - 1000 / judged.Other, 1), unit, $"{1000 / judged.Other:0} → {1000 / judged.Baseline:0} {unit} {where}");

    private ExperimentRecord? Experiment(string lesson) => _experiments.LastOrDefault(experiment => experiment.Lesson == lesson);

    private static double? Median(ExperimentRecord? experiment, string arm, string figure)
    {
        var values = experiment?.Samples.Where(sample => sample.Arm == arm && sample.State == RunState.Completed && sample.Figures.ContainsKey(figure))
            .Select(sample => sample.Figures[figure]).ToList();
        return values is { Count: > 0 } ? FigureRange.MedianOf(values) : null;
    }

    private static CheckupItem Unmeasured(string id, int number, string title, CheckupOutcome outcome, string why) => new(id, number, title, outcome, why, null, null, null, 0);

    private const string Cancelled = "The checkup was cancelled before this measurement ended.";

    private static string InFlight(int calls) => calls == 1 ? "1 call in flight" : $"{calls} calls in flight";

    private static double Round(double value) => Math.Round(value, 3);

    private static string Capital(string text) => text.Length == 0 ? text : char.ToUpperInvariant(text[0]) + text[1..];
}
