using System.Text;
using LoadEngine.Runs;
using static LoadEngine.Reports.ReportText;

namespace LoadEngine.Reports;

/// <summary>One run's section of the report: what it did, what it measured, its verdict, and its charts with their data.</summary>
internal static class RunSection
{
    /// <summary>The most of a run's request data shown: enough to recognise it, not a page of it.</summary>
    public const int MaxRequestChars = 2000;

    /// <param name="metadataKeys">The metadata keys the calls of a target's method carried (never their values).</param>
    public static void Write(StringBuilder html, RunRecord run, int index, int colour, IReadOnlyList<string> metadataKeys)
    {
        html.Append("<section class=\"panel run c").Append(colour).Append("\" id=\"").Append(Anchor(index)).Append("\" aria-labelledby=\"").Append(Anchor(index)).Append("-title\">");
        html.Append("<h2 id=\"").Append(Anchor(index)).Append("-title\"><span class=\"swatch c").Append(colour).Append("\" aria-hidden=\"true\"></span>")
            .Append(Escape(run.Plan.Strategy)).Append(" <span class=\"state state-").Append(run.State).Append("\">").Append(run.State).Append("</span></h2>");
        html.Labelled("Error", run.Error).Labelled("Note", run.Note).Labelled("Measured", run.Measured);
        WriteVerdict(html, run);
        html.Append("<h3>Plan</h3>");
        HtmlMarkup.Facts(html, "facts", PlanWords.Labelled(run.Plan).Concat(
        [
            ("Metadata keys", run.Plan.Described is null ? null : metadataKeys.Count == 0 ? "none" : $"{string.Join(", ", metadataKeys)} (values not shown)"),
            ("Started", Time(run.StartedAt)),
            ("Finished", Time(run.FinishedAt)),
            ("Run id", run.Id.ToString()),
        ]));
        WriteRequest(html, run.Plan);
        if (run.Stats is not { } stats)
        {
            html.Append(run.State == RunState.Running
                ? "<p class=\"hint\">No figures yet: the run is still running.</p></section>"
                : "<p class=\"hint\">No figures: the run ended before it measured any call.</p></section>");
            return;
        }

        html.Append("<h3>Key figures</h3>");
        HtmlMarkup.Facts(html, "figures",
        [
            ("Wall time", $"{Number(stats.WallTimeMs)} ms"),
            ("Throughput", $"{Number(stats.ThroughputPerSecond)} calls/s"),
            ("Calls", Whole(stats.Calls)),
            ("Succeeded", Whole(stats.Succeeded)),
            ("Failed", Whole(stats.Failed)),
            ("Error rate", Percent(stats.ErrorRate)),
            ("First call", stats.FirstCallMs is { } first ? $"{Number(first)} ms" : "—"),
            ("Connections", stats.ConnectionsCounted ? Whole(stats.ConnectionsUsed) : "not measured"),
        ]);
        var service = stats.Service;
        HtmlMarkup.Facts(html, "facts",
        [
            ("Warm-up", $"{Whole(stats.WarmupCalls)} calls in {Number(stats.WarmupMs)} ms"),
            ("Allocated per call", $"{Number(stats.AllocatedBytesPerCall)} bytes"),
            ("Answers per call", stats.AnswersPerCall is { } answers ? Number(answers) : null),
            ("Service CPU", service.Samples == 0 ? null : $"{Number(service.CpuMeanPercent)} % mean, {Number(service.CpuMaxPercent)} % max ({Whole(service.Samples)} samples)"),
            ("Service memory", service.MemoryMaxMegabytes is { } memory ? $"{Number(memory)} MiB at most" : null),
        ]);
        if (stats.FirstAnswer is { } answer)
        {
            html.Append("<h3>First answer</h3><pre class=\"answer\">").Append(Escape(answer)).Append("</pre>");
        }

        html.Append("<div class=\"tables\">");
        WriteLatency(html, stats);
        WriteSends(html, stats.Sends);
        WriteStatusCounts(html, stats);
        html.Append("</div>");
        WriteServerMessages(html, stats);
        html.Append("<h3>Charts</h3><div class=\"charts\">");
        WriteHistogram(html, run, index, stats.Histogram);
        WriteSeries(html, run, index);
        html.Append("</div></section>");
    }

    public static string Anchor(int index) => $"run-{index + 1}";

    /// <summary>A target's method: the request data every call was made from, escaped and cut to <see cref="MaxRequestChars"/>.</summary>
    private static void WriteRequest(StringBuilder html, RunPlan plan)
    {
        if (plan.Described is not { Data: var given })
        {
            return;
        }

        if (string.IsNullOrWhiteSpace(given))
        {
            html.Append("<p class=\"hint\">Request data: none given, so each call sent the method's default request (every field empty).</p>");
            return;
        }

        // Never cut between the halves of a surrogate pair.
        var cut = char.IsHighSurrogate(given[Math.Min(given.Length, MaxRequestChars) - 1]) ? MaxRequestChars - 1 : MaxRequestChars;
        var data = given.Length > MaxRequestChars
            ? $"{given[..cut]}… ({Whole(given.Length - cut)} more characters not shown)"
            : given;
        html.Append("<h3>Request data</h3><pre class=\"request\">").Append(Escape(data)).Append("</pre>");
    }

