using System.Net;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>The HTML report downloaded from the gateway: the same renderer the CLI writes with, for a stored run or suite.</summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class ReportEndpointTests(SystemFixture system)
{
    [Fact]
    public async Task ARunDownloadsAsOneHtmlFileWithItsFiguresAndVerdict()
    {
        var started = await system.Http.StartRunAsync("""{"strategy": "client-wrapper", "count": 100, "thresholds": ["p99 < 10s"]}""");
        var id = started.GetProperty("id").GetString();
        var run = await system.Http.WaitUntilFinishedAsync($"/api/runs/{id}");

        using var response = await system.Http.GetAsync($"/api/runs/{id}/report");
        var html = await response.Content.ReadAsStringAsync();

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("text/html", response.Content.Headers.ContentType?.MediaType);
        Assert.Equal($"report-client-wrapper-{id}.html", response.Content.Headers.ContentDisposition?.FileNameStar ?? response.Content.Headers.ContentDisposition?.FileName?.Trim('"'));
        Assert.Contains("data-verdict=\"passed\"", html);
        Assert.Contains(run.GetProperty("stats").GetProperty("latency").GetProperty("p50Ms").GetDouble().ToString(System.Globalization.CultureInfo.InvariantCulture), html);
        Assert.DoesNotContain("<script src", html);
    }

    [Fact]
    public async Task ASuiteDownloadsAsOneHtmlFileHoldingEveryStrategy()
    {
        var started = await system.Http.StartRunAsync("""{"count": 40, "strategies": ["client-wrapper", "streaming-call"]}""", "/api/suites");
        var id = started.GetProperty("id").GetString();
        await system.Http.WaitUntilFinishedAsync($"/api/suites/{id}");

        var html = await system.Http.GetStringAsync($"/api/suites/{id}/report");

        Assert.Contains("client-wrapper", html);
        Assert.Contains("streaming-call", html);
    }

    [Theory]
    [InlineData("/api/runs/00000000-0000-0000-0000-000000000001/report")]
    [InlineData("/api/suites/00000000-0000-0000-0000-000000000001/report")]
    public async Task AReportOfNothingIsA404(string path)
    {
        using var response = await system.Http.GetAsync(path);

        Assert.Equal(HttpStatusCode.NotFound, response.StatusCode);
        Assert.False(string.IsNullOrEmpty((await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString()));
    }
}
