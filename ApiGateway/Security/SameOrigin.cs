using ApiGateway.OpenApi;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.AspNetCore.HostFiltering;
using Microsoft.Extensions.Primitives;

namespace ApiGateway.Security;

/// <summary>
/// What keeps another web page from driving the gateway: routes that start, cancel or delete work answer only the
/// gateway's own page and clients that are no page at all (curl, scripts, the CLI), and only the host names configured
/// in AllowedHosts are answered (a DNS-rebinding page reaches the gateway under a name of its own).
/// </summary>
public static class SameOrigin
{
    /// <summary>
    /// Marks a route as one that does work: a request another site's page sent is a 403 problem, and the document says so.
    /// (Beyond loopback it needs the key as every route does: <see cref="WorkAccess"/>.)
    /// </summary>
    public static RouteHandlerBuilder SameOriginOnly(this RouteHandlerBuilder route) =>
        route.AddEndpointFilter(async (context, next) =>
                ForeignSender(context.HttpContext.Request) is { } sender ? Refused(context.HttpContext.Request, sender) : await next(context))
            .ProducesProblem(Refused("http://127.0.0.1:5080", "https://example.com"));

    /// <summary>
    /// Who sent a request from another origin, or null when it is ours: browsers say so in Sec-Fetch-Site (same-site
    /// is another origin too, e.g. another port), and in Origin on every POST and DELETE; a client that is no page sends neither.
    /// </summary>
    public static string? ForeignSender(HttpRequest request)
    {
        var origin = request.Headers.Origin.ToString();
        if (origin.Length > 0 && !IsOwnOrigin(request, origin))
        {
            return origin;
        }

        var site = request.Headers["Sec-Fetch-Site"].ToString();
        return site.Length == 0 || site is "same-origin" or "none" ? null : $"a {site} page";
    }

    private static bool IsOwnOrigin(HttpRequest request, string origin) =>
        Uri.TryCreate(origin, UriKind.Absolute, out var sender)
        && Uri.TryCreate($"{request.Scheme}://{request.Host}", UriKind.Absolute, out var own)
        && Uri.Compare(sender, own, UriComponents.SchemeAndServer, UriFormat.Unescaped, StringComparison.OrdinalIgnoreCase) == 0;

    public static ProblemHttpResult Refused(HttpRequest request, string sender) => Refused($"{request.Scheme}://{request.Host}", sender);

    private static ProblemHttpResult Refused(string own, string sender) =>
        TypedResults.Problem(
            statusCode: StatusCodes.Status403Forbidden,
            title: "Another site's page may not do this",
            detail: $"This route starts, cancels or deletes work, so it answers only the gateway's own page at {own} and clients " +
                $"that are not web pages (curl, scripts, the CLI); this request came from {sender}.");

    /// <summary>
    /// The host names the gateway answers: AllowedHosts (';'-separated, '*' for any, as ASP.NET Core reads it), by default
    /// the loopback names and the hosts it listens on. A request under another name is a 400 problem that names it.
    /// </summary>
    public static WebApplicationBuilder AddAllowedHosts(this WebApplicationBuilder builder)
    {
        var configured = builder.Configuration["AllowedHosts"];
        List<string> hosts = string.IsNullOrWhiteSpace(configured)
            ? [.. new[] { "localhost", "127.0.0.1", "[::1]" }.Concat(ListenHosts(builder.Configuration["urls"])).Distinct(StringComparer.OrdinalIgnoreCase)]
            : [.. configured.Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)];
        builder.Services.AddSingleton(new AllowedHosts(hosts));
        // ASP.NET Core's own host filter answers an empty 400 before any middleware of ours; this one answers with a sentence instead.
        builder.Services.PostConfigure<HostFilteringOptions>(options => options.AllowedHosts = ["*"]);
        return builder;
    }

    public static WebApplication UseAllowedHosts(this WebApplication app)
    {
        var allowed = app.Services.GetRequiredService<AllowedHosts>();
        if (allowed.Hosts.Contains("*"))
        {
            return app;
        }

        var patterns = allowed.Hosts.Select(host => new StringSegment(host)).ToList();
        app.Use(async (http, next) =>
        {
            var host = http.Request.Host;
            // HTTP/1.0 sends no Host; a browser always does.
            if (!host.HasValue || HostString.MatchesAny(host.Host, patterns))
            {
                await next(http);
                return;
            }

            var problem = TypedResults.Problem(
                statusCode: StatusCodes.Status400BadRequest,
                title: "Unknown host name",
                detail: $"This gateway answers as {string.Join(", ", allowed.Hosts)}, not '{host.Host}'; " +
                    "set AllowedHosts (';'-separated) to the names clients use to reach it.");
            await problem.ExecuteAsync(http);
        });
        return app;
    }

    private static IEnumerable<string> ListenHosts(string? urls) =>
        (urls ?? "").Split(';', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
            .Select(url => Uri.TryCreate(url.Replace("://*", "://wildcard", StringComparison.Ordinal).Replace("://+", "://wildcard", StringComparison.Ordinal), UriKind.Absolute, out var uri) ? uri : null)
            .Where(uri => uri is not null && uri.Host != "wildcard" && uri.Host != "0.0.0.0" && uri.Host != "[::]")
            .Select(uri => uri!.Host);
}

/// <summary>The host names the gateway answers, worked out once at start.</summary>
public sealed record AllowedHosts(IReadOnlyList<string> Hosts);
