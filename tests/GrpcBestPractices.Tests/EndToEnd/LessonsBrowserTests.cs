using GrpcBestPractices.Tests.Infrastructure;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>
/// The Lessons part of the chart page in a real browser (tests/browser/lessons.mjs): on a freshly started system, warmed
/// at start as a user gets it, headless Chromium presses every lesson's button in turn and checks each card's verdict,
/// badges and chart against the API's experiment, again after a reload, and the cards at 1024×768 in large type. It checks
/// that the page shows what was measured, never that a lesson holds on this machine.
/// </summary>
[Trait("Category", "Process")]
public sealed class LessonsBrowserTests(ITestOutputHelper output)
{
    [Fact]
    public async Task EveryLessonRunsFromItsButtonAndItsCardShowsTheApisVerdictAndFigures()
    {
        await using var service = await AppProcess.StartAsync("PerformanceService");
        await using var gateway = await AppProcess.StartAsync("ApiGateway", [.. await SystemFixture.GatewayArgumentsAsync(service), "--Runs:WarmUpAtStart", "true"]);

        var result = await BrowserScript.RunAsync(output, "lessons.mjs", TimeSpan.FromMinutes(8), gateway.Url, BrowserScript.Screenshots, "150");

        Assert.Empty(result.GetProperty("consoleErrors").EnumerateArray());
        Assert.Empty(result.GetProperty("foreignRequests").EnumerateArray());
        Assert.Equal(6, result.GetProperty("experiments").EnumerateObject().Count());
        Assert.All(result.GetProperty("screenshots").EnumerateArray(), shot => Assert.True(File.Exists(shot.GetString()), $"no screenshot at {shot}"));
        output.WriteLine($"Screenshots in {BrowserScript.Screenshots}");
    }
}
