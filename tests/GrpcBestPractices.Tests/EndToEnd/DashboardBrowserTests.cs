using GrpcBestPractices.Tests.Infrastructure;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>
/// The chart page in a real browser: headless Chromium runs "all" and a small protocol comparison through the page and
/// checks every chart against the API (tests/browser/dashboard.mjs): one plan's runs at a time, the live panels before and
/// after a reload, Compare's warning for two plans, and the page at 1024×768 in large type. Its own service, with all three listeners, and
/// gateway, so the history holds only what the page ran.
/// </summary>
[Trait("Category", "Process")]
public sealed class DashboardBrowserTests(ITestOutputHelper output)
{
    [Fact]
    public async Task AllStrategiesAndAComparisonRunFromThePageAndEveryChartShowsTheApisFigures()
    {
        await using var service = await AppProcess.StartAsync("PerformanceService");
        await using var gateway = await AppProcess.StartAsync("ApiGateway", await SystemFixture.GatewayArgumentsAsync(service));

        var result = await BrowserScript.RunAsync(output, "dashboard.mjs", TimeSpan.FromSeconds(180), gateway.Url, BrowserScript.Screenshots, "30", "90");

        Assert.Empty(result.GetProperty("consoleErrors").EnumerateArray());
        Assert.Empty(result.GetProperty("foreignRequests").EnumerateArray());
        Assert.All(result.GetProperty("screenshots").EnumerateArray(), shot => Assert.True(File.Exists(shot.GetString()), $"no screenshot at {shot}"));
        output.WriteLine($"Screenshots in {BrowserScript.Screenshots}; click to final chart: {result.GetProperty("clickToDoneMs").GetInt32()} ms");
    }
}
