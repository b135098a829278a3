using System.Security.Claims;
using System.Security.Cryptography;
using System.Text;
using System.Text.Encodings.Web;
using Microsoft.AspNetCore.Authentication;
using Microsoft.Extensions.Options;
using Microsoft.Net.Http.Headers;

namespace ApiGateway.Security;

/// <summary>The configured API keys, kept as SHA-256 digests so a presented key is compared in constant time whatever its length.</summary>
public sealed class ApiKeyRing
{
    private readonly (string Name, byte[] Digest)[] _keys;

    public ApiKeyRing(IOptions<AuthOptions> options) : this(options.Value.ApiKeys)
    {
    }

    public ApiKeyRing(IReadOnlyDictionary<string, string> keys) =>
        _keys = [.. keys.Select(key => (key.Key, SHA256.HashData(Encoding.UTF8.GetBytes((key.Value ?? "").Trim()))))];

    public int Count => _keys.Length;

    /// <summary>The name of the key <paramref name="presented"/> is, or null; every key is compared, so the time says nothing of which one came close.</summary>
    public string? Find(string presented)
    {
        Span<byte> digest = stackalloc byte[SHA256.HashSizeInBytes];
        SHA256.HashData(Encoding.UTF8.GetBytes(presented.Trim()), digest);
        string? found = null;
        foreach (var (name, key) in _keys)
        {
            if (CryptographicOperations.FixedTimeEquals(digest, key))
            {
                found ??= name;
            }
        }

        return found;
    }

    /// <summary>What the request presents as a key: <c>X-Api-Key</c>, else the token of <c>Authorization: Bearer</c>; null for neither.</summary>
    public static string? Presented(HttpRequest request)
    {
        if (request.Headers[ApiKeyAuthentication.HeaderName] is [{ Length: > 0 } key, ..])
        {
            return key;
        }

        var authorization = request.Headers.Authorization.ToString();
        return authorization.StartsWith("Bearer ", StringComparison.OrdinalIgnoreCase) ? authorization["Bearer ".Length..].Trim() : null;
    }
}

/// <summary>
/// ASP.NET Core authentication by one of the configured API keys: the caller is the key's name (never the key), and a
/// challenge is a 401 whose WWW-Authenticate asks for a bearer token.
/// </summary>
public sealed class ApiKeyAuthentication(IOptionsMonitor<AuthenticationSchemeOptions> options, ILoggerFactory logger, UrlEncoder encoder, ApiKeyRing keys)
    : AuthenticationHandler<AuthenticationSchemeOptions>(options, logger, encoder)
{
    public const string SchemeName = "ApiKey";
    public const string HeaderName = "X-Api-Key";

    protected override Task<AuthenticateResult> HandleAuthenticateAsync()
    {
        if (ApiKeyRing.Presented(Request) is not { } presented)
        {
            return Task.FromResult(AuthenticateResult.NoResult());
        }

        if (keys.Find(presented) is not { } name)
        {
            return Task.FromResult(AuthenticateResult.Fail("The key sent is none of the gateway's Auth:ApiKeys."));
        }

        var identity = new ClaimsIdentity([new Claim(ClaimTypes.Name, name)], SchemeName);
        return Task.FromResult(AuthenticateResult.Success(new AuthenticationTicket(new ClaimsPrincipal(identity), SchemeName)));
    }

    protected override Task HandleChallengeAsync(AuthenticationProperties properties)
    {
        Response.StatusCode = StatusCodes.Status401Unauthorized;
        Response.Headers.Append(HeaderNames.WWWAuthenticate, "Bearer realm=\"ApiGateway\"");
        return Task.CompletedTask;
    }
}
