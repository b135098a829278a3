using ApiGateway.OpenApi;
using GrpcBestPractices.ServiceDefaults;
using Microsoft.AspNetCore.Authentication;
using Microsoft.AspNetCore.Authentication.JwtBearer;
using Microsoft.AspNetCore.Authorization;
using Microsoft.AspNetCore.Authorization.Policy;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;

namespace ApiGateway.Security;

/// <summary>
/// Who may use the gateway. On loopback, anyone on this machine, as before. Listening beyond loopback, every route but
/// /health and /metrics answers only a caller ASP.NET Core's authentication accepts: one of the configured API keys
/// (<c>Authorization: Bearer</c> or <c>X-Api-Key</c>), or a JWT from the configured authority (with
/// <c>Auth:RequiredRole</c> when set). Reads need it as much as work: a run's plan, request data, descriptors and first
/// answer, and a target's address and methods, are the team's own. The gateway does not start beyond loopback without
/// one of them unless <c>Auth:AllowAnonymousBeyondLoopback</c> says so. Routes that do work are also kept from other
/// sites' pages (<see cref="SameOrigin.SameOriginOnly"/>).
/// </summary>
public static partial class WorkAccess
{
    public const string Policy = "KeyBeyondLoopback";

    /// <summary>The scheme the policy authenticates with: it hands each request to the API keys or to JwtBearer.</summary>
    public const string Scheme = "KeyOrToken";

    /// <summary>The sentence a gateway open beyond loopback is refused with at start.</summary>
    public static string OpenBeyondLoopback(IEnumerable<string> addresses) =>
        $"The gateway listens beyond loopback ({string.Join(", ", addresses)}), where every route but /health and /metrics needs authentication: set an API key " +
        $"({AuthOptions.Section}:ApiKeys:<name>, {AuthOptions.ShortestKey} characters or more), or {JwtAuthOptions.Section}:Authority and " +
        $"{JwtAuthOptions.Section}:Audience, or set {AuthOptions.Section}:AllowAnonymousBeyondLoopback=true to leave it open to anyone who reaches it.";

    public static WebApplicationBuilder AddWorkAccess(this WebApplicationBuilder builder)
    {
        builder.Services.AddSingleton(ListenAddresses.FromConfiguration(builder.Configuration));
        builder.Services.AddValidatedOptions<AuthOptions>(AuthOptions.Section);
        builder.Services.AddValidatedOptions<JwtAuthOptions>(JwtAuthOptions.Section);
        builder.Services.AddSingleton<IValidateOptions<AuthOptions>, WorkAccessValidation>();
        builder.Services.AddSingleton<ApiKeyRing>();
        builder.Services.AddOptions<JwtBearerOptions>(JwtBearerDefaults.AuthenticationScheme).BindConfiguration(JwtAuthOptions.Section);
        // AddAuthentication() would add Data Protection too, whose key ring is made at start (a warning, and a key written
        // under HOME) for cookies this gateway never issues; its other parts are these.
        builder.Services.AddAuthenticationCore().AddWebEncoders();
        builder.Services.TryAddSingleton<IAuthenticationConfigurationProvider>(new AuthenticationSection(builder.Configuration));
        new AuthenticationBuilder(builder.Services)
            .AddScheme<AuthenticationSchemeOptions, ApiKeyAuthentication>(ApiKeyAuthentication.SchemeName, null)
            .AddJwtBearer()
            .AddPolicyScheme(Scheme, "API key or bearer token", options => options.ForwardDefaultSelector = SchemeFor);
        var keyBeyondLoopback = new AuthorizationPolicyBuilder(Scheme).AddRequirements(new WorkRequirement()).Build();
        builder.Services.AddAuthorizationBuilder()
            .AddPolicy(Policy, keyBeyondLoopback)
            // Whatever names no policy needs the key too: a route mapped outside the gateway's group, a path no route matches.
            .SetFallbackPolicy(keyBeyondLoopback);
        builder.Services.AddSingleton<IAuthorizationHandler, WorkRequirementHandler>();
        builder.Services.AddSingleton<IAuthorizationMiddlewareResultHandler, WorkRefusals>();
        return builder;
    }

