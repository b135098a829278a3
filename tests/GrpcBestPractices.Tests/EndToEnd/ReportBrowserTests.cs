using GrpcBestPractices.Tests.Fakes;
using GrpcBestPractices.Tests.Infrastructure;
using LoadEngine.Reports;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>
/// The HTML report in a real browser: headless Chromium opens it from a file with the network cut off and checks every
/// chart against the report's own data (tests/browser/report.mjs).
/// </summary>
[Trait("Category", "Process")]
public sealed class ReportBrowserTests(ITestOutputHelper output)
{
    [Fact]
    public async Task ASuiteReportOpenedFromAFileWithNoNetworkDrawsEveryChartFromItsDataAndLoadsNothing()
    {
        const string Failure = "</script><script>alert(1)</script><img src=x onerror=alert(2)> refused";
        using var folder = new TemporaryFolder();
        var report = folder.File("report.html");
        await File.WriteAllTextAsync(report, HtmlReport.Render(SampleRuns.SuiteReport(Failure)));

        var result = await BrowserScript.RunAsync(output, "report.mjs", TimeSpan.FromSeconds(120), report, BrowserScript.Screenshots);

        Assert.Empty(result.GetProperty("consoleErrors").EnumerateArray());
        Assert.Empty(result.GetProperty("foreignRequests").EnumerateArray());
        Assert.Empty(result.GetProperty("dialogs").EnumerateArray());
        // The suite's five charts, then histogram, rate and latency for each of the two runs that measured anything.
        Assert.Equal(11, result.GetProperty("charts").GetArrayLength());
        Assert.Contains($"Error: {Failure}", result.GetProperty("errorTexts").EnumerateArray().Select(text => text.GetString()));
        // Kept beside the screenshots, for a person to open.
        File.Copy(report, Path.Combine(BrowserScript.Screenshots, "report.html"), overwrite: true);
    }

    [Fact]
    public async Task ADescribedMethodsLongFirstAnswerAndRequestWrapWithinA1024PixelWindow()
    {
        var run = SampleRuns.Completed("client-wrapper");
        var line = $"{{\"lines\": [{string.Join(", ", Enumerable.Range(1, 200).Select(index => $"{{\"sku\":\"SKU-{index:D6}\",\"quantity\":{index}}}"))}]}}";
        run = run with
        {
            Plan = run.Plan.Calling("acme.billing.v2.Invoices/Get", line, "billing"),
            Stats = run.Stats! with { FirstAnswer = line },
        };
        using var folder = new TemporaryFolder();
        var report = folder.File("report-long-answer.html");
        await File.WriteAllTextAsync(report, HtmlReport.Render(ReportContent.ForRun(run, DateTimeOffset.UtcNow) with { MetadataKeys = ["x-tenant"] }));

        var result = await BrowserScript.RunAsync(output, "report-width.mjs", TimeSpan.FromSeconds(120), report, BrowserScript.Screenshots, "1024");

        Assert.True(result.GetProperty("pageWidth").GetInt32() <= result.GetProperty("windowWidth").GetInt32());
    }
}
