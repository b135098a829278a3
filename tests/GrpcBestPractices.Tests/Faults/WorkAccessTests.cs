using System.Net;
using System.Net.Http.Headers;
using System.Net.Http.Json;
using System.Text.Json;
using System.Security.Cryptography;
using System.Text.RegularExpressions;
using GrpcBestPractices.Tests.Infrastructure;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.Logging;
using Microsoft.IdentityModel.JsonWebTokens;
using Microsoft.IdentityModel.Tokens;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.Faults;

/// <summary>
/// Beyond loopback the gateway answers only a caller with a key: the real gateway bound to every interface (0.0.0.0,
/// called through 127.0.0.1) refuses to start without authentication, and once started with an API key or a JWT
/// authority answers every route, reads and event streams too, only to a caller that presents one; /health, /metrics and
/// the files of the page and of Swagger UI stay open. On loopback nothing changes (every other test runs there).
/// </summary>
[Trait("Category", "Process")]
public sealed partial class WorkAccessTests(ITestOutputHelper output)
{
    private const string Key = "k3y-for-the-ci-pipeline-0123456789";
    private const string EveryInterface = "http://0.0.0.0:0";
    private const string NoSuchId = "3f2b8c1e-9a4d-4e6b-8f0a-1c2d3e4f5a6b";

    public static TheoryData<string, string> WorkRoutes => ForeignOriginTests.WorkRoutes;

