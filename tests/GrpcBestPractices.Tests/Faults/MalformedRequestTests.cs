using System.Diagnostics;
using System.Text;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.Faults;

/// <summary>Bodies and requests no well-behaved client sends: each is a problem+json that says what was wrong, never a 500.</summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class MalformedRequestTests(SystemFixture system)
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(60);

    public static TheoryData<string, byte[], string> NotUnicode => new()
    {
        { "a lone surrogate escape", Encoding.ASCII.GetBytes("{\"count\":\"\\ud800\"}"), "valid Unicode" },
        { "a raw byte that is not UTF-8", [.. Encoding.ASCII.GetBytes("{\"count\":\""), 0xE9, .. Encoding.ASCII.GetBytes("\"}")], "valid Unicode" },
        { "a property name that is not UTF-8", [.. Encoding.ASCII.GetBytes("{\""), 0xFF, .. Encoding.ASCII.GetBytes("\":2}")], "valid Unicode" },
        { "JSON cut short", Encoding.ASCII.GetBytes("{\"count\":"), "could not be read" },
    };

    [Theory]
    [MemberData(nameof(NotUnicode))]
    public async Task ABodyThatIsNotValidUnicodeJsonIsA400ThatSaysSo(string what, byte[] body, string expected)
    {
        // count is a setting of all three bodies, so the string is read, not refused as an unknown field.
        foreach (var path in new[] { "/api/runs", "/api/suites", "/api/comparisons" })
        {
            var response = await RawHttp.SendAsync(system.Gateway.BaseAddress, RawHttp.Post(path, body), Patience);

            Assert.True(response.Status == 400 && response.IsProblem, $"{what} to {path}: {response}");
            Assert.Contains(expected, response.Detail);
        }
    }

    [Fact]
    public async Task ABodyOverKestrelsLimitIsA413ThatNamesTheLimit()
    {
        var body = Encoding.ASCII.GetBytes("{\"strategy\":\"" + new string('a', 50 * 1024 * 1024) + "\"}");

        var response = await RawHttp.SendAsync(system.Gateway.BaseAddress, RawHttp.Post("/api/runs", body), Patience);

        Assert.True(response.Status == 413 && response.IsProblem, response.ToString());
        Assert.Contains("1048576 bytes", response.Detail);
    }

    [Fact]
    public async Task AStalledBodyIsA408ProblemWithinSeconds()
    {
        var clock = Stopwatch.StartNew();

        var response = await RawHttp.SendAsync(system.Gateway.BaseAddress, RawHttp.Post("/api/runs", Encoding.ASCII.GetBytes("{\"strat"), contentLength: 100), Patience);

        Assert.True(response.Status == 408 && response.IsProblem, response.ToString());
        Assert.Contains("too slowly", response.Detail);
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(30), $"the 408 took {clock.Elapsed}");
    }

    [Fact]
    public async Task ABadChunkSizeIsA400Problem()
    {
        var request = Encoding.ASCII.GetBytes(
            "POST /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n");

        var response = await RawHttp.SendAsync(system.Gateway.BaseAddress, request, Patience);

        Assert.True(response.Status == 400 && response.IsProblem, response.ToString());
        Assert.Contains("chunk", response.Detail);
    }

    /// <summary>Kestrel reports this one as an IOException, not as a bad request: each route that reads a body must still say 400.</summary>
    [Theory]
    [InlineData("/api/runs")]
    [InlineData("/api/suites")]
    [InlineData("/api/comparisons")]
    [InlineData("/api/lessons/reuse-channel/experiments")]
    public async Task AChunkSizeThatOverflowsIsA400ProblemOnEveryRouteThatReadsABody(string path)
    {
        var request = Encoding.ASCII.GetBytes(
            $"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\n{{}}\r\n0\r\n\r\n");

        var response = await RawHttp.SendAsync(system.Gateway.BaseAddress, request, Patience);

        Assert.True(response.Status == 400 && response.IsProblem, response.ToString());
        Assert.Contains("chunk size", response.Detail);
    }

    [Theory]
    [InlineData(null, "with no Content-Type")]
    [InlineData("text/plain", "as 'text/plain'")]
    public async Task ABodyNotSentAsJsonIsA415ThatNamesTheTypeAccepted(string? contentType, string expected)
    {
        var body = Encoding.ASCII.GetBytes("{\"strategy\":\"client-wrapper\",\"count\":1}");

        var response = await RawHttp.SendAsync(system.Gateway.BaseAddress, RawHttp.Post("/api/runs", body, contentType), Patience);

        Assert.True(response.Status == 415 && response.IsProblem, response.ToString());
        Assert.Contains(expected, response.Detail);
        Assert.Contains("Content-Type: application/json", response.Detail);
    }

    [Fact]
    public async Task HeadersNotFinishedWithinTheConfiguredTimeoutAre408WellBeforeKestrelsDefault()
    {
        var clock = Stopwatch.StartNew();

        var response = await RawHttp.SendAsync(system.Gateway.BaseAddress, Encoding.ASCII.GetBytes("GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n"), Patience);

        // Kestrel writes this one itself, before any middleware: a status with no body (docs/caveats.md).
        Assert.Equal(408, response.Status);
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(25), $"the 408 took {clock.Elapsed}; Kestrel's default is 30 s");
    }

    [Theory]
    [InlineData("/api/runs/not-a-guid", "/api/runs")]
    [InlineData("/api/runs/not-a-guid/events", "/api/runs")]
    [InlineData("/api/suites/12/report", "/api/suites")]
    [InlineData("/api/comparisons/abc", "/api/comparisons")]
    [InlineData("/api/lessons/reuse-channel/experiments/abc", "/api/lessons/reuse-channel/experiments")]
    public async Task AnIdThatIsNotAGuidIsA404ThatSaysIdsAreGuids(string path, string list)
    {
        using var response = await system.Http.GetAsync(path);

        Assert.Equal(System.Net.HttpStatusCode.NotFound, response.StatusCode);
        var detail = (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString();
        Assert.Contains("GUID", detail);
        Assert.Contains($"GET {list} lists them", detail);
        Assert.DoesNotContain("strategy routes", detail);
    }
}
