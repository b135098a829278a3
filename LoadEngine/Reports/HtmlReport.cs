using System.Text;
using LoadEngine.Runs;
using static LoadEngine.Reports.ReportText;

namespace LoadEngine.Reports;

/// <summary>
/// A run or a suite as one HTML file that opens from disk on a machine with no network: figures and tables as plain
/// HTML (readable without JavaScript), charts drawn by Chart.js inlined in the page, the data inlined as JSON
/// (<see cref="RunJson.Options"/>), and a Content-Security-Policy that lets only the page's own scripts and style run.
/// </summary>
public static class HtmlReport
{
    /// <summary>The one palette (Okabe–Ito, for colour-blind eyes too), the chart page's as well (GET /api/plan-facts): a strategy keeps its colour on every chart.</summary>
    public static IReadOnlyList<string> Palette { get; } = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#7F7F7F"];

    /// <summary>The page's Protocols charts: one colour per API the service counts a call under; <see cref="UnknownColour"/> for anything else.</summary>
    public static IReadOnlyDictionary<string, string> ApiColours { get; } = new Dictionary<string, string>
    {
        ["grpc"] = Palette[0], ["grpc-code-first"] = Palette[5], ["rest-stj"] = Palette[1], ["rest-newtonsoft"] = Palette[3],
    };

    public const string UnknownColour = "#555555";

    private static readonly Lazy<string> Stylesheet = new(() =>
        ReportAssets.Css + string.Concat(Palette.Select((colour, index) => $".c{index} {{ --colour: {colour}; }}\n")));

