using System.Net;
using System.Net.Http.Headers;
using System.Net.Http.Json;
using System.Text.Json;
using System.Security.Cryptography;
using GrpcBestPractices.Tests.Infrastructure;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Logging;
using Microsoft.IdentityModel.JsonWebTokens;
using Microsoft.IdentityModel.Tokens;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.Faults;

/// <summary>
/// Starting work beyond loopback is a privilege: the real gateway bound to every interface (0.0.0.0, called through
/// 127.0.0.1) refuses to start without authentication, and once started with an API key or a JWT authority answers work
/// only to a caller that presents one, while reading stays open. On loopback nothing changes (every other test runs there).
/// </summary>
[Trait("Category", "Process")]
public sealed class WorkAccessTests(ITestOutputHelper output)
{
    private const string Key = "k3y-for-the-ci-pipeline-0123456789";
    private const string EveryInterface = "http://0.0.0.0:0";

    public static TheoryData<string, string> WorkRoutes => ForeignOriginTests.WorkRoutes;

    [Fact]
    public async Task BeyondLoopbackWithoutAuthenticationTheGatewayRefusesToStartInOneSentence()
    {
        await using var gateway = await AppProcess.RunToExitAsync("ApiGateway", ["--urls", EveryInterface, "--ServerUrl", UnusedService()], TimeSpan.FromSeconds(60));

        Assert.Equal(2, gateway.ExitCode);
        Assert.Contains("The gateway listens beyond loopback (http://0.0.0.0:0), where starting work needs authentication", gateway.Output, StringComparison.Ordinal);
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
    public async Task WithAnApiKeyEveryRouteThatDoesWorkIs401WithoutItAndReadingStaysOpen()
    {
        await using var gateway = await StartBeyondLoopbackAsync("--Auth:ApiKeys:ci", Key);
        using var http = Client(gateway);

        foreach (var (method, path) in WorkRoutes.Select(row => ((string)row[0], (string)row[1])))
        {
            using var response = await http.SendAsync(Request(method, path));

            Assert.True(response.StatusCode == HttpStatusCode.Unauthorized, $"{method} {path} answered {(int)response.StatusCode}");
            Assert.Equal("Bearer realm=\"ApiGateway\"", response.Headers.WwwAuthenticate.ToString());
            Assert.StartsWith("No key was sent", (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString(), StringComparison.Ordinal);
        }

        foreach (var path in new[] { "/api/runs", "/api/status", "/", "/swagger/v1/swagger.json", "/health" })
        {
            using var response = await http.GetAsync(path);
            Assert.True(response.StatusCode == HttpStatusCode.OK, $"GET {path} answered {(int)response.StatusCode}");
        }

        // Swagger UI's Authorize button: the document asks for a key on the work routes only.
        var paths = (await http.GetFromJsonAsync<JsonElement>("/swagger/v1/swagger.json")).GetProperty("paths");
        Assert.Equal("ApiKey", paths.GetProperty("/api/runs").GetProperty("post").GetProperty("security")[0].EnumerateObject().Single().Name);
        Assert.False(paths.GetProperty("/api/runs").GetProperty("get").TryGetProperty("security", out _));
        Assert.True(await gateway.WaitForOutputAsync(line => line.Contains("Listening beyond loopback on http://0.0.0.0:", StringComparison.Ordinal), TimeSpan.FromSeconds(5)), gateway.Output);
        Assert.DoesNotContain(Key, gateway.Output, StringComparison.Ordinal);
        // No cookies, so no Data Protection key ring made (and written under HOME) at start.
        Assert.DoesNotContain("DataProtection", gateway.Output, StringComparison.Ordinal);
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

        Assert.Equal(HttpStatusCode.Accepted, started.StatusCode);
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

        Assert.Equal(HttpStatusCode.Accepted, allowed.StatusCode);
        Assert.Equal(HttpStatusCode.Forbidden, noRole.StatusCode);
        Assert.Contains("lacks the role 'load-tester'", (await SystemFixture.ReadProblemAsync(noRole)).GetProperty("detail").GetString(), StringComparison.Ordinal);
        Assert.Equal(HttpStatusCode.Unauthorized, otherAudience.StatusCode);
        Assert.Contains("invalid_token", otherAudience.Headers.WwwAuthenticate.ToString(), StringComparison.Ordinal);
        Assert.Equal("application/problem+json", otherAudience.Content.Headers.ContentType?.MediaType);
    }

    [Fact]
    public async Task ThePageAsksForTheKeyOnTheFirst401AndKeepsItInTheTabOnly()
    {
        await using var gateway = await StartBeyondLoopbackAsync("--Auth:ApiKeys:ci", Key);

        var result = await BrowserScript.RunAsync(output, "key.mjs", TimeSpan.FromSeconds(90), Client(gateway).BaseAddress!.ToString(), Key, BrowserScript.Screenshots);

        Assert.Empty(result.GetProperty("consoleErrors").EnumerateArray());
        Assert.Empty(result.GetProperty("foreignRequests").EnumerateArray());
    }

    private static HttpRequestMessage WithToken(string token)
    {
        var request = Request("POST", "/api/runs");
        request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", token);
        return request;
    }

    private static async Task<AppProcess> StartBeyondLoopbackAsync(params string[] settings) =>
        await AppProcess.StartAsync("ApiGateway", ["--urls", EveryInterface, "--ServerUrl", UnusedService(), .. settings]);

    /// <summary>The gateway listens on every interface; the test reaches it through loopback, a name AllowedHosts answers.</summary>
    private static HttpClient Client(AppProcess gateway) =>
        new() { BaseAddress = new UriBuilder(gateway.BaseAddress) { Host = "127.0.0.1" }.Uri, Timeout = TimeSpan.FromSeconds(60) };

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
