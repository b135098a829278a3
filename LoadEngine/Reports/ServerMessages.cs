using System.Text;
using LoadEngine.Runs;
using static LoadEngine.Reports.ReportText;

namespace LoadEngine.Reports;

/// <summary>
/// A run's failed calls by status with the server's own words: a row per kept message, and a row for a status's calls
/// whose message was not kept. Nothing when no call failed. The messages were masked and escaped where they entered the
/// engine, and are HTML-escaped here like every text.
/// </summary>
internal static class ServerMessages
{
    public static void Write(StringBuilder html, RunStats stats)
    {
        if (stats.StatusDetails.Count == 0)
        {
            return;
        }

        var rows = StatusDetails.Rows(stats.StatusDetails).Select(row => (IReadOnlyList<Cell>)[Cell.Text(row.Status), Cell.Number(Whole(row.Calls)), Cell.Text(row.Message)]);
        html.Append("<div class=\"server-messages\"><h3>What the server said</h3>");
        HtmlMarkup.Table(html, "Failed calls by status and the server's message", ["Status", "Calls", "Message"], rows);
        html.Append("</div>");
    }
}