    /// <summary>
    /// Every route of <paramref name="routes"/> needs the key beyond loopback (as the fallback policy has it anyway), and
    /// the OpenAPI document says so with the 401 it answers.
    /// </summary>
    public static RouteGroupBuilder NeedsKeyBeyondLoopback(this RouteGroupBuilder routes) =>
        routes.RequireAuthorization(Policy)
            .WithMetadata(new ProblemExample(WorkRefusals.Unauthenticated(sent: false).ProblemDetails))
            .ProducesProblem(StatusCodes.Status401Unauthorized);

    /// <summary>Says at start who may use the gateway, then authenticates and authorizes every route after it.</summary>
    public static WebApplication UseWorkAccess(this WebApplication app)
    {
        var listening = app.Services.GetRequiredService<ListenAddresses>();
        if (listening.BeyondLoopback.Count > 0)
        {
            var auth = app.Services.GetRequiredService<IOptions<AuthOptions>>().Value;
            var jwt = app.Services.GetRequiredService<IOptions<JwtAuthOptions>>().Value;
            var addresses = string.Join(", ", listening.BeyondLoopback);
            if (auth.AllowAnonymousBeyondLoopback)
            {
                LogOpen(app.Logger, addresses);
            }
            else
            {
                var accepted = auth.ApiKeys.Count > 0 ? $"one of {auth.ApiKeys.Count} API key(s)" : "";
                LogGuarded(app.Logger, addresses, jwt.IsConfigured ? $"{accepted}{(accepted.Length > 0 ? " or " : "")}a JWT from {jwt.Authority}" : accepted);
            }
        }

        app.UseAuthentication();
        app.UseAuthorization();
        return app;
    }

    /// <summary>A key the gateway knows (or an X-Api-Key) goes to the keys; any other bearer token to JwtBearer when an authority is configured.</summary>
    private static string SchemeFor(HttpContext http)
    {
        var jwt = http.RequestServices.GetRequiredService<IOptions<JwtAuthOptions>>().Value;
        if (!jwt.IsConfigured || http.Request.Headers.ContainsKey(ApiKeyAuthentication.HeaderName))
        {
            return ApiKeyAuthentication.SchemeName;
        }

        return ApiKeyRing.Presented(http.Request) is { } presented && http.RequestServices.GetRequiredService<ApiKeyRing>().Find(presented) is not null
            ? ApiKeyAuthentication.SchemeName
            : JwtBearerDefaults.AuthenticationScheme;
    }

    /// <summary>Where schemes find their settings by convention (Authentication:Schemes:Bearer for JwtBearer), as AddAuthentication() says it.</summary>
    private sealed class AuthenticationSection(IConfiguration configuration) : IAuthenticationConfigurationProvider
    {
        public IConfiguration AuthenticationConfiguration { get; } = configuration.GetSection("Authentication");
    }

    [LoggerMessage(Level = LogLevel.Warning, Message = "Auth:AllowAnonymousBeyondLoopback is true: anyone who reaches {Addresses} may read every run and target and start, cancel and delete work")]
    private static partial void LogOpen(ILogger logger, string addresses);

    [LoggerMessage(Level = LogLevel.Information, Message = "Listening beyond loopback on {Addresses}: every route but /health and /metrics needs {Accepted}")]
    private static partial void LogGuarded(ILogger logger, string addresses, string accepted);
}

/// <summary>The policy's one requirement: beyond loopback, an authenticated caller (with the required role, for a JWT), whatever the route.</summary>
public sealed class WorkRequirement : IAuthorizationRequirement;

