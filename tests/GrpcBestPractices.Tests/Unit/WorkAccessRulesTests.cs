using System.Security.Claims;
using ApiGateway.Security;
using GrpcBestPractices.Tests.Infrastructure;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Authorization;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>Which addresses reach beyond this machine, where Kestrel binds, and the rules the gateway checks its Auth settings by at start.</summary>
public sealed class WorkAccessRulesTests
{
    private const string Key = "k3y-for-the-ci-pipeline-0123456789";

    [Theory]
    [InlineData("http://127.0.0.1:5080", true)]
    [InlineData("http://127.1.2.3:5080", true)]
    [InlineData("http://localhost:5080", true)]
    [InlineData("http://LOCALHOST:0", true)]
    [InlineData("http://[::1]:5080", true)]
    [InlineData("https://127.0.0.1:0", true)]
    [InlineData("http://unix:/run/gateway.sock", true)]
    [InlineData("http://0.0.0.0:5080", false)]
    [InlineData("http://[::]:5080", false)]
    [InlineData("http://*:8080", false)]
    [InlineData("http://+:8080", false)]
    [InlineData("http://192.168.1.20:5080", false)]
    [InlineData("http://[fe80::1]:5080", false)]
    [InlineData("http://gateway.example:5080", false)]
    [InlineData("not a url", false)]
    public void OnlyLoopbackAddressesLocalhostAndLocalSocketsStayOnThisMachine(string address, bool loopback) =>
        Assert.Equal(loopback, ListenAddresses.IsLoopback(address));

    [Fact]
    public void UrlsAreWhereKestrelBindsAndEachOneCounts()
    {
        var listening = ListenAddresses.FromConfiguration(Configuration(("urls", "http://127.0.0.1:5080; http://0.0.0.0:5081")));

        Assert.Equal(["http://127.0.0.1:5080", "http://0.0.0.0:5081"], listening.All);
        Assert.Equal(["http://0.0.0.0:5081"], listening.BeyondLoopback);
    }

    [Fact]
    public void TheKestrelEndpointsSectionOverridesUrlsAsKestrelDoes()
    {
        var listening = ListenAddresses.FromConfiguration(Configuration(("urls", "http://0.0.0.0:5080"), ("Kestrel:Endpoints:Http:Url", "http://127.0.0.1:5090")));

        Assert.Equal(["http://127.0.0.1:5090"], listening.All);
        Assert.Empty(listening.BeyondLoopback);
    }

    [Fact]
    public void HttpPortsBindEveryInterface()
    {
        var listening = ListenAddresses.FromConfiguration(Configuration(("http_ports", "8080"), ("https_ports", "8443")));

        Assert.Equal(["http://*:8080", "https://*:8443"], listening.BeyondLoopback);
    }

    [Fact]
    public void OnLoopbackNoAuthenticationIsNeeded() =>
        Assert.True(Validate("http://127.0.0.1:5080", new AuthOptions()).Succeeded);

    [Fact]
    public void BeyondLoopbackWithoutAuthenticationIsRefusedInOneSentenceNamingTheSettings()
    {
        var result = Validate("http://0.0.0.0:5080", new AuthOptions());

        var failure = Assert.Single(result.Failures!);
        Assert.Equal(WorkAccess.OpenBeyondLoopback(["http://0.0.0.0:5080"]), failure);
        Assert.Contains("Auth:ApiKeys:<name>", failure, StringComparison.Ordinal);
        Assert.Contains("Auth:Jwt:Authority", failure, StringComparison.Ordinal);
        Assert.Contains("Auth:AllowAnonymousBeyondLoopback=true", failure, StringComparison.Ordinal);
    }

    [Fact]
    public void BeyondLoopbackAKeyATokenAuthorityOrTheOpenSettingByNameWillDo()
    {
        Assert.True(Validate("http://0.0.0.0:5080", new AuthOptions { ApiKeys = { ["ci"] = Key } }).Succeeded);
        Assert.True(Validate("http://0.0.0.0:5080", new AuthOptions(), new JwtAuthOptions { Authority = "https://login.example/tenant", Audience = "grpc-gateway" }).Succeeded);
        Assert.True(Validate("http://0.0.0.0:5080", new AuthOptions { AllowAnonymousBeyondLoopback = true }).Succeeded);
    }

