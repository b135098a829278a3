using System.Text;
using LoadEngine.Runs;

namespace LoadEngine.Reports;

/// <summary>One table cell: its markup is always built here, so data reaches it only escaped.</summary>
internal sealed record Cell(string Html, bool IsNumber = false)
{
    public static Cell Text(string? text) => new(ReportText.Escape(text));

    public static Cell Number(string text) => new(ReportText.Escape(text), IsNumber: true);

    /// <summary>A strategy name after its colour swatch, linked to the run's section when it has one.</summary>
    public static Cell Strategy(string strategy, int colour, string? anchor = null)
    {
        var name = ReportText.Escape(strategy);
        var swatch = $"<span class=\"swatch c{colour}\" aria-hidden=\"true\"></span>";
        return new(anchor is null ? swatch + name : $"{swatch}<a href=\"#{anchor}\">{name}</a>");
    }

    /// <summary>"passed" or "failed" in words and a sign, never colour alone.</summary>
    public static Cell Outcome(Judgement judgement) => new(judgement switch
    {
        Judgement.Passed => "<span class=\"pass\">✓ passed</span>",
        Judgement.Failed => "<span class=\"fail\">✗ failed</span>",
        Judgement.NotJudged => "<span class=\"fail\">✗ not judged</span>",
        _ => "no thresholds",
    });
}

/// <summary>How a run stands against its plan's thresholds.</summary>
internal enum Judgement
{
    /// <summary>The plan set none.</summary>
    None,
    Passed,
    Failed,

    /// <summary>The plan set thresholds but the run has no verdict (it ended before it had figures); it does not pass.</summary>
    NotJudged,
}

internal static class Judgements
{
    public static Judgement Of(RunRecord run) => run.Verdict switch
    {
        { Passed: true } => Judgement.Passed,
        { Passed: false } => Judgement.Failed,
        null when run.Plan.Thresholds.Count > 0 => Judgement.NotJudged,
        _ => Judgement.None,
    };
}

/// <summary>The few pieces of markup the report repeats.</summary>
internal static class HtmlMarkup
{
    public static void Table(StringBuilder html, string caption, IReadOnlyList<string> headers, IEnumerable<IReadOnlyList<Cell>> rows, bool captionVisible = false)
    {
        html.Append("<div class=\"table-box\"><table>");
        html.Append(captionVisible ? "<caption>" : "<caption class=\"visually-hidden\">").Append(ReportText.Escape(caption)).Append("</caption><thead><tr>");
        var materialised = rows.ToList();
        for (var column = 0; column < headers.Count; column++)
        {
            var numeric = materialised.Count > 0 && materialised[0].Count > column && materialised[0][column].IsNumber;
            html.Append(numeric ? "<th scope=\"col\" class=\"num\">" : "<th scope=\"col\">").Append(ReportText.Escape(headers[column])).Append("</th>");
        }

        html.Append("</tr></thead><tbody>");
        foreach (var row in materialised)
        {
            html.Append("<tr>");
            for (var column = 0; column < row.Count; column++)
            {
                // The first column names the row, as a header cell, so a screen reader reads it with each figure.
                var tag = column == 0 ? "th scope=\"row\"" : "td";
                var end = column == 0 ? "th" : "td";
                html.Append('<').Append(tag).Append(row[column].IsNumber ? " class=\"num\">" : ">").Append(row[column].Html).Append("</").Append(end).Append('>');
            }

            html.Append("</tr>");
        }

        html.Append("</tbody></table></div>");
    }

    /// <summary>"Error: …" as a paragraph of its class ("error"), or nothing when there is no such text.</summary>
    public static StringBuilder Labelled(this StringBuilder html, string label, string? text) => text is null ? html
        : html.Append("<p class=\"").Append(label.ToLowerInvariant()).Append("\"><strong>").Append(label).Append(":</strong> ").Append(ReportText.Escape(text)).Append("</p>");

    /// <summary>A list of label and value pairs, e.g. the plan.</summary>
    public static void Facts(StringBuilder html, string className, IEnumerable<(string Label, string? Value)> facts)
    {
        html.Append("<dl class=\"").Append(className).Append("\">");
        foreach (var (label, value) in facts.Where(fact => fact.Value is not null))
        {
            html.Append("<div><dt>").Append(ReportText.Escape(label)).Append("</dt><dd>").Append(ReportText.Escape(value)).Append("</dd></div>");
        }

        html.Append("</dl>");
    }

    /// <summary>A chart's figure: the canvas the script draws on, and its data as a table for a reader without JavaScript.</summary>
    public static void Chart(StringBuilder html, string caption, string chart, int? run, string description, Action<StringBuilder> dataTable)
    {
        html.Append("<figure class=\"chart\"><figcaption>").Append(ReportText.Escape(caption)).Append("</figcaption>");
        html.Append("<div class=\"canvas-box\"><canvas data-chart=\"").Append(chart).Append('"');
        if (run is { } index)
        {
            html.Append(" data-run=\"").Append(index).Append('"');
        }

        html.Append(" role=\"img\" aria-label=\"").Append(ReportText.Escape(description)).Append("\"></canvas></div>");
        html.Append("<details><summary>The chart's data as a table</summary>");
        dataTable(html);
        html.Append("</details></figure>");
    }
}
