using System.Net;
using System.Text.RegularExpressions;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>The chart page's server side: what "/" serves, the security headers, and run export.</summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed partial class DashboardPageTests(SystemFixture system)
{
    [Fact]
    public async Task RootServesThePageWithChartJsFromTheGatewayAndNoInlineScript()
    {
        using var page = await system.Http.GetAsync("/");
        var html = await page.Content.ReadAsStringAsync();

        Assert.Equal(HttpStatusCode.OK, page.StatusCode);
        Assert.Equal("text/html", page.Content.Headers.ContentType?.MediaType);
        Assert.Contains("id=\"run-form\"", html);
        var scripts = ScriptTag().Matches(html).Select(match => match.Value).ToList();
        Assert.NotEmpty(scripts);
        Assert.All(scripts, script => Assert.Matches("src=\"(lib|js)/", script));
        Assert.DoesNotContain("style=", html);

        using var chartJs = await system.Http.GetAsync("/lib/chart.js/chart.umd.min.js");
        Assert.Equal(HttpStatusCode.OK, chartJs.StatusCode);
        Assert.Contains("Chart", await chartJs.Content.ReadAsStringAsync());
    }

    [Theory]
    [InlineData("/")]
    [InlineData("/api/strategies")]
    [InlineData("/api/runs/00000000-0000-0000-0000-000000000000")]
    public async Task EveryAnswerAllowsOnlyTheGatewaysOwnOrigin(string path)
    {
        using var response = await system.Http.GetAsync(path);

        var policy = Assert.Single(response.Headers.GetValues("Content-Security-Policy"));
        foreach (var directive in new[] { "default-src 'self'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "object-src 'none'", "frame-ancestors 'none'" })
        {
            Assert.Contains(directive + ";", policy + ";");
        }

        Assert.DoesNotContain("http", policy);
        Assert.DoesNotContain("*", policy);
        Assert.DoesNotContain("unsafe", policy);
        Assert.Equal("nosniff", Assert.Single(response.Headers.GetValues("X-Content-Type-Options")));
        Assert.Equal("no-referrer", Assert.Single(response.Headers.GetValues("Referrer-Policy")));
    }

    [Fact]
    public async Task RunExportsAsCsvAndJsonFiles()
    {
        var id = (await system.Http.StartRunAsync("""{"strategy": "streaming-call", "count": 60}""")).GetProperty("id").GetString();
        var run = await system.Http.WaitUntilFinishedAsync($"/api/runs/{id}");

        using var csv = await system.Http.GetAsync($"/api/runs/{id}/export?format=csv");
        var lines = (await csv.Content.ReadAsStringAsync()).TrimEnd('\n').Split('\n');
        Assert.Equal("text/csv", csv.Content.Headers.ContentType?.MediaType);
        Assert.Equal("attachment", csv.Content.Headers.ContentDisposition?.DispositionType);
        Assert.Equal($"run-streaming-call-{id}.csv", csv.Content.Headers.ContentDisposition?.FileName?.Trim('"'));
        Assert.Equal("section,figure,value,unit,fromMs,toMs", lines[0]);
        Assert.Contains("plan,count,60,calls,,", lines);
        Assert.Contains($"stats,calls,60,calls,,", lines);
        Assert.Contains(lines, line => line.StartsWith("latency,p99Ms,", StringComparison.Ordinal));
        Assert.Contains("statusCounts,OK,60,calls,,", lines);
        Assert.Equal(run.GetProperty("stats").GetProperty("histogram").GetArrayLength(), lines.Count(line => line.StartsWith("histogram,bin,", StringComparison.Ordinal)));

        using var json = await system.Http.GetAsync($"/api/runs/{id}/export");
        var exported = await json.ReadJsonAsync();
        Assert.Equal("application/json", json.Content.Headers.ContentType?.MediaType);
        Assert.Equal($"run-streaming-call-{id}.json", json.Content.Headers.ContentDisposition?.FileName?.Trim('"'));
        Assert.Equal(run.GetProperty("stats").GetRawText(), exported.GetProperty("stats").GetRawText());
    }

    [Fact]
    public async Task ExportNamesTheAllowedFormatsAndUnknownRuns()
    {
        var id = (await system.Http.StartRunAsync("""{"strategy": "client-wrapper", "count": 5}""")).GetProperty("id").GetString();
        await system.Http.WaitUntilFinishedAsync($"/api/runs/{id}");

        using var badFormat = await system.Http.GetAsync($"/api/runs/{id}/export?format=xml");
        Assert.Equal(HttpStatusCode.BadRequest, badFormat.StatusCode);
        Assert.Equal("format was 'xml'; it must be one of: json, csv (default json).", (await SystemFixture.ReadProblemAsync(badFormat)).GetProperty("detail").GetString());

        var unknown = Guid.NewGuid();
        using var missing = await system.Http.GetAsync($"/api/runs/{unknown}/export?format=csv");
        Assert.Equal(HttpStatusCode.NotFound, missing.StatusCode);
        Assert.Contains(unknown.ToString(), (await SystemFixture.ReadProblemAsync(missing)).GetProperty("detail").GetString());
    }

    [GeneratedRegex("<script[^>]*>")]
    private static partial Regex ScriptTag();
}