    private static void WriteVerdict(StringBuilder html, RunRecord run)
    {
        if (run.Verdict is not { } verdict)
        {
            html.Append(Judgements.Of(run) == Judgement.NotJudged
                ? $"<div class=\"verdict verdict-failed\"><p><strong>Verdict: ✗ NOT JUDGED</strong> — the run ended without a verdict on its thresholds: {Escape(string.Join(", ", run.Plan.Thresholds))}.</p></div>"
                : "<p class=\"verdict verdict-none\"><strong>Verdict:</strong> no thresholds were set.</p>");
            return;
        }

        var failed = verdict.Thresholds.Count(threshold => !threshold.Passed);
        html.Append("<div class=\"verdict verdict-").Append(verdict.Passed ? "passed" : "failed").Append("\"><p><strong>Verdict: ")
            .Append(verdict.Passed ? "✓ PASSED" : "✗ FAILED").Append("</strong> — ")
            .Append(verdict.Passed ? $"all {verdict.Thresholds.Count} thresholds held." : $"{failed} of {verdict.Thresholds.Count} thresholds failed.").Append("</p>");
        HtmlMarkup.Table(html, "Thresholds", ["Threshold", "Measured", "Limit", "Result"], verdict.Thresholds.Select(threshold => (IReadOnlyList<Cell>)
        [
            Cell.Text(threshold.Threshold),
            Cell.Number(Figure(threshold.Measured, threshold.Unit)),
            Cell.Number($"{threshold.Operator} {Figure(threshold.Limit, threshold.Unit)}"),
            Cell.Outcome(threshold.Passed ? Judgement.Passed : Judgement.Failed),
        ]));
        html.Append("</div>");
    }

    private static void WriteLatency(StringBuilder html, RunStats stats)
    {
        if (stats.Latency is not { } latency)
        {
            html.Append("<div><p class=\"hint\">No latency: no call after the first succeeded.</p></div>");
            return;
        }

        var actual = stats.LatencyFromActualSend;
        html.Append("<div><h3>Latency percentiles</h3>");
        if (actual is not null)
        {
            html.Append("<p class=\"hint\">The calls started on a schedule: latency from the intended send counts any wait the client added when it fell behind (coordinated omission corrected); from the actual send it does not.</p>");
        }

        string[] headers = actual is null
            ? ["Percentile", "Latency (ms)"]
            : ["Percentile", "From the intended send (coordinated-omission corrected), ms", "From the actual send, ms"];
        var percentiles = latency.Percentiles.Count > 0
            ? latency.Percentiles
            : [new(50, latency.P50Ms), new(90, latency.P90Ms), new(99, latency.P99Ms), new(99.9, latency.P999Ms)];
        var rows = new List<(string Name, double Value, double? Actual)> { ("min", latency.MinMs, actual?.MinMs) };
        rows.AddRange(percentiles.Select(entry =>
            (PercentileName(entry.Percentile), entry.Ms, actual?.Percentiles.FirstOrDefault(other => other.Percentile == entry.Percentile)?.Ms)));
        rows.Add(("max", latency.MaxMs, actual?.MaxMs));
        rows.Add(("mean", latency.MeanMs, actual?.MeanMs));
        rows.Add(("standard deviation", latency.StdDevMs, actual?.StdDevMs));
        HtmlMarkup.Table(html, "Latency percentiles in milliseconds", headers, rows.Select(row => (IReadOnlyList<Cell>)(actual is null
            ? [Cell.Text(row.Name), Cell.Number(Number(row.Value))]
            : [Cell.Text(row.Name), Cell.Number(Number(row.Value)), Cell.Number(Number(row.Actual))])));
        html.Append("</div>");
    }

    private static void WriteSends(StringBuilder html, SendStats? sends)
    {
        if (sends is null)
        {
            return;
        }

        html.Append("<div><h3>How the schedule was kept</h3>");
        HtmlMarkup.Table(html, "Sends against the schedule", ["Figure", "Value"],
        [
            [Cell.Text("Intended (due) calls"), Cell.Number(Whole(sends.Intended))],
            [Cell.Text("Sent"), Cell.Number(Whole(sends.Sent))],
            [Cell.Text($"Late (more than {Number(sends.LateAfterMs)} ms after their time)"), Cell.Number(Whole(sends.Late))],
            [Cell.Text("Dropped (the client had its maximum in flight)"), Cell.Number(Whole(sends.Dropped))],
            [Cell.Text("Requested rate"), Cell.Number($"{Number(sends.RequestedRatePerSecond)} calls/s")],
            [Cell.Text("Achieved rate"), Cell.Number($"{Number(sends.AchievedRatePerSecond)} calls/s")],
            [Cell.Text("Send lag p50"), Cell.Number($"{Number(sends.LagP50Ms)} ms")],
            [Cell.Text("Send lag p99"), Cell.Number($"{Number(sends.LagP99Ms)} ms")],
            [Cell.Text("Send lag max"), Cell.Number($"{Number(sends.LagMaxMs)} ms")],
        ]);
        html.Append("</div>");
    }

