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

        var rows = stats.StatusDetails.SelectMany(detail => detail.Messages
            .Select(message => (IReadOnlyList<Cell>)[Cell.Text(detail.Status), Cell.Number(Whole(message.Calls)), Cell.Text(StatusDetails.Quoted(message.Message))])
            .Concat(detail.OtherMessageCalls == 0 ? [] :
            [
                [Cell.Text(detail.Status), Cell.Number(Whole(detail.OtherMessageCalls)), Cell.Text($"other messages (only the first {StatusDetails.MaxMessagesPerStatus} distinct ones are kept)")],
            ]));
        html.Append("<div class=\"server-messages\"><h3>What the server said</h3>");
        HtmlMarkup.Table(html, "Failed calls by status and the server's message", ["Status", "Calls", "Message"], rows);
        html.Append("</div>");
    }
}
