using GrpcBestPractices.Tests.Infrastructure;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.Checkup;

/// <summary>
/// The chart page's "Check my client" panel in a real browser (tests/browser/checkup.mjs): on a freshly started system,
/// headless Chromium picks the built-in service's unary method in the run panel, runs a checkup with a 20 s budget from the
/// panel, and checks every card (its outcome, advice, measurement, saving, code and runs) and the sweep's chart against
/// the API's record, again after a reload, and that nothing is wider than the window at 1280×720, 1920×1080 and 400 px.
/// It checks that the page shows what was measured, never what the checkup should find.
/// </summary>
[Trait("Category", "Process")]
public sealed class CheckupBrowserTests(ITestOutputHelper output)
{
    [Fact]
    public async Task ACheckupRunsFromThePanelAndEachItemsCardShowsTheRecordsAdviceAndCode()
    {
        await using var service = await AppProcess.StartAsync("PerformanceService");
        await using var gateway = await AppProcess.StartAsync("ApiGateway", await SystemFixture.GatewayArgumentsAsync(service));

        var result = await BrowserScript.RunAsync(output, "checkup.mjs", TimeSpan.FromMinutes(6), gateway.Url, BrowserScript.Screenshots, "performance", "20", "240");

        Assert.Empty(result.GetProperty("foreignRequests").EnumerateArray());
        // The budget the script made the gateway refuse (a 400) is the only error the console shows.
        Assert.All(result.GetProperty("consoleErrors").EnumerateArray().Select(error => error.GetString()),
            error => Assert.Contains("status of 400", error, StringComparison.Ordinal));
        Assert.NotEmpty(result.GetProperty("checkup").GetProperty("items").EnumerateArray());
        Assert.All(result.GetProperty("screenshots").EnumerateArray(), shot => Assert.True(File.Exists(shot.GetString()), $"no screenshot at {shot}"));
        output.WriteLine($"Items: {string.Join("; ", result.GetProperty("checkup").GetProperty("items").EnumerateArray())}");
        output.WriteLine($"Screenshots in {BrowserScript.Screenshots}");
    }
}
