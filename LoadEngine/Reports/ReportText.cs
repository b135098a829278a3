using System.Globalization;
using System.Net;
using System.Text.Json;
using LoadEngine.Runs;

namespace LoadEngine.Reports;

/// <summary>
/// Strings for the report as a room reads them (the chart page's format.js rules, so both show the same digits) and
/// the only ways data reaches the page: HTML-escaped text, and JSON that cannot end its script element.
/// </summary>
internal static class ReportText
{
    private static readonly CultureInfo Invariant = CultureInfo.InvariantCulture;

    /// <summary>Text for element content or a double-quoted attribute: &lt; &gt; &amp; " ' become references.</summary>
    public static string Escape(string? text) => WebUtility.HtmlEncode(text ?? string.Empty);

    /// <summary>
    /// JSON for a &lt;script type="application/json"&gt; element. &lt; &gt; &amp; only ever occur inside JSON strings, where
    /// \u003c \u003e \u0026 mean the same; escaped whatever the options' encoder does, no data can close the element.
    /// </summary>
    public static string ScriptJson(object value) =>
        JsonSerializer.Serialize(value, RunJson.Options)
            .Replace("<", "\\u003c", StringComparison.Ordinal)
            .Replace(">", "\\u003e", StringComparison.Ordinal)
            .Replace("&", "\\u0026", StringComparison.Ordinal);

    /// <summary>Milliseconds (or any figure) with few digits: whole from 100 up, then 1, 2 or 3 decimals.</summary>
    public static string Number(double? value) => value switch
    {
        null => "—",
        { } v when double.IsNaN(v) || double.IsInfinity(v) => "—",
        { } v when v == Math.Round(v) || Math.Abs(v) >= 100 => Math.Round(v).ToString("#,0", Invariant),
        { } v when Math.Abs(v) >= 10 => v.ToString("0.0", Invariant),
        { } v when Math.Abs(v) >= 1 => v.ToString("0.00", Invariant),
        { } v => v.ToString("0.000", Invariant),
    };

    public static string Whole(long? value) => value?.ToString("#,0", Invariant) ?? "—";

    public static string Percent(double? share) => share switch
    {
        null => "—",
        0 => "0 %",
        { } s => $"{Number(s * 100)} %",
    };

    /// <summary>A percentile's name: p50, p99.9, p99.99.</summary>
    public static string PercentileName(double percentile) => "p" + percentile.ToString("0.####", Invariant);

    public static string Time(DateTimeOffset? at) => at?.ToString("yyyy-MM-dd HH:mm:ss 'UTC'zzz", Invariant) ?? "—";

    /// <summary>A judged threshold's figure in its unit, e.g. "4.20 ms" or "0.5 %".</summary>
    public static string Figure(double? value, string unit) => value is null ? "no such figure" : unit switch
    {
        "" => Number(value),
        "%" => $"{Number(value)} %",
        _ => $"{Number(value)} {unit}",
    };
}
