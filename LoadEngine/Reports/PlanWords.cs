using System.Globalization;
using System.Text.RegularExpressions;
using LoadEngine.Protocols;
using LoadEngine.Runs;
using static LoadEngine.Reports.ReportText;

namespace LoadEngine.Reports;

/// <summary>
/// One fact of a plan that decides what a run measures: its <see cref="Name"/>, its <see cref="Value"/> (what two plans are
/// compared by, "none" when unset) and its <see cref="Words"/> in the plan's one-line phrase (null when the phrase leaves it out).
/// </summary>
public sealed record PlanFact(string Name, string Value, string? Words);

/// <summary>
/// A plan in words, written once: the report's labelled facts, and the facts and phrase the CLI's plan line and the
/// page's captions, groups and differences show (the gateway sends <see cref="Facts"/> with every run as "planFacts").
/// The only place that reads a plan's fields to word them.
/// </summary>
public static partial class PlanWords
{
    private static readonly CultureInfo Invariant = CultureInfo.InvariantCulture;

    /// <summary>
    /// What is called first (a target's method and its data, or a workload and its contender), then the load. The strategy
    /// is what runs are compared by, and percentiles, thresholds, shards and the descriptor set change nothing measured: left out.
    /// </summary>
    public static IReadOnlyList<PlanFact> Facts(RunPlan plan)
    {
        var facts = new List<PlanFact>();
        if (plan.Described is { } described)
        {
            var target = described.Target ?? "performance";
            facts.Add(new("target", target, $"on {target}"));
            facts.Add(new("call", described.Call, described.Call));
            // Enough of the request data to recognise it, on one line.
            var data = Spaces().Replace(described.Data ?? "", " ");
            facts.Add(new("data", described.Data ?? "none", described.Data is null ? "default request" : $"request {(data.Length > 60 ? $"{data[..59]}…" : data)}"));
        }

        // A workload, its contender and its settings, each by its plan name and its value as the plan's JSON writes it.
        if (plan.Workload is { Contender: var contender } workload)
        {
            (string Name, string? Value)[] settings =
            [
                ("workload", workload.Id), ("protocol", Wire(contender?.Protocol)), ("serializer", Wire(contender?.Serializer)),
                ("httpVersion", Wire(contender?.HttpVersion)), ("security", Wire(contender?.Security)), ("fileBytes", workload.FileBytes?.ToString(Invariant)),
                ("connection", Wire(workload.Connection)), ("clients", workload.Clients?.ToString(Invariant)), ("variant", Wire(workload.Variant)),
                ("users", workload.Users?.ToString(Invariant)),
            ];
            facts.AddRange(settings.Where(setting => setting.Value is not null).Select(setting => new PlanFact(setting.Name, setting.Value!, $"{setting.Name} {setting.Value}")));
        }

        facts.Add(new("count", plan.Count is { } count ? Whole(count) : "none", plan.Count is { } calls ? $"{Whole(calls)} call{(calls == 1 ? "" : "s")}" : null));
        facts.Add(new("duration", plan.Duration is { } duration ? $"{Seconds(duration)} s" : "none", plan.Duration is { } seconds ? $"{Seconds(seconds)} s" : null));
        var load = Load(plan);
        facts.Add(new("load", load, load));
        facts.Add(new("rate", plan.Rate is { } rate ? $"{Whole(rate)} calls/s" : "none", plan.Rate is { } perSecond ? $"{Whole(perSecond)} calls/s" : null));
        facts.Add(plan.Stages is { Count: > 0 } stages
            ? new("stages", string.Join(", ", stages.Select(stage => $"{Seconds(stage.Duration)}:{Seconds(stage.Target)}")),
                string.Join(", ", stages.Select(stage => $"{Seconds(stage.Duration)} s→{Whole(stage.Target)}/s")))
            : new("stages", "none", null));
        facts.Add(new("warm-up", Whole(plan.Warmup), plan.Warmup > 0 ? $"{Whole(plan.Warmup)} warm-up calls" : null));
        // A target's method takes its request from the data: the built-in service's delay and payload are not its.
        var builtIn = plan.Called as BuiltInCall ?? new BuiltInCall();
        facts.Add(new("delay", $"{Whole(builtIn.DelayMs)} ms", plan.Described is null ? $"delay {Whole(builtIn.DelayMs)} ms" : null));
        facts.Add(new("payload", $"{Whole(builtIn.PayloadBytes)} B", plan.Described is null ? $"payload {Whole(builtIn.PayloadBytes)} B" : null));
        // N agent processes with their own channels measure something else than one process alone: never one plan.
        facts.Add(new("agents", plan.Agents is { } agents ? Whole(agents) : "—", plan.Agents is { } shared ? $"{Whole(shared)} agent{(shared == 1 ? "" : "s")}" : null));
        return facts;
    }

