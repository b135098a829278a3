using System.Net;
using System.Net.Http.Json;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.Faults;

/// <summary>
/// Another site's page must not start, cancel or delete work (an &lt;img&gt;, a form, a fetch), nor reach the gateway
/// under a host name of its own (DNS rebinding); the gateway's own page and clients that are no page still may.
/// </summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class ForeignOriginTests(SystemFixture system)
{
    private const string NoSuchId = "3f2b8c1e-9a4d-4e6b-8f0a-1c2d3e4f5a6b";

    public static TheoryData<string, string> WorkRoutes => new()
    {
        { "GET", "/Performance/initialized-client/1" },
        { "GET", "/Concurrency/single-connection/1" },
        { "GET", "/Lessons/payload?payloadBytes=10" },
        { "GET", "/Lessons/keep-alive?pauseMs=0" },
        { "POST", "/api/runs" },
        { "POST", "/api/suites" },
        { "POST", "/api/comparisons" },
        { "POST", "/api/lessons/reuse-channel/experiments" },
        { "POST", $"/api/runs/{NoSuchId}/cancel" },
        { "POST", $"/api/suites/{NoSuchId}/cancel" },
        { "POST", $"/api/comparisons/{NoSuchId}/cancel" },
        { "POST", $"/api/lessons/reuse-channel/experiments/{NoSuchId}/cancel" },
        { "DELETE", $"/api/runs/{NoSuchId}" },
    };

    [Theory]
    [MemberData(nameof(WorkRoutes))]
    public async Task APageOnAnotherSiteIsRefused403OnEveryRouteThatDoesWork(string method, string path)
    {
        foreach (var (header, value) in new[] { ("Sec-Fetch-Site", "cross-site"), ("Sec-Fetch-Site", "same-site"), ("Origin", "https://attacker.example") })
        {
            using var request = Request(method, path);
            request.Headers.Add(header, value);

            using var response = await system.Http.SendAsync(request);

            Assert.True(response.StatusCode == HttpStatusCode.Forbidden, $"{method} {path} with {header}: {value} answered {(int)response.StatusCode}");
            Assert.Contains("only the gateway's own page", (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString());
        }
    }

    [Fact]
    public async Task AnotherPortOnTheSameHostIsAnotherOrigin()
    {
        using var request = Request("POST", "/api/runs");
        request.Headers.Add("Origin", $"http://127.0.0.1:{system.Gateway.BaseAddress.Port + 1}");

        using var response = await system.Http.SendAsync(request);

        Assert.Equal(HttpStatusCode.Forbidden, response.StatusCode);
    }

    [Fact]
    public async Task TheGatewaysOwnPageMayStartARun()
    {
        using var request = Request("POST", "/api/runs");
        request.Headers.Add("Origin", system.Gateway.BaseAddress.GetLeftPart(UriPartial.Authority));
        request.Headers.Add("Sec-Fetch-Site", "same-origin");

        using var response = await system.Http.SendAsync(request);

        Assert.Equal(HttpStatusCode.Accepted, response.StatusCode);
    }

    [Theory]
    [InlineData("GET", "/api/runs")]
    [InlineData("POST", "/api/runs")]
    [InlineData("GET", "/")]
    public async Task AHostNameNotInAllowedHostsIsA400ThatNamesIt(string method, string path)
    {
        using var request = Request(method, path);
        request.Headers.Host = "rebound.attacker.example";

        using var response = await system.Http.SendAsync(request);

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        var detail = (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString();
        Assert.Contains("'rebound.attacker.example'", detail);
        Assert.Contains("AllowedHosts", detail);
    }

    [Theory]
    [InlineData("localhost")]
    [InlineData("127.0.0.1")]
    public async Task TheLoopbackNamesAreAnswered(string host)
    {
        using var request = Request("GET", "/api/runs?limit=1");
        request.Headers.Host = $"{host}:{system.Gateway.BaseAddress.Port}";

        using var response = await system.Http.SendAsync(request);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
    }

    [Fact]
    public async Task AllowedHostsFromConfigurationReplacesTheDefault()
    {
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", $"http://127.0.0.1:{Ports.Unused()}", "--AllowedHosts", "dashboard.example"]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress };
        using var named = new HttpRequestMessage(HttpMethod.Get, "/api/status") { Headers = { Host = "dashboard.example" } };
        using var loopback = new HttpRequestMessage(HttpMethod.Get, "/api/status");

        Assert.Equal(HttpStatusCode.OK, (await http.SendAsync(named)).StatusCode);
        Assert.Equal(HttpStatusCode.BadRequest, (await http.SendAsync(loopback)).StatusCode);
    }

    /// <summary>A request to a work route; a POST that starts work carries the smallest run.</summary>
    internal static HttpRequestMessage Request(string method, string path) => new(new HttpMethod(method), path)
    {
        // A run that slipped through would be short; a refused one never starts.
        Content = method == "POST" && !path.EndsWith("/cancel", StringComparison.Ordinal)
            ? JsonContent.Create(new { strategy = "client-wrapper", count = 1 })
            : null,
    };
}