    private static void WriteStatusCounts(StringBuilder html, RunStats stats)
    {
        if (stats.StatusCounts.Count == 0)
        {
            return;
        }

        var total = stats.StatusCounts.Values.Sum();
        html.Append("<div><h3>Status codes</h3>");
        HtmlMarkup.Table(html, "Calls by gRPC status", ["Status", "Calls", "Share"], stats.StatusCounts.OrderByDescending(pair => pair.Value).Select(pair => (IReadOnlyList<Cell>)
            [Cell.Text(pair.Key), Cell.Number(Whole(pair.Value)), Cell.Number(Percent(total == 0 ? 0 : (double)pair.Value / total))]));
        html.Append("</div>");
    }

    /// <summary>
    /// Failed calls by status with the server's own words: a row per kept message, and a row for a status's calls whose
    /// message was not kept. The messages were masked and escaped where they entered the engine, and are HTML-escaped here like every text.
    /// </summary>
    private static void WriteServerMessages(StringBuilder html, RunStats stats)
    {
        if (stats.StatusDetails.Count == 0)
        {
            return;
        }

        html.Append("<div class=\"server-messages\"><h3>What the server said</h3>");
        HtmlMarkup.Table(html, "Failed calls by status and the server's message", ["Status", "Calls", "Message"],
            StatusDetails.Rows(stats.StatusDetails).Select(row => (IReadOnlyList<Cell>)[Cell.Text(row.Status), Cell.Number(Whole(row.Calls)), Cell.Text(row.Message)]));
        html.Append("</div>");
    }

    private static void WriteHistogram(StringBuilder html, RunRecord run, int index, IReadOnlyList<HistogramBin> bins)
    {
        if (bins.Count == 0)
        {
            html.Append("<p class=\"hint\">No latency distribution: the run recorded no latencies.</p>");
            return;
        }

        HtmlMarkup.Chart(html, "Latency distribution: calls per latency bin (log scale)", "histogram", index,
            $"Latency distribution of {run.Plan.Strategy}: {bins.Count} bins from {Number(bins[0].FromMs)} to {Number(bins[^1].ToMs)} ms",
            table => HtmlMarkup.Table(table, "Latency histogram bins", ["From (ms)", "To (ms)", "Calls"],
                bins.Select(bin => (IReadOnlyList<Cell>)[Cell.Number(Number(bin.FromMs)), Cell.Number(Number(bin.ToMs)), Cell.Number(Whole(bin.Count))])));
    }

    private static void WriteSeries(StringBuilder html, RunRecord run, int index)
    {
        if (run.Series is not { Points.Count: > 0 } series)
        {
            html.Append("<p class=\"hint\">No time series: the run recorded its figures only as a whole.</p>");
            return;
        }

        var seconds = series.IntervalMs / 1000;
        HtmlMarkup.Chart(html, $"Calls and errors per second, per {Number(series.IntervalMs)} ms bucket", "rate", index,
            $"Calls and errors per second of {run.Plan.Strategy} over {series.Points.Count} buckets; peak {Number(series.Points.Max(point => point.Calls) / seconds)} calls/s",
            table => HtmlMarkup.Table(table, "Calls and errors per bucket", ["Bucket end (s)", "Calls", "Calls/s", "Errors", "Errors/s", "Errors by status"],
                series.Points.Select(point => (IReadOnlyList<Cell>)
                [
                    Cell.Number(Number(point.AtMs / 1000)), Cell.Number(Whole(point.Calls)), Cell.Number(Number(point.Calls / seconds)),
                    Cell.Number(Whole(point.Errors)), Cell.Number(Number(point.Errors / seconds)),
                    Cell.Text(string.Join(", ", point.ErrorsByStatus.Select(pair => $"{pair.Key} {Whole(pair.Value)}"))),
                ])));
        HtmlMarkup.Chart(html, "Latency over time: p50, p90, p99 and max of each bucket (ms, log scale)", "latency", index,
            $"Latency percentiles of {run.Plan.Strategy} over {series.Points.Count} buckets",
            table => HtmlMarkup.Table(table, "Latency per bucket in milliseconds", ["Bucket end (s)", "p50", "p90", "p99", "max"],
                series.Points.Select(point => (IReadOnlyList<Cell>)
                [
                    Cell.Number(Number(point.AtMs / 1000)), Cell.Number(Number(point.P50Ms)), Cell.Number(Number(point.P90Ms)),
                    Cell.Number(Number(point.P99Ms)), Cell.Number(Number(point.MaxMs)),
                ])));
    }
}
