using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>
/// The chart page in a real browser: headless Chromium runs "all" through the page and checks every chart against
/// the API (tests/browser/dashboard.mjs). Its own service and gateway, so the history holds only this suite.
/// </summary>
public sealed class DashboardBrowserTests(ITestOutputHelper output)
{
    private const string Chromium = "/usr/bin/chromium";
    private static readonly string BrowserDirectory = Path.Combine(AppProcess.RepositoryRoot, "tests", "browser");
    private static readonly string Screenshots = Path.Combine(AppProcess.RepositoryRoot, "artifacts", "screenshots");

    [Fact]
    public async Task AllStrategiesRunFromThePageAndEveryChartShowsTheApisFigures()
    {
        // A missing browser must fail the build, never skip: the page is what a workshop sees.
        Assert.True(File.Exists(Chromium), $"{Chromium} is missing; install Debian's chromium (apt-get install chromium), as .ci/run does.");
        Assert.True(File.Exists(Path.Combine(BrowserDirectory, "node_modules", "playwright-core", "package.json")),
            $"playwright-core is not installed in {BrowserDirectory}; building the test project runs npm ci there.");

        await using var service = await AppProcess.StartAsync("PerformanceService");
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", service.Url]);

        var (exitCode, stdout, stderr) = await NodeScript.RunAsync(BrowserDirectory, "dashboard.mjs", TimeSpan.FromSeconds(180), gateway.Url, Screenshots, "30", "90");

        output.WriteLine(stdout);
        var lastLine = stdout.Split('\n', StringSplitOptions.RemoveEmptyEntries).LastOrDefault() ?? "";
        Assert.True(exitCode == 0, $"the browser test failed (exit {exitCode}): {lastLine}{Environment.NewLine}{stderr}");
        var result = JsonDocument.Parse(lastLine).RootElement;
        Assert.True(result.GetProperty("ok").GetBoolean());
        Assert.Empty(result.GetProperty("consoleErrors").EnumerateArray());
        Assert.Empty(result.GetProperty("foreignRequests").EnumerateArray());
        Assert.All(result.GetProperty("screenshots").EnumerateArray(), shot => Assert.True(File.Exists(shot.GetString()), $"no screenshot at {shot}"));
        output.WriteLine($"Screenshots in {Screenshots}; click to final chart: {result.GetProperty("clickToDoneMs").GetInt32()} ms");
    }
}