    [Fact]
    public void AShortKeyIsNamedWithItsLengthNeverItsValue()
    {
        var failure = Assert.Single(Validate("http://0.0.0.0:5080", new AuthOptions { ApiKeys = { ["ci"] = "hunter2" } }).Failures!);

        Assert.StartsWith("Auth:ApiKeys:ci is 7 characters long", failure, StringComparison.Ordinal);
        Assert.DoesNotContain("hunter2", failure, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("https://login.example", null, false, "Auth:Jwt:Audience is required")]
    [InlineData("http://login.example", "api", true, "plain HTTP")]
    [InlineData("login.example", "api", true, "must be the identity provider's issuer URL")]
    [InlineData(null, "api", true, "Auth:Jwt:Audience is set without Auth:Jwt:Authority")]
    public void AJwtSettingThatCannotWorkIsNamed(string? authority, string? audience, bool requireHttps, string expected)
    {
        var result = Validate("http://127.0.0.1:5080", new AuthOptions(), new JwtAuthOptions { Authority = authority, Audience = audience, RequireHttpsMetadata = requireHttps });

        Assert.Contains(result.Failures!, failure => failure.Contains(expected, StringComparison.Ordinal));
    }

    [Fact]
    public void ARequiredRoleWithoutATokenAuthorityIsRefused() =>
        Assert.Contains("Auth:RequiredRole applies to JWT callers only", Assert.Single(Validate("http://127.0.0.1:5080", new AuthOptions { RequiredRole = "load-tester" }).Failures!), StringComparison.Ordinal);

    [Fact]
    public void TheKeyRingFindsAKeyByItsNameWhateverTheLengthPresented()
    {
        var ring = new ApiKeyRing(new Dictionary<string, string> { ["ci"] = Key, ["laptop"] = "another-key-0123456789abcdef" });

        Assert.Equal("ci", ring.Find(Key));
        Assert.Equal("laptop", ring.Find(" another-key-0123456789abcdef "));
        Assert.Null(ring.Find(Key[..^1]));
        Assert.Null(ring.Find(Key + "0"));
        Assert.Null(ring.Find(""));
    }

    [Fact]
    public void OnLoopbackAnyoneMayStartWork() =>
        Assert.True(Decide("http://127.0.0.1:5080", ["http://127.0.0.1:5080"], new AuthOptions(), Anonymous).HasSucceeded);

    [Fact]
    public void BeyondLoopbackOnlyAnAuthenticatedCallerMayAndAnOpenGatewayLetsAnyone()
    {
        var guarded = new AuthOptions { ApiKeys = { ["ci"] = Key } };

        Assert.False(Decide("http://0.0.0.0:5080", ["http://0.0.0.0:5080"], guarded, Anonymous).HasSucceeded);
        Assert.True(Decide("http://0.0.0.0:5080", ["http://0.0.0.0:5080"], guarded, Caller(ApiKeyAuthentication.SchemeName)).HasSucceeded);
        Assert.True(Decide("http://0.0.0.0:5080", ["http://0.0.0.0:5080"], new AuthOptions { AllowAnonymousBeyondLoopback = true }, Anonymous).HasSucceeded);
    }

    [Fact]
    public void AnAddressKestrelBoundBeyondWhatConfigurationSaidFailsClosed() =>
        Assert.False(Decide("http://127.0.0.1:5080", ["http://127.0.0.1:5080", "http://[::]:5081"], new AuthOptions(), Anonymous).HasSucceeded);

    [Fact]
    public void AJwtCallerWithoutTheRequiredRoleIsRefusedWithTheReasonAndAKeyNeedsNone()
    {
        var auth = new AuthOptions { RequiredRole = "load-tester" };

        var refused = Decide("http://0.0.0.0:5080", ["http://0.0.0.0:5080"], auth, Caller("AuthenticationTypes.Federation", "reader"));

        Assert.True(refused.HasFailed);
        Assert.Contains("lacks the role 'load-tester'", Assert.Single(refused.FailureReasons).Message, StringComparison.Ordinal);
        Assert.True(Decide("http://0.0.0.0:5080", ["http://0.0.0.0:5080"], auth, Caller("AuthenticationTypes.Federation", "load-tester")).HasSucceeded);
        Assert.True(Decide("http://0.0.0.0:5080", ["http://0.0.0.0:5080"], auth, Caller(ApiKeyAuthentication.SchemeName)).HasSucceeded);
    }

    [Fact]
    public async Task EveryRouteTheGatewayMapsNeedsTheKeyPolicyAndNoneIsOpenToAnyone()
    {
        var endpoints = await GatewayEndpoints.MapAsync();

        Assert.Contains(endpoints, endpoint => endpoint.OpenApiPath() == "/api/runs/{id}/events");
        Assert.All(endpoints, endpoint => Assert.True(
            endpoint.Metadata.GetOrderedMetadata<IAuthorizeData>().Any(authorize => authorize.Policy == WorkAccess.Policy)
                && endpoint.Metadata.GetMetadata<IAllowAnonymous>() is null,
            $"{endpoint.DisplayName} does not need the key beyond loopback"));
    }

    [Fact]
    public async Task WhatNamesNoPolicyFallsBackToTheKeyPolicy()
    {
        var builder = WebApplication.CreateBuilder();
        builder.AddWorkAccess();
        await using var app = builder.Build();
        var authorization = app.Services.GetRequiredService<IOptions<AuthorizationOptions>>().Value;

        var fallback = authorization.FallbackPolicy;

        Assert.NotNull(fallback);
        Assert.Same(authorization.GetPolicy(WorkAccess.Policy), fallback);
        Assert.Equal([WorkAccess.Scheme], fallback.AuthenticationSchemes);
        Assert.IsType<WorkRequirement>(Assert.Single(fallback.Requirements));
    }

    private static readonly ClaimsPrincipal Anonymous = new(new ClaimsIdentity());

    private static ClaimsPrincipal Caller(string authenticationType, string? role = null) =>
        new(new ClaimsIdentity(role is null ? [new Claim(ClaimTypes.Name, "ci")] : [new Claim(ClaimTypes.Name, "ci"), new Claim(ClaimTypes.Role, role)], authenticationType));

    private static AuthorizationHandlerContext Decide(string configured, string[] bound, AuthOptions auth, ClaimsPrincipal user)
    {
        var requirement = new WorkRequirement();
        var context = new AuthorizationHandlerContext([requirement], user, null);
        var handler = new WorkRequirementHandler(ListenAddresses.FromConfiguration(Configuration(("urls", configured))), new BoundServer(bound), Options.Create(auth),
            NullLogger<WorkRequirementHandler>.Instance);
        handler.HandleAsync(context).GetAwaiter().GetResult();
        return context;
    }

    /// <summary>What Kestrel reports once it has bound: only its addresses.</summary>
    private sealed class BoundServer : IServer
    {
        public BoundServer(string[] addresses)
        {
            var feature = new ServerAddressesFeature();
            foreach (var address in addresses)
            {
                feature.Addresses.Add(address);
            }

            Features.Set<IServerAddressesFeature>(feature);
        }

        public IFeatureCollection Features { get; } = new FeatureCollection();

        public Task StartAsync<TContext>(IHttpApplication<TContext> application, CancellationToken cancellationToken) where TContext : notnull => Task.CompletedTask;

        public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;

        public void Dispose()
        {
        }
    }

    private static ValidateOptionsResult Validate(string urls, AuthOptions auth, JwtAuthOptions? jwt = null) =>
        new WorkAccessValidation(ListenAddresses.FromConfiguration(Configuration(("urls", urls))), Options.Create(jwt ?? new JwtAuthOptions())).Validate(null, auth);

    private static IConfiguration Configuration(params (string Key, string Value)[] settings) =>
        new ConfigurationBuilder().AddInMemoryCollection(settings.Select(setting => new KeyValuePair<string, string?>(setting.Key, setting.Value))).Build();
}