    /// <summary>"1,000 calls, closed, 10 in flight, delay 0 ms, payload 100 B".</summary>
    public static string Phrase(RunPlan plan) => string.Join(", ", Facts(plan).Select(fact => fact.Words).OfType<string>());

    /// <summary>The report's facts of a plan, each under its label (null values are left out).</summary>
    public static IEnumerable<(string, string?)> Labelled(RunPlan plan)
    {
        var described = plan.Described is not null;
        var builtIn = plan.Called as BuiltInCall ?? new BuiltInCall();
        var load = LoadFact.Of(plan.Load);
        yield return ("Target", plan.Described?.Target);
        yield return ("Call", plan.Described?.Call);
        yield return ("Load model", load.Words);
        yield return ("Bounded by", Bound(plan));
        yield return ("Concurrency", load.UsesConcurrency ? $"{ReportText.Whole(plan.Concurrency)} in flight at most" : null);
        yield return (plan.Load == LoadKind.Ramping ? "Starting rate" : "Rate", plan.Rate is { } rate ? $"{Number(rate)} calls/s" : null);
        yield return ("Stages", plan.Stages is { Count: > 0 } stages
            ? string.Join(", then ", stages.Select(stage => $"to {Number(stage.Target)} calls/s over {Number(stage.Duration)} s"))
            : null);
        yield return ("Warm-up", $"{ReportText.Whole(plan.Warmup)} calls, not measured");
        yield return ("Server delay", described ? null : $"{ReportText.Whole(builtIn.DelayMs)} ms");
        yield return ("Payload", described ? null : $"{ReportText.Whole(builtIn.PayloadBytes)} bytes per field");
    }

    /// <summary>What bounds the run: a count, a duration, or whichever of both comes first.</summary>
    public static string Bound(RunPlan plan) => (plan.Count, plan.Duration) switch
    {
        ({ } count, { } seconds) => $"{ReportText.Whole(count)} calls or {Number(seconds)} s, whichever comes first",
        ({ } count, null) => $"{ReportText.Whole(count)} calls",
        (null, { } seconds) => $"{Number(seconds)} s",
        _ => "—",
    };

    /// <summary>"closed, 10 in flight", "sequential", "open, at most 50 in flight".</summary>
    private static string Load(RunPlan plan) => plan.Load switch
    {
        LoadKind.Closed => $"closed, {Whole(plan.Concurrency)} in flight",
        LoadKind.Sequential => "sequential",
        _ => $"{LoadFact.Of(plan.Load).Name}{(plan.Concurrency > 0 ? $", at most {Whole(plan.Concurrency)} in flight" : "")}",
    };

    private static string? Wire<TEnum>(TEnum? value) where TEnum : struct, Enum => value is { } named ? WireNames<TEnum>.Name(named) : null;

    /// <summary>A whole number as the page writes one: rounded half away from zero, "1,000".</summary>
    private static string Whole(double value) => Math.Round(value, MidpointRounding.AwayFromZero).ToString("#,0", Invariant);

    /// <summary>A number of seconds (or any figure) as given: "2.5", "30".</summary>
    private static string Seconds(double value) => value.ToString(Invariant);

    [GeneratedRegex(@"\s+")]
    private static partial Regex Spaces();
}
