using System.Globalization;
using System.Text;

namespace LoadTest.Output;

/// <summary>ghz's output formats (-O) that the CLI writes: its summary tables, or a run's CSV, JSON or HTML report.</summary>
public enum ResultFormat
{
    Summary,
    Csv,
    Json,
    Html,
}

public static class ResultFormats
{
    public static IReadOnlyList<string> Names { get; } = [.. Enum.GetNames<ResultFormat>().Select(name => name.ToLowerInvariant())];

    /// <summary>The CSV columns: what the summary shows of each run, and an arrival rate's sends.</summary>
    public static readonly string[] CsvHeader =
    [
        "strategy", "state", "calls", "failed", "calls/s", "wall (ms)", "min (ms)", "mean (ms)", "p50 (ms)", "p90 (ms)", "p99 (ms)", "max (ms)",
        "connections", "sends due", "late", "dropped", "lag p99 (ms)", "verdict",
    ];

    /// <summary>
    /// The runs as CSV, a row each. ghz's CSV has a row per call; the engine keeps histograms, not every call, so a row
    /// holds a run's figures instead, in the same units (milliseconds).
    /// </summary>
    public static string Csv(IEnumerable<RunRecord> runs)
    {
        var text = new StringBuilder().AppendJoin(',', CsvHeader).Append('\n');
        foreach (var run in runs)
        {
            var stats = run.Stats;
            var latency = stats?.Latency;
            var sends = stats?.Sends;
            string?[] row =
            [
                run.Plan.Strategy, run.State.ToString(), Number(stats?.Calls), Number(stats?.Failed), Number(stats?.ThroughputPerSecond), Number(stats?.WallTimeMs),
                Number(latency?.MinMs), Number(latency?.MeanMs), Number(latency?.P50Ms), Number(latency?.P90Ms), Number(latency?.P99Ms), Number(latency?.MaxMs),
                stats is { ConnectionsCounted: true } ? Number(stats.ConnectionsUsed) : null,
                Number(sends?.Intended), Number(sends?.Late), Number(sends?.Dropped), Number(sends?.LagP99Ms),
                run.Verdict is null ? null : run.Verdict.Passed ? "passed" : "failed",
            ];
            text.AppendJoin(',', row.Select(Field)).Append('\n');
        }

        return text.ToString();
    }

    private static string? Number(double? value) => value?.ToString("0.###", CultureInfo.InvariantCulture);

    // RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled.
    private static string Field(string? value) => value is null ? "" : value.IndexOfAny([',', '"', '\n', '\r']) < 0 ? value : $"\"{value.Replace("\"", "\"\"")}\"";
}
