using Microsoft.Extensions.Options;

namespace ApiGateway.Security;

/// <summary>
/// Who may use the gateway (read runs and targets, start, cancel or delete work) when it listens beyond loopback. Section
/// <c>Auth</c>. On loopback none of it is needed: only this machine reaches the gateway.
/// </summary>
public sealed class AuthOptions
{
    public const string Section = "Auth";

    /// <summary>The shortest key accepted: 16 characters of <c>openssl rand -base64 32</c>'s 44 are already beyond guessing.</summary>
    public const int ShortestKey = 16;

    /// <summary>
    /// The API keys, by a name of the operator's choosing (<c>Auth:ApiKeys:ci</c>); a JSON array works too (its names are
    /// 0, 1, …). A caller sends one as <c>Authorization: Bearer &lt;key&gt;</c> or <c>X-Api-Key: &lt;key&gt;</c>.
    /// </summary>
    public Dictionary<string, string> ApiKeys { get; set; } = [];

    /// <summary>Leaves every route open to anyone who reaches the gateway beyond loopback: said by name, and warned of at start.</summary>
    public bool AllowAnonymousBeyondLoopback { get; set; }

    /// <summary>A role a JWT caller must have for any route beyond loopback (403 without it); API keys are granted by the operator and need none.</summary>
    public string? RequiredRole { get; set; }
}

/// <summary>
/// JWT bearer tokens from the team's identity provider. Section <c>Auth:Jwt</c>, which is bound onto ASP.NET Core's
/// JwtBearerOptions as it stands (so any of their settings applies); these are the ones checked at start.
/// </summary>
public sealed class JwtAuthOptions
{
    public const string Section = "Auth:Jwt";

    /// <summary>The OpenID Connect issuer, whose discovery document names its signing keys.</summary>
    public string? Authority { get; set; }

    /// <summary>The audience a token must be issued for (the gateway's API in the identity provider).</summary>
    public string? Audience { get; set; }

    /// <summary>False only for an authority on plain HTTP (a test identity provider on loopback).</summary>
    public bool RequireHttpsMetadata { get; set; } = true;

    public bool IsConfigured => !string.IsNullOrWhiteSpace(Authority);
}

/// <summary>
/// The rules across keys at start, each broken one a sentence that names its key: keys long enough, a JWT authority with
/// its audience, and above all, no gateway open beyond loopback unless a setting says so by name.
/// </summary>
public sealed class WorkAccessValidation(ListenAddresses listening, IOptions<JwtAuthOptions> jwtOptions) : IValidateOptions<AuthOptions>
{
    public ValidateOptionsResult Validate(string? name, AuthOptions options)
    {
        var jwt = jwtOptions.Value;
        var failures = new List<string>();
        foreach (var (keyName, key) in options.ApiKeys)
        {
            // The key's length, never the key: this sentence is printed.
            if ((key ?? "").Trim().Length < AuthOptions.ShortestKey)
            {
                failures.Add($"{AuthOptions.Section}:ApiKeys:{keyName} is {(key ?? "").Trim().Length} characters long; an API key needs at least {AuthOptions.ShortestKey} (openssl rand -base64 32 makes one).");
            }
        }

        if (!string.IsNullOrWhiteSpace(jwt.Audience) && !jwt.IsConfigured)
        {
            failures.Add($"{JwtAuthOptions.Section}:Audience is set without {JwtAuthOptions.Section}:Authority; set the identity provider's issuer URL there too.");
        }

        if (jwt.IsConfigured)
        {
            if (!Uri.TryCreate(jwt.Authority, UriKind.Absolute, out var authority) || authority.Scheme is not ("https" or "http"))
            {
                failures.Add($"{JwtAuthOptions.Section}:Authority must be the identity provider's issuer URL (https://…), not '{jwt.Authority}'.");
            }
            else if (authority.Scheme == "http" && jwt.RequireHttpsMetadata)
            {
                failures.Add($"{JwtAuthOptions.Section}:Authority {authority} is plain HTTP; use https://, or set {JwtAuthOptions.Section}:RequireHttpsMetadata=false for a test identity provider.");
            }

            if (string.IsNullOrWhiteSpace(jwt.Audience))
            {
                failures.Add($"{JwtAuthOptions.Section}:Audience is required with {JwtAuthOptions.Section}:Authority: the audience the gateway's tokens are issued for.");
            }
        }

        if (!string.IsNullOrWhiteSpace(options.RequiredRole) && !jwt.IsConfigured)
        {
            failures.Add($"{AuthOptions.Section}:RequiredRole applies to JWT callers only (API keys need no role); set {JwtAuthOptions.Section}:Authority or remove it.");
        }

        if (listening.BeyondLoopback.Count > 0 && options.ApiKeys.Count == 0 && !jwt.IsConfigured && !options.AllowAnonymousBeyondLoopback)
        {
            failures.Add(WorkAccess.OpenBeyondLoopback(listening.BeyondLoopback));
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }
}