    [Fact]
    public async Task BeyondLoopbackWithoutAuthenticationTheGatewayRefusesToStartInOneSentence()
    {
        await using var gateway = await AppProcess.RunToExitAsync("ApiGateway", ["--urls", EveryInterface, "--ServerUrl", UnusedService()], TimeSpan.FromSeconds(60));

        Assert.Equal(2, gateway.ExitCode);
        Assert.Contains("The gateway listens beyond loopback (http://0.0.0.0:0), where every route but /health and /metrics needs authentication", gateway.Output, StringComparison.Ordinal);
        Assert.Contains("Auth:AllowAnonymousBeyondLoopback=true", gateway.Output, StringComparison.Ordinal);
        Assert.DoesNotContain("Now listening", gateway.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AKeyTooShortIsRefusedAtStartByItsNameNeverItsValue()
    {
        await using var gateway = await AppProcess.RunToExitAsync("ApiGateway", ["--urls", EveryInterface, "--ServerUrl", UnusedService(), "--Auth:ApiKeys:ci", "hunter2"], TimeSpan.FromSeconds(60));

        Assert.Equal(2, gateway.ExitCode);
        Assert.Contains("Auth:ApiKeys:ci is 7 characters long", gateway.Output, StringComparison.Ordinal);
        Assert.DoesNotContain("hunter2", gateway.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task WithAnApiKeyEveryRouteTheGatewayMapsIs401WithoutItAndOnlyProbesAndThePagesFilesStayOpen()
    {
        await using var gateway = await StartBeyondLoopbackAsync("--Auth:ApiKeys:ci", Key);
        using var http = Client(gateway);
        var routes = (await GatewayEndpoints.MapAsync()).Select(endpoint => (Method: endpoint.HttpMethods()[0], Path: Example(endpoint))).ToList();

        // Every route its code maps, reads and event streams as much as work, and a path no route maps (the fallback policy).
        Assert.Contains(("GET", $"/api/runs/{NoSuchId}/events"), routes);
        Assert.Contains(("POST", "/api/runs"), routes);
        foreach (var (method, path) in routes.Append(("GET", "/api/no-such-route")))
        {
            using var response = await http.SendAsync(Request(method, path));

            Assert.True(response.StatusCode == HttpStatusCode.Unauthorized, $"{method} {path} answered {(int)response.StatusCode}");
            Assert.Equal("Bearer realm=\"ApiGateway\"", response.Headers.WwwAuthenticate.ToString());
            Assert.StartsWith("No key was sent", (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString(), StringComparison.Ordinal);
        }

        // Probes and scrapers, and the files the page and Swagger UI load before a key is typed: none holds a run or a target.
        foreach (var path in new[] { "/health", "/metrics", "/", "/js/api.js", "/js/sse.js", "/css/dashboard.css", "/favicon.svg", "/lib/chart.js/chart.umd.min.js", "/swagger/index.html", "/swagger/swagger-start.js", "/swagger/swagger-ui-bundle.js", "/swagger/v1/swagger.json" })
        {
            using var response = await http.GetAsync(path);
            Assert.True(response.StatusCode == HttpStatusCode.OK, $"GET {path} answered {(int)response.StatusCode}");
        }

        // Swagger UI's Authorize button: the document asks for a key on every operation, and names the 401 each may answer.
        var document = await http.GetFromJsonAsync<JsonElement>("/swagger/v1/swagger.json");
        foreach (var operation in document.GetProperty("paths").EnumerateObject().SelectMany(path => path.Value.EnumerateObject().Select(method => (Name: $"{method.Name} {path.Name}", method.Value))))
        {
            Assert.True(operation.Value.TryGetProperty("security", out var security), $"{operation.Name} asks for no key");
            Assert.Equal(["ApiKey", "Bearer"], security.EnumerateArray().Select(requirement => requirement.EnumerateObject().Single().Name));
            Assert.True(operation.Value.GetProperty("responses").TryGetProperty("401", out _), $"{operation.Name} names no 401");
        }

        Assert.True(await gateway.WaitForOutputAsync(line => line.Contains("Listening beyond loopback on http://0.0.0.0:", StringComparison.Ordinal), TimeSpan.FromSeconds(5)), gateway.Output);
        Assert.DoesNotContain(Key, gateway.Output, StringComparison.Ordinal);
        // No cookies, so no Data Protection key ring made (and written under HOME) at start.
        Assert.DoesNotContain("DataProtection", gateway.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task WithTheKeyAsXApiKeyOrBearerEveryKindOfReadAnswersAndWithoutItNone()
    {
        await using var service = await AppProcess.StartAsync("PerformanceService");
        await using var gateway = await StartBeyondLoopbackAsync(service, "--Auth:ApiKeys:ci", Key);
        using var http = Client(gateway);
        using var keyed = Client(gateway, Key);
        var (run, suite) = await StartRunAndSuiteAsync(keyed);

        foreach (var path in Reads(run, suite))
        {
            using var none = await http.GetAsync(path);
            using var byHeader = await keyed.GetAsync(path);
            using var bearer = new HttpRequestMessage(HttpMethod.Get, path) { Headers = { Authorization = new AuthenticationHeaderValue("Bearer", Key) } };
            using var byBearer = await http.SendAsync(bearer);

            Assert.True(none.StatusCode == HttpStatusCode.Unauthorized, $"GET {path} without the key answered {(int)none.StatusCode}");
            Assert.StartsWith("No key was sent", (await SystemFixture.ReadProblemAsync(none)).GetProperty("detail").GetString(), StringComparison.Ordinal);
            Assert.True(byHeader.StatusCode == HttpStatusCode.OK, $"GET {path} with X-Api-Key answered {(int)byHeader.StatusCode}: {await byHeader.Content.ReadAsStringAsync()}");
            Assert.True(byBearer.StatusCode == HttpStatusCode.OK, $"GET {path} with Bearer answered {(int)byBearer.StatusCode}: {await byBearer.Content.ReadAsStringAsync()}");
        }

        Assert.DoesNotContain(Key, gateway.Output, StringComparison.Ordinal);
        // A key in a URL is never taken: proxies, request logs and browser history keep URLs.
        foreach (var query in new[] { "key", "api_key", "apiKey", "access_token", "X-Api-Key" })
        {
            using var inUrl = await http.GetAsync($"/api/runs?{query}={Key}");
            Assert.True(inUrl.StatusCode == HttpStatusCode.Unauthorized, $"GET /api/runs?{query}=<key> answered {(int)inUrl.StatusCode}");
        }
    }

    [Fact]
    public async Task OnLoopbackEveryReadAnswersWithoutAKeyThoughKeysAreConfigured()
    {
        await using var service = await AppProcess.StartAsync("PerformanceService");
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", service.Url, "--Auth:ApiKeys:ci", Key]);
        using var http = Client(gateway);
        var (run, suite) = await StartRunAndSuiteAsync(http);

        foreach (var path in Reads(run, suite).Append("/health").Append("/metrics").Append("/"))
        {
            using var response = await http.GetAsync(path);
            Assert.True(response.StatusCode == HttpStatusCode.OK, $"GET {path} answered {(int)response.StatusCode}: {await response.Content.ReadAsStringAsync()}");
        }

        using var unmapped = await http.GetAsync("/api/no-such-route");
        Assert.Equal(HttpStatusCode.NotFound, unmapped.StatusCode);
    }

    [Fact]
    public async Task TheKeyIsTakenAsBearerOrXApiKeyAndAWrongOneIs401WithoutBeingEchoed()
    {
        await using var gateway = await StartBeyondLoopbackAsync("--Auth:ApiKeys:ci", Key);
        using var http = Client(gateway);

        using var bearer = Request("POST", "/api/runs");
        bearer.Headers.Authorization = new AuthenticationHeaderValue("Bearer", Key);
        using var apiKey = Request("POST", "/api/runs");
        apiKey.Headers.Add("X-Api-Key", Key);
        using var wrong = Request("POST", "/api/runs");
        wrong.Headers.Add("X-Api-Key", "not-the-key-but-long-enough");
        using var chapter = Request("GET", "/Performance/client-wrapper/1");
        chapter.Headers.Add("X-Api-Key", Key);

        // The chapter route first: the runs the POSTs start (against a service that is not there) would otherwise hold
        // the gateway's run slots on a busy machine, and it would answer 429 instead.
        using var chapterRun = await http.SendAsync(chapter);
        using var byBearer = await http.SendAsync(bearer);
        using var byHeader = await http.SendAsync(apiKey);
        using var byWrongKey = await http.SendAsync(wrong);

        Assert.Equal(HttpStatusCode.Accepted, byBearer.StatusCode);
        Assert.Equal(HttpStatusCode.Accepted, byHeader.StatusCode);
        Assert.Equal(HttpStatusCode.Unauthorized, byWrongKey.StatusCode);
        var detail = (await SystemFixture.ReadProblemAsync(byWrongKey)).GetProperty("detail").GetString();
        Assert.StartsWith("The key or token sent was not accepted", detail, StringComparison.Ordinal);
        Assert.DoesNotContain("not-the-key", detail, StringComparison.Ordinal);
        // Past authentication: the chapter route ran, against a service that is not there (503, not 401).
        Assert.Equal(HttpStatusCode.ServiceUnavailable, chapterRun.StatusCode);
        Assert.DoesNotContain(Key, gateway.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task OpenBeyondLoopbackOnlyWhenASettingSaysSoByNameAndThenItWarns()
    {
        await using var gateway = await StartBeyondLoopbackAsync("--Auth:AllowAnonymousBeyondLoopback", "true");
        using var http = Client(gateway);

        using var started = await http.SendAsync(Request("POST", "/api/runs"));
        using var read = await http.GetAsync("/api/runs");

        Assert.Equal(HttpStatusCode.Accepted, started.StatusCode);
        Assert.Equal(HttpStatusCode.OK, read.StatusCode);
        Assert.Contains(gateway.Output.Split('\n'), line => line.Contains("WRN", StringComparison.Ordinal) && line.Contains("anyone who reaches http://0.0.0.0:", StringComparison.Ordinal));
    }

    [Fact]
    public async Task AJwtFromTheConfiguredAuthorityStartsWorkAndOneWithoutTheRequiredRoleIs403()
    {
        await using var identity = await TestIdentityProvider.StartAsync();
        await using var gateway = await StartBeyondLoopbackAsync(
            "--Auth:Jwt:Authority", identity.Issuer, "--Auth:Jwt:Audience", "grpc-gateway", "--Auth:Jwt:RequireHttpsMetadata", "false", "--Auth:RequiredRole", "load-tester");
        using var http = Client(gateway);

        using var allowed = await http.SendAsync(WithToken(identity.Token("grpc-gateway", "load-tester")));
        using var noRole = await http.SendAsync(WithToken(identity.Token("grpc-gateway", "reader")));
        using var otherAudience = await http.SendAsync(WithToken(identity.Token("another-api", "load-tester")));
        using var read = await http.SendAsync(WithToken(identity.Token("grpc-gateway", "load-tester"), "GET", "/api/runs"));
        using var readWithoutRole = await http.SendAsync(WithToken(identity.Token("grpc-gateway", "reader"), "GET", "/api/runs"));

        Assert.Equal(HttpStatusCode.Accepted, allowed.StatusCode);
        Assert.Equal(HttpStatusCode.Forbidden, noRole.StatusCode);
        Assert.Contains("lacks the role 'load-tester'", (await SystemFixture.ReadProblemAsync(noRole)).GetProperty("detail").GetString(), StringComparison.Ordinal);
        // Reading needs what work needs.
        Assert.Equal(HttpStatusCode.OK, read.StatusCode);
        Assert.Equal(HttpStatusCode.Forbidden, readWithoutRole.StatusCode);
        Assert.Equal(HttpStatusCode.Unauthorized, otherAudience.StatusCode);
        Assert.Contains("invalid_token", otherAudience.Headers.WwwAuthenticate.ToString(), StringComparison.Ordinal);
        Assert.Equal("application/problem+json", otherAudience.Content.Headers.ContentType?.MediaType);
    }

    [Fact]
    public async Task ThePageAsksForTheKeyThenLoadsFollowsARunAndDownloadsWithItNeverInAUrl()
    {
        await using var service = await AppProcess.StartAsync("PerformanceService");
        await using var gateway = await StartBeyondLoopbackAsync(service, "--Auth:ApiKeys:ci", Key);

        var result = await BrowserScript.RunAsync(output, "key.mjs", TimeSpan.FromSeconds(120), Client(gateway).BaseAddress!.ToString(), Key, BrowserScript.Screenshots);

        Assert.Empty(result.GetProperty("consoleErrors").EnumerateArray());
        Assert.Empty(result.GetProperty("foreignRequests").EnumerateArray());
        // The gateway's request log names every path and query it was asked for: the key is in none.
        Assert.Contains("/api/runs", gateway.Output, StringComparison.Ordinal);
        Assert.DoesNotContain(Key, gateway.Output, StringComparison.Ordinal);
    }

    private static HttpRequestMessage WithToken(string token, string method = "POST", string path = "/api/runs")
    {
        var request = Request(method, path);
        request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", token);
        return request;
    }

    /// <summary>A read of each kind: the history, one run and its report, export and events, a suite, the lessons and their experiments, targets, status and the rest.</summary>
    private static string[] Reads(string run, string suite) =>
    [
        "/api/runs", $"/api/runs/{run}", $"/api/runs/{run}/report", $"/api/runs/{run}/export?format=csv", $"/api/runs/{run}/export?format=json",
        $"/api/runs/{run}/events", $"/api/runs/compare?baseline={run}&candidate={run}",
        $"/api/suites/{suite}", $"/api/suites/{suite}/report", $"/api/suites/{suite}/events",
        "/api/lessons", "/api/lessons/reuse-channel", "/api/lessons/reuse-channel/experiments", "/api/comparisons",
        "/api/targets", "/api/status", "/api/strategies", "/api/workloads", "/api/plan-facts",
    ];

    /// <summary>A short run and a one-strategy suite, ended, so their reports and event streams answer at once.</summary>
    private static async Task<(string Run, string Suite)> StartRunAndSuiteAsync(HttpClient http)
    {
        var run = (await http.StartRunAsync("""{"strategy": "client-wrapper", "count": 5}""")).GetProperty("id").GetString()!;
        Assert.Equal("Completed", (await http.WaitUntilFinishedAsync($"/api/runs/{run}")).GetProperty("state").GetString());
        var suite = (await http.StartRunAsync("""{"count": 5, "strategies": ["client-wrapper"]}""", "/api/suites")).GetProperty("id").GetString()!;
        Assert.Equal("Completed", (await http.WaitUntilFinishedAsync($"/api/suites/{suite}")).GetProperty("state").GetString());
        return (run, suite);
    }

    /// <summary>The route with each parameter filled in: a count of 1, and an id no run has (the key is asked for before the id is looked up).</summary>
    private static string Example(RouteEndpoint endpoint) =>
        RouteParameter().Replace(endpoint.OpenApiPath(), parameter => parameter.Value == "{count}" ? "1" : NoSuchId);

    [GeneratedRegex(@"\{[^}]+\}")]
    private static partial Regex RouteParameter();

    private static async Task<AppProcess> StartBeyondLoopbackAsync(params string[] settings) =>
        await AppProcess.StartAsync("ApiGateway", ["--urls", EveryInterface, "--ServerUrl", UnusedService(), .. settings]);

    private static async Task<AppProcess> StartBeyondLoopbackAsync(AppProcess service, params string[] settings) =>
        await AppProcess.StartAsync("ApiGateway", ["--urls", EveryInterface, "--ServerUrl", service.Url, .. settings]);

    /// <summary>
    /// The gateway listens on every interface; the test reaches it through loopback, a name AllowedHosts answers (and the
    /// only address this machine's tests can reach). With a key, every request carries it as X-Api-Key.
    /// </summary>
    private static HttpClient Client(AppProcess gateway, string? key = null)
    {
        var http = new HttpClient { BaseAddress = new UriBuilder(gateway.BaseAddress) { Host = "127.0.0.1" }.Uri, Timeout = TimeSpan.FromSeconds(60) };
        if (key is not null)
        {
            http.DefaultRequestHeaders.Add("X-Api-Key", key);
        }

        return http;
    }

    private static string UnusedService() => $"http://127.0.0.1:{Ports.Unused()}";

    private static HttpRequestMessage Request(string method, string path) => ForeignOriginTests.Request(method, path);

    /// <summary>An OpenID Connect issuer on a loopback port: its discovery document and signing key, as the gateway's JwtBearer fetches them.</summary>
    private sealed class TestIdentityProvider : IAsyncDisposable
    {
        private readonly WebApplication _app;
        private readonly RSA _rsa = RSA.Create(2048);

        private TestIdentityProvider(WebApplication app) => _app = app;

        public string Issuer { get; private set; } = "";

        public static async Task<TestIdentityProvider> StartAsync()
        {
            var builder = WebApplication.CreateSlimBuilder();
            builder.WebHost.UseUrls("http://127.0.0.1:0");
            builder.Logging.ClearProviders();
            var provider = new TestIdentityProvider(builder.Build());
            var publicKey = provider._rsa.ExportParameters(false);
            provider._app.MapGet("/.well-known/openid-configuration", () => Results.Json(new Dictionary<string, object>
            {
                ["issuer"] = provider.Issuer,
                ["jwks_uri"] = provider.Issuer + "/keys",
            }));
            provider._app.MapGet("/keys", () => Results.Json(new
            {
                keys = new[] { new { kty = "RSA", use = "sig", kid = "test", alg = "RS256", n = Base64UrlEncoder.Encode(publicKey.Modulus), e = Base64UrlEncoder.Encode(publicKey.Exponent) } },
            }));
            await provider._app.StartAsync();
            provider.Issuer = provider._app.Urls.Single().TrimEnd('/');
            return provider;
        }

        public string Token(string audience, string role) => new JsonWebTokenHandler().CreateToken(new SecurityTokenDescriptor
        {
            Issuer = Issuer,
            Audience = audience,
            Claims = new Dictionary<string, object> { ["sub"] = "ci-pipeline", ["role"] = role },
            Expires = DateTime.UtcNow.AddMinutes(5),
            SigningCredentials = new SigningCredentials(new RsaSecurityKey(_rsa) { KeyId = "test" }, SecurityAlgorithms.RsaSha256),
        });

        public async ValueTask DisposeAsync()
        {
            await _app.DisposeAsync();
            _rsa.Dispose();
        }
    }
}
