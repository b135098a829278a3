using System.Globalization;
using System.Text;
using LoadEngine.Reports;
using static LoadEngine.Reports.ReportText;

namespace LoadEngine.Checkup;

/// <summary>
/// A checkup as one self-contained HTML page that opens offline: the prescription in order, each item with what was
/// measured, the saving and the code; the capacity sweep as a table; the caveats. Everything from the target or the
/// measurement is escaped, and the page's policy lets only its own style apply and nothing load or run.
/// </summary>
public static class CheckupReport
{
    public static string Render(CheckupRecord checkup)
    {
        var css = ReportAssets.Css + CheckupCss;
        var title = $"Checkup of {checkup.Call}";
        var html = new StringBuilder(32 * 1024);
        html.Append("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
            .Append("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src ").Append(ReportAssets.HashSource(css))
            .Append("; base-uri 'none'; form-action 'none'\">\n")
            .Append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
            .Append("<title>").Append(Escape(title)).Append("</title>\n<style>").Append(css).Append("</style>\n</head>\n<body>\n")
            .Append("<header class=\"top\"><div><h1>").Append(Escape(title)).Append("</h1><p class=\"meta\">Target: <strong>")
            .Append(Escape(checkup.Target ?? checkup.Address)).Append("</strong> · ").Append(Escape(checkup.State.ToString().ToLowerInvariant()))
            .Append(" · budget ").Append(checkup.BudgetSeconds.ToString("0.#", CultureInfo.InvariantCulture)).Append(" s · your load ")
            .Append(checkup.InFlight).Append(" in flight · started ").Append(Escape(checkup.StartedAt.ToString("u", CultureInfo.InvariantCulture)))
            .Append("</p></div></header>\n<main>\n");
        html.Labelled("Error", checkup.Error);
        html.Append("<section class=\"panel\"><h2>What to change</h2><ol class=\"checkup-items\">\n");
        foreach (var item in checkup.Items)
        {
            html.Append("<li class=\"checkup-item outcome-").Append(Escape(Outcome(item.Outcome))).Append("\" id=\"item-").Append(Escape(item.Id)).Append("\"><h3>")
                .Append(Escape(item.Title)).Append(" <span class=\"badge\">").Append(Escape(OutcomeWords(item.Outcome))).Append("</span></h3><p>")
                .Append(Escape(item.Advice)).Append("</p>");
            if (item.Measured is { } measured)
            {
                html.Append("<p class=\"measured\">Measured: ").Append(Escape(measured.Sentence)).Append("</p>");
            }

            if (item.Saving is { } saving)
            {
                html.Append("<p class=\"saving\">Saving: ").Append(Escape(saving.Sentence)).Append("</p>");
            }

            if (item.Code is { } code)
            {
                html.Append("<pre><code>").Append(Escape(code)).Append("</code></pre>");
            }

            if (item.Runs.Count > 0)
            {
                html.Append("<p class=\"runs\">Runs: ").Append(Escape(string.Join(", ", item.Runs))).Append("</p>");
            }

            html.Append("</li>\n");
        }

        html.Append("</ol></section>\n");
        if (checkup.Sweep is { Steps.Count: > 0 } sweep)
        {
            html.Append("<section class=\"panel\"><h2>The capacity sweep</h2><p>").Append(Escape($"Stopped because {sweep.StoppedBecause}.")).Append("</p>");
            HtmlMarkup.Table(html, "Calls in flight, doubled on one connection", ["In flight", "Calls/s", "p50 ms", "p99 ms", "p99.9 ms", "Failed", "Run"],
                sweep.Steps.Select(step => (IReadOnlyList<Cell>)
                [
                    Cell.Number(step.InFlight.ToString(CultureInfo.InvariantCulture) + (step == sweep.Knee ? " (knee)" : "")),
                    Cell.Number(step.CallsPerSecond.ToString("0.#", CultureInfo.InvariantCulture)),
                    Cell.Number(step.P50Ms.ToString("0.###", CultureInfo.InvariantCulture)),
                    Cell.Number(step.P99Ms.ToString("0.###", CultureInfo.InvariantCulture)),
                    Cell.Number(step.P999Ms.ToString("0.###", CultureInfo.InvariantCulture)),
                    Cell.Number(step.Failed.ToString(CultureInfo.InvariantCulture)),
                    Cell.Text(step.RunId.ToString()),
                ]), captionVisible: true);
            html.Append("</section>\n");
        }

        html.Append("<section class=\"panel\"><h2>Caveats</h2><ul>");
        foreach (var caveat in checkup.Caveats)
        {
            html.Append("<li>").Append(Escape(caveat)).Append("</li>");
        }

        html.Append("</ul></section>\n</main>\n</body>\n</html>\n");
        return html.ToString();
    }

    /// <summary>The outcome's wire name: advice, no-saving, not-applicable, not-measured.</summary>
    public static string Outcome(CheckupOutcome outcome) => outcome switch
    {
        CheckupOutcome.Advice => "advice",
        CheckupOutcome.NoSaving => "no-saving",
        CheckupOutcome.NotApplicable => "not-applicable",
        _ => "not-measured",
    };

    public static string OutcomeWords(CheckupOutcome outcome) => outcome switch
    {
        CheckupOutcome.Advice => "change this",
        CheckupOutcome.NoSaving => "no measurable saving",
        CheckupOutcome.NotApplicable => "does not apply",
        _ => "not measured",
    };

    private const string CheckupCss = "\n.checkup-items { padding-left: 1.5em; }\n.checkup-item { margin-bottom: 1.5em; }\n" +
        ".checkup-item pre { overflow-x: auto; background: #f4f4f4; padding: 0.75em; }\n.badge { font-size: 0.8em; border: 1px solid currentColor; padding: 0 0.4em; }\n" +
        ".outcome-advice .badge { color: #0b6b2e; }\n.outcome-no-saving .badge, .outcome-not-applicable .badge, .outcome-not-measured .badge { color: #555; }\n";
}
