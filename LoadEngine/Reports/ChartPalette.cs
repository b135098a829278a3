namespace LoadEngine.Reports;

/// <summary>The one palette (Okabe–Ito, for colour-blind eyes too) of the reports and of the chart page, which reads GET /api/plan-facts.</summary>
public static class ChartPalette
{
    public static IReadOnlyList<string> Colours { get; } = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#7F7F7F"];

    /// <summary>One colour per API the service counts a call under, for the Protocols part's charts.</summary>
    public static IReadOnlyDictionary<string, string> ApiColours { get; } = new Dictionary<string, string>
    {
        ["grpc"] = Colours[0], ["grpc-code-first"] = Colours[5], ["rest-stj"] = Colours[1], ["rest-newtonsoft"] = Colours[3],
    };

    public const string Unknown = "#555555";
}
