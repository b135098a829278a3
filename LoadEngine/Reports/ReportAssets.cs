using System.Reflection;
using System.Security.Cryptography;
using System.Text;
using System.Text.RegularExpressions;

namespace LoadEngine.Reports;

/// <summary>
/// What every report inlines, read once from this assembly's resources: Chart.js's browser bundle (from npm, see
/// LoadEngine.csproj), the product's stylesheet (the chart page's too) with the report's own, the report's script, and
/// SHA-256 hashes for the page's policy.
/// </summary>
public static partial class ReportAssets
{
    private static readonly Lazy<string> ChartJsBundle = new(() => ReadChartJs());
    private static readonly Lazy<string> Script = new(() => Read("report.js"));

    /// <summary>chart.umd.min.js as inlined: its license comments kept, its source-map comment (a reference to a file) dropped.</summary>
    public static string ChartJs => ChartJsBundle.Value;

    /// <summary>The version named in the bundle's license banner, e.g. "4.6.1".</summary>
    public static string ChartJsVersion => BannerVersion().Match(ChartJs) is { Success: true } match ? match.Groups[1].Value : "unknown";

    /// <summary>Read each time it is asked for: the report keeps its stylesheet once, with the palette.</summary>
    internal static string Css => Read("product.css") + Read("report.css");

    internal static string Js => Script.Value;

    /// <summary>A CSP hash source for an inline script or style element holding exactly <paramref name="text"/>.</summary>
    internal static string HashSource(string text) => $"'sha256-{Convert.ToBase64String(SHA256.HashData(Encoding.UTF8.GetBytes(text)))}'";

    private static string ReadChartJs()
    {
        var bundle = SourceMapComment().Replace(Read("chart.umd.min.js"), string.Empty).TrimEnd();
        // Inline script ends at the first "</script", whatever JavaScript thinks; a bundle holding one cannot be inlined as it is.
        if (bundle.Contains("</script", StringComparison.OrdinalIgnoreCase) || bundle.Contains("<!--", StringComparison.Ordinal))
        {
            throw new InvalidOperationException("The Chart.js bundle contains '</script' or '<!--' and cannot be inlined in a <script> element.");
        }

        return bundle;
    }

    private static string Read(string name)
    {
        using var stream = typeof(ReportAssets).Assembly.GetManifestResourceStream($"LoadEngine.Reports.{name}")
            ?? throw new InvalidOperationException($"LoadEngine.Reports.{name} is not embedded in {typeof(ReportAssets).Assembly.GetName().Name}; build LoadEngine (it runs npm ci for Chart.js).");
        using var reader = new StreamReader(stream, Encoding.UTF8);
        return reader.ReadToEnd();
    }

    [GeneratedRegex(@"^//# sourceMappingURL=\S*\s*$", RegexOptions.Multiline)]
    private static partial Regex SourceMapComment();

    [GeneratedRegex(@"Chart\.js v(\d+\.\d+\.\d+)")]
    private static partial Regex BannerVersion();

    /// <summary>The LoadEngine build that made a report, for its footer.</summary>
    internal static string EngineVersion =>
        typeof(ReportAssets).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion.Split('+')[0] ?? "unknown";
}
