using System.Globalization;
using LoadEngine.Protocols;

namespace LoadTest.Output;

/// <summary>How the CLI writes a plan, a moment of a run and its outcome, in words: the same on a terminal and in a CI log.</summary>
public static class Figures
{
    public static string Ms(double? ms) => ms is { } value ? $"{value.ToString("0.000", CultureInfo.InvariantCulture)} ms" : "-";

    public static string Whole(double value) => Math.Round(value).ToString("#,0", CultureInfo.InvariantCulture);

    /// <summary>"1 call", "1,000 calls".</summary>
    public static string Calls(double count) => count == 1 ? "1 call" : $"{Whole(count)} calls";

    public static string Seconds(double ms) => (ms / 1000).ToString("0.0", CultureInfo.InvariantCulture);

    /// <summary>"[2/6] client-wrapper" in a suite, the strategy alone otherwise.</summary>
    public static string Label(string strategy, int position, int of) => of > 1 ? $"[{position}/{of}] {strategy}" : strategy;

    /// <summary>"closed, 100 in flight, 1,000 calls, warm-up 100, thresholds p99 &lt; 5ms".</summary>
    public static string Describe(RunPlan plan)
    {
        var parts = new List<string>();
        if (plan.Workload is { } workload)
        {
            parts.Add($"workload {workload}{Settings(plan)}");
        }

        parts.Add(RunPlanRules.Name(plan.Load));
        if (plan.Load == LoadKind.Closed)
        {
            parts.Add($"{Whole(plan.Concurrency)} in flight");
        }

        if (plan.Load == LoadKind.Open)
        {
            parts.Add($"{plan.Rate?.ToString(CultureInfo.InvariantCulture)} calls/s");
        }

        if (plan.Stages is { Count: > 0 } stages)
        {
            parts.Add("stages " + string.Join(',', stages.Select(stage => $"{stage.Duration.ToString(CultureInfo.InvariantCulture)}:{stage.Target.ToString(CultureInfo.InvariantCulture)}")));
        }

        if (plan.Count is { } count)
        {
            parts.Add(Calls(count));
        }

        if (plan.Duration is { } duration)
        {
            parts.Add($"{duration.ToString(CultureInfo.InvariantCulture)} s");
        }

        if (plan.Warmup > 0)
        {
            parts.Add($"warm-up {Whole(plan.Warmup)}");
        }

        if (plan.Called is BuiltInCall { DelayMs: > 0 } builtIn)
        {
            parts.Add($"service delay {builtIn.DelayMs} ms");
        }

        if (plan.Thresholds.Count > 0)
        {
            parts.Add("thresholds " + string.Join("; ", plan.Thresholds));
        }

        return string.Join(", ", parts);
    }

    /// <summary>A number of bytes per call: "1,234 B".</summary>
    public static string Bytes(double? bytes) => bytes is { } value ? $"{Whole(value)} B" : "-";

    /// <summary>" (fileBytes 1048576, clients 8)": the workload settings a plan carries.</summary>
    private static string Settings(RunPlan plan)
    {
        var settings = new (string Name, object? Value)[]
        {
            ("fileBytes", plan.Workload?.FileBytes), ("connection", plan.Workload?.Connection is { } connection ? WireNames<ConnectionUse>.Name(connection) : null),
            ("clients", plan.Workload?.Clients), ("variant", plan.Workload?.Variant is { } variant ? WireNames<BulkReadVariant>.Name(variant) : null), ("users", plan.Workload?.Users),
        }.Where(setting => setting.Value is not null).Select(setting => string.Create(CultureInfo.InvariantCulture, $"{setting.Name} {setting.Value}")).ToList();
        return settings.Count == 0 ? "" : $" ({string.Join(", ", settings)})";
    }

    /// <summary>How far the phase is, 0 to 1: by calls, by time, or by whichever is further when both bound it.</summary>
    public static double Fraction(ProgressSnapshot snapshot)
    {
        var byCalls = snapshot.Total > 0 ? (double)snapshot.Completed / snapshot.Total : 0;
        var byTime = snapshot.DurationMs is > 0 and var duration ? snapshot.ElapsedMs / duration : 0;
        return Math.Clamp(Math.Max(byCalls, byTime), 0, 1);
    }

    /// <summary>"measured 400/1,000 calls, 905 calls/s, p50 0.120 ms, p99 0.400 ms, 0 failed" (late and dropped under an arrival rate).</summary>
    public static string Progress(ProgressSnapshot snapshot)
    {
        var phase = snapshot.Phase switch
        {
            RunPhase.Starting => "starting",
            RunPhase.Warmup => "warm-up",
            RunPhase.Measured => "measured",
            _ => "finished",
        };
        var done = snapshot.Total > 0
            ? $"{Whole(snapshot.Completed)}/{Whole(snapshot.Total)} calls"
            : Calls(snapshot.Completed);
        if (snapshot.DurationMs is { } duration)
        {
            done += $" in {Seconds(snapshot.ElapsedMs)}/{Seconds(duration)} s";
        }

        var text = $"{phase} {done}, {Whole(snapshot.CurrentThroughputPerSecond)} calls/s, p50 {Ms(snapshot.RollingP50Ms)}, p99 {Ms(snapshot.RollingP99Ms)}, {Whole(snapshot.Failed)} failed";
        return snapshot.Late is { } late ? $"{text}, {Whole(late)} late, {Whole(snapshot.Dropped ?? 0)} dropped" : text;
    }

    /// <summary>"Completed: 1,000 calls in 150.7 ms, 6,636 calls/s, p99 0.356 ms", or the state and the run's error; a completed run's note after it.</summary>
    public static string Outcome(RunRecord run)
    {
        var measured = run.Stats is { } stats
            ? $"{Calls(stats.Calls)} in {stats.WallTimeMs.ToString("0.0", CultureInfo.InvariantCulture)} ms, {Whole(stats.ThroughputPerSecond)} calls/s, p99 {Ms(stats.Latency?.P99Ms)}, {Whole(stats.Failed)} failed"
            : "nothing measured";
        return (run.Error, run.Note) switch
        {
            ({ } error, _) => $"{run.State}: {error} ({measured})",
            (_, { } note) => $"{run.State}: {measured}. {note}",
            _ => $"{run.State}: {measured}",
        };
    }

    /// <summary>A threshold's figure in its unit: "0.412 ms", "0.12%", "6,636 calls/s", "3 calls".</summary>
    public static string InUnit(double? value, string unit) => value switch
    {
        null => "-",
        { } v when unit == "ms" => Ms(v),
        { } v when unit == "fraction" => (v * 100).ToString("0.###", CultureInfo.InvariantCulture) + "%",
        { } v when unit == "calls/s" => $"{Whole(v)} calls/s",
        { } v => $"{Whole(v)} {unit}",
    };
}