public sealed partial class WorkRequirementHandler(ListenAddresses configured, IServer server, IOptions<AuthOptions> options, ILogger<WorkRequirementHandler> logger)
    : AuthorizationHandler<WorkRequirement>
{
    private readonly Lazy<bool> _beyondLoopback = new(() =>
    {
        // Kestrel's own list of what it bound: should configuration have bound further than it says, fail closed.
        var bound = ListenAddresses.FromServer(server).BeyondLoopback;
        if (configured.BeyondLoopback.Count == 0 && bound.Count > 0)
        {
            LogBoundBeyondConfigured(logger, string.Join(", ", bound));
        }

        return configured.BeyondLoopback.Count > 0 || bound.Count > 0;
    });

    protected override Task HandleRequirementAsync(AuthorizationHandlerContext context, WorkRequirement requirement)
    {
        var auth = options.Value;
        if (auth.AllowAnonymousBeyondLoopback || !_beyondLoopback.Value)
        {
            context.Succeed(requirement);
        }
        else if (context.User.Identity?.IsAuthenticated == true)
        {
            if (context.User.Identity.AuthenticationType == ApiKeyAuthentication.SchemeName || string.IsNullOrWhiteSpace(auth.RequiredRole) || context.User.IsInRole(auth.RequiredRole))
            {
                context.Succeed(requirement);
            }
            else
            {
                context.Fail(new AuthorizationFailureReason(this, $"The token is valid but lacks the role '{auth.RequiredRole}' that {AuthOptions.Section}:RequiredRole asks of every caller of this gateway beyond loopback."));
            }
        }

        return Task.CompletedTask;
    }

    [LoggerMessage(Level = LogLevel.Error, Message = "Kestrel bound {Addresses} beyond loopback though configuration named none; every route but /health and /metrics now needs authentication")]
    private static partial void LogBoundBeyondConfigured(ILogger logger, string addresses);
}

/// <summary>The 401 and 403 of the key policy as application/problem+json with a sentence, after the schemes set WWW-Authenticate.</summary>
public sealed class WorkRefusals(IOptions<JwtAuthOptions> jwt) : IAuthorizationMiddlewareResultHandler
{
    private readonly AuthorizationMiddlewareResultHandler _framework = new();

    public async Task HandleAsync(RequestDelegate next, HttpContext context, AuthorizationPolicy policy, PolicyAuthorizationResult authorizeResult)
    {
        await _framework.HandleAsync(next, context, policy, authorizeResult);
        if ((!authorizeResult.Challenged && !authorizeResult.Forbidden) || context.Response.HasStarted)
        {
            return;
        }

        var problem = authorizeResult.Challenged
            ? Unauthenticated(sent: ApiKeyRing.Presented(context.Request) is not null, jwt.Value.IsConfigured ? jwt.Value.Authority : null)
            : TypedResults.Problem(
                statusCode: StatusCodes.Status403Forbidden,
                title: "Not allowed here",
                detail: authorizeResult.AuthorizationFailure?.FailureReasons.FirstOrDefault()?.Message ?? "This caller may not use this gateway.");
        await problem.ExecuteAsync(context);
    }

    /// <summary>The 401: no key sent, or one that was not accepted (never quoted), and how to send one.</summary>
    public static ProblemHttpResult Unauthenticated(bool sent, string? authority = null) =>
        TypedResults.Problem(
            statusCode: StatusCodes.Status401Unauthorized,
            title: "This gateway needs a key",
            detail: (sent ? "The key or token sent was not accepted" : "No key was sent") +
                ": this gateway listens beyond loopback, so every route but /health and /metrics (reading runs and targets too) needs one of its API keys as " +
                $"'Authorization: Bearer <key>' or '{ApiKeyAuthentication.HeaderName}: <key>' (on the page, the key field at the top)" +
                (authority is null ? "" : $", or a JWT from {authority} as 'Authorization: Bearer <token>'") + ".");
}
