using System.Text.Json;
using LoadEngine.Protocols;
using LoadEngine.Reports;
using LoadEngine.Strategies;

namespace LoadTest.Output;

/// <summary>
/// The files a command writes when it ends, interrupted or not: the JSON of its runs in the shape the gateway's API
/// returns, and the HTML report the gateway serves, rendered by the same <see cref="HtmlReport"/>.
/// </summary>
public static class ResultFiles
{
    public const string Tool = "the GrpcBestPractices CLI (./loadtest)";

    /// <summary>Writes what the settings ask for; returns a line per file written ("JSON: path") or not (with the reason), and how many could not be.</summary>
    public static async Task<(IReadOnlyList<string> Notes, int Failed)> WriteAsync(LoadTestSettings settings, LoadTestResult result)
    {
        var notes = new List<string>();
        var failed = 0;
        foreach (var (path, format, what) in new[] { (settings.JsonPath, ResultFormat.Json, "JSON"), (settings.ReportPath, ResultFormat.Html, "Report"), (settings.CsvPath, ResultFormat.Csv, "CSV") })
        {
            try
            {
                if (path is not null)
                {
                    await File.WriteAllTextAsync(path, Render(format, settings, result));
                    notes.Add($"{what}: {path}");
                }
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                notes.Add($"The {what} file {path} could not be written: {ex.Message}");
                failed++;
            }
        }

        return (notes, failed);
    }

    /// <summary>The runs in one of the file formats: the API's JSON (a suite: the suite and its runs), the HTML report, or CSV.</summary>
    public static string Render(ResultFormat format, LoadTestSettings settings, LoadTestResult result) => format switch
    {
        ResultFormat.Json => JsonSerializer.Serialize(result.Suite is { } suite ? new SuiteDocument(suite, result.Runs) : (object)result.Runs.Single(), RunJson.Options),
        ResultFormat.Html => HtmlReport.Render(Report(settings, result)),
        ResultFormat.Csv => ResultFormats.Csv(result.Runs),
        _ => throw new ArgumentOutOfRangeException(nameof(format), format, "The summary is written by Summary."),
    };

    /// <summary>What the report shows: the suite and its runs (or the one run), against the target, coloured as on the chart page.</summary>
    private static ReportContent Report(LoadTestSettings settings, LoadTestResult result)
    {
        var generatedAt = DateTimeOffset.UtcNow;
        var target = settings.Target.ToString();
        var content = result.Suite is { } suite
            ? ReportContent.ForSuite(suite, result.Runs, generatedAt, target)
            : ReportContent.ForRun(result.Runs.Single(), generatedAt, target);
        return content with
        {
            Tool = Tool, ColourOrder = [.. StrategyList.Names, .. ContenderList.Names],
            MetadataKeys = [.. settings.Engine.Connection.Metadata.Select(pair => pair.Key).Distinct(StringComparer.OrdinalIgnoreCase)],
        };
    }
}