    public static string Render(ReportContent content)
    {
        var colours = ColourIndexes(content);
        var verdict = Summary(content.Runs);
        var html = new StringBuilder(ReportAssets.ChartJs.Length + 64 * 1024);
        var css = Stylesheet.Value;
        var chartJs = ReportAssets.ChartJs;
        var script = ReportAssets.Js;
        // A file has no origin to allow: only these exact inline scripts and this style may run, and nothing may load.
        var policy = $"default-src 'none'; script-src {ReportAssets.HashSource(chartJs)} {ReportAssets.HashSource(script)}; " +
                     $"style-src {ReportAssets.HashSource(css)}; base-uri 'none'; form-action 'none'";

        html.Append("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
            .Append("<meta http-equiv=\"Content-Security-Policy\" content=\"").Append(policy).Append("\">\n")
            .Append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
            .Append("<meta name=\"generator\" content=\"").Append(Escape(Generator())).Append("\">\n")
            .Append("<title>").Append(Escape(content.Title)).Append("</title>\n")
            .Append("<style>").Append(css).Append("</style>\n</head>\n")
            .Append("<body data-verdict=\"").Append(verdict).Append("\">\n");

        WriteHeader(html, content);
        html.Append("<main>");
        WriteSummary(html, content, verdict, colours);
        if (content.Suite is { } suite)
        {
            WriteSuite(html, suite, content.Runs, colours);
        }

        for (var index = 0; index < content.Runs.Count; index++)
        {
            RunSection.Write(html, content.Runs[index], index, colours[content.Runs[index].Plan.Strategy], content.MetadataKeys);
        }

        html.Append("</main>\n");
        WriteFooter(html, content);
        html.Append("<script>").Append(chartJs).Append("</script>\n")
            .Append("<script type=\"application/json\" id=\"report-data\">")
            .Append(ScriptJson(new ReportData(colours.ToDictionary(pair => pair.Key, pair => Palette[pair.Value]), content.Suite, content.Runs)))
            .Append("</script>\n")
            .Append("<script>").Append(script).Append("</script>\n</body>\n</html>\n");
        return html.ToString();
    }

    /// <summary>What the page's script reads: each strategy's colour, the suite (or null) and the runs, in <see cref="RunJson"/>'s shape.</summary>
    private sealed record ReportData(IReadOnlyDictionary<string, string> Colours, SuiteRecord? Suite, IReadOnlyList<RunRecord> Runs);

    private static string Generator() => $"GrpcBestPractices LoadEngine {ReportAssets.EngineVersion} with Chart.js {ReportAssets.ChartJsVersion}";

    /// <summary>Palette index per strategy: the caller's order first (the gateway's catalog), then the suite's, then the runs'.</summary>
    private static Dictionary<string, int> ColourIndexes(ReportContent content) =>
        content.ColourOrder.Concat(content.Suite?.Strategies ?? []).Concat(content.Runs.Select(run => run.Plan.Strategy)).Distinct()
            .Select((strategy, index) => (strategy, index)).ToDictionary(pair => pair.strategy, pair => pair.index % Palette.Count);

    /// <summary>failed when any run failed or could not be judged, passed when the others all passed, none when no run had thresholds.</summary>
    private static string Summary(IReadOnlyList<RunRecord> runs)
    {
        var judgements = runs.Select(Judgements.Of).ToList();
        return judgements.Any(judgement => judgement is Judgement.Failed or Judgement.NotJudged) ? "failed"
            : judgements.Contains(Judgement.Passed) ? "passed"
            : "none";
    }

    private static void WriteHeader(StringBuilder html, ReportContent content)
    {
        html.Append("<header class=\"top\"><div><h1>").Append(Escape(content.Title)).Append("</h1><p class=\"meta\">")
            .Append(content.Target is null ? "" : $"Target: <strong>{Escape(content.Target)}</strong> · ")
            .Append("Generated ").Append(Escape(Time(content.GeneratedAt))).Append("</p></div>")
            .Append("<label class=\"toggle needs-js\"><input type=\"checkbox\" id=\"large-type\"> Large type</label></header>\n");
    }

    private static void WriteSummary(StringBuilder html, ReportContent content, string verdict, Dictionary<string, int> colours)
    {
        var runs = content.Runs;
        html.Append("<section class=\"panel summary verdict-").Append(verdict).Append("\" aria-labelledby=\"summary-title\"><h2 id=\"summary-title\">")
            .Append(verdict switch { "passed" => "✓ PASSED", "failed" => "✗ FAILED", _ => "No verdict" })
            .Append("</h2><p class=\"summary-line\">").Append(Escape(VerdictLine(runs))).Append(' ')
            .Append(Escape(string.Join(", ", runs.GroupBy(run => run.State).Select(group => $"{group.Count()} of {runs.Count} {Plural(runs.Count, "run")} {group.Key.ToString().ToLowerInvariant()}"))))
            .Append(".</p>");
        if (runs.Count > 1)
        {
            html.Append("<nav aria-label=\"Runs in this report\"><ol class=\"toc\">");
            for (var index = 0; index < runs.Count; index++)
            {
                var run = runs[index];
                html.Append("<li>").Append(Cell.Strategy(run.Plan.Strategy, colours[run.Plan.Strategy], RunSection.Anchor(index)).Html)
                    .Append(" <span class=\"state state-").Append(run.State).Append("\">").Append(run.State).Append("</span> — ")
                    .Append(Cell.Outcome(Judgements.Of(run)).Html).Append("</li>");
            }

            html.Append("</ol></nav>");
        }

        html.Append("</section>\n");
    }

    /// <summary>The thresholds of every judged run, and the runs that had thresholds but no verdict, in one sentence or two.</summary>
    private static string VerdictLine(IReadOnlyList<RunRecord> runs)
    {
        var judged = runs.Where(run => run.Verdict is not null).ToList();
        var notJudged = runs.Count(run => Judgements.Of(run) == Judgement.NotJudged);
        if (judged.Count == 0 && notJudged == 0)
        {
            return "No thresholds were set, so there is nothing to pass or fail.";
        }

        var thresholds = judged.Sum(run => run.Verdict!.Thresholds.Count);
        var failedThresholds = judged.Sum(run => run.Verdict!.Thresholds.Count(threshold => !threshold.Passed));
        var failedRuns = judged.Count(run => !run.Verdict!.Passed);
        var line = judged.Count == 0 ? ""
            : failedRuns == 0 ? $"Every threshold held: {thresholds} in {judged.Count} {Plural(judged.Count, "run")}."
            : $"{failedThresholds} of {thresholds} thresholds failed, in {failedRuns} of {judged.Count} judged {Plural(judged.Count, "run")}.";
        return notJudged == 0 ? line
            : $"{line} {notJudged} {Plural(notJudged, "run")} with thresholds ended without a verdict.".TrimStart();
    }

    /// <summary>The load every run had (the suite's, before any ran); else each load with its strategies, each under its own.</summary>
    private static string LoadModels(SuiteRecord suite, IReadOnlyList<RunRecord> runs) =>
        runs.GroupBy(run => run.Plan.Load).ToList() is { Count: > 1 } loads
            ? "each strategy's own: " + string.Join("; ", loads.Select(load => $"{LoadFact.Of(load.Key).Words} ({string.Join(", ", load.Select(run => run.Plan.Strategy))})"))
            : LoadFact.Of((runs.FirstOrDefault()?.Plan ?? suite.Plan).Load).Words;

    private static void WriteSuite(StringBuilder html, SuiteRecord suite, IReadOnlyList<RunRecord> runs, Dictionary<string, int> colours)
    {
        html.Append("<section class=\"panel\" id=\"suite\" aria-labelledby=\"suite-title\"><h2 id=\"suite-title\">Suite: ")
            .Append(suite.Strategies.Count).Append(" strategies, one after another <span class=\"state state-").Append(suite.State).Append("\">")
            .Append(suite.State).Append("</span></h2>");
        html.Labelled("Error", suite.Error);
        HtmlMarkup.Facts(html, "facts",
        [
            ("Strategies", string.Join(", ", suite.Strategies)),
            ("Load model", LoadModels(suite, runs)),
            ("Bounded by", PlanWords.Bound(suite.Plan)),
            ("Started", Time(suite.StartedAt)),
            ("Finished", Time(suite.FinishedAt)),
            ("Suite id", suite.Id.ToString()),
        ]);

        var fastest = runs.Where(run => run is { State: RunState.Completed, Stats: not null }).Select(run => run.Stats!.WallTimeMs).DefaultIfEmpty().Min();
        html.Append("<h3>Comparison</h3>");
        HtmlMarkup.Table(html, "The strategies side by side", ["Strategy", "State", "Wall ms", "× fastest", "Calls/s", "p50 ms", "p99 ms", "Failed", "Error rate", "Connections", "Verdict"],
            runs.Select((run, index) => (IReadOnlyList<Cell>)
            [
                Cell.Strategy(run.Plan.Strategy, colours[run.Plan.Strategy], RunSection.Anchor(index)),
                Cell.Text(run.State.ToString()),
                Cell.Number(Number(run.Stats?.WallTimeMs)),
                Cell.Number(run is { State: RunState.Completed, Stats: { } stats } && fastest > 0 ? $"{stats.WallTimeMs / fastest:0.00}×" : "—"),
                Cell.Number(Number(run.Stats?.ThroughputPerSecond)),
                Cell.Number(Number(run.Stats?.Latency?.P50Ms)),
                Cell.Number(Number(run.Stats?.Latency?.P99Ms)),
                Cell.Number(Whole(run.Stats?.Failed)),
                Cell.Number(Percent(run.Stats?.ErrorRate)),
                Cell.Number(run.Stats is { ConnectionsCounted: false } ? "not measured" : Whole(run.Stats?.ConnectionsUsed)),
                Cell.Outcome(Judgements.Of(run)),
            ]));

        html.Append("<h3>Charts</h3><div class=\"charts suite-charts\">");
        foreach (var (chart, caption, pick) in SuiteFigures)
        {
            HtmlMarkup.Chart(html, caption, chart, null,
                $"{caption}: " + string.Join(", ", runs.Select(run => $"{run.Plan.Strategy} {Number(run.Stats is null ? null : pick(run.Stats))}")),
                table => HtmlMarkup.Table(table, caption, ["Strategy", caption],
                    runs.Select(run => (IReadOnlyList<Cell>)[Cell.Text(run.Plan.Strategy), Cell.Number(Number(run.Stats is null ? null : pick(run.Stats)))])));
        }

        html.Append("</div><div class=\"charts\">");
        HtmlMarkup.Chart(html, "Latency distributions overlaid: where each strategy's calls land (log scale)", "suite-distribution", null,
            "Latency histograms of " + string.Join(", ", runs.Select(run => run.Plan.Strategy)),
            table => table.Append("<p>Each run's section below holds its histogram bins.</p>"));
        html.Append("</div></section>\n");
    }

    /// <summary>The suite's bar charts: the chart name the script knows, its caption, and the figure it shows.</summary>
    private static readonly (string Chart, string Caption, Func<RunStats, double?> Pick)[] SuiteFigures =
    [
        ("suite-wall", "Wall time (ms), lower is better", stats => stats.WallTimeMs),
        ("suite-throughput", "Throughput (calls/s), higher is better", stats => stats.ThroughputPerSecond),
        ("suite-p50", "p50 latency (ms), lower is better", stats => stats.Latency?.P50Ms),
        ("suite-p99", "p99 latency (ms), lower is better", stats => stats.Latency?.P99Ms),
    ];

    private static void WriteFooter(StringBuilder html, ReportContent content)
    {
        html.Append("<footer class=\"made\"><p>Made by ").Append(Escape(Generator()))
            .Append(content.Tool is null ? "" : $", run by {Escape(content.Tool)}")
            .Append(", on ").Append(Escape(Time(content.GeneratedAt)))
            .Append(". This file is complete in itself: its charts, data and code are inside it, and it loads nothing from any network.</p></footer>\n");
    }

    private static string Plural(int count, string noun) => count == 1 ? noun : noun + "s";
}
