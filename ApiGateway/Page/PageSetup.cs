namespace ApiGateway.Page;

/// <summary>The chart page in wwwroot, served at "/", and the security headers every answer of the gateway carries.</summary>
public static class PageSetup
{
    /// <summary>Only the gateway's own origin: the page loads nothing from the internet, and no injected script or style runs.</summary>
    public const string ContentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; " +
        "object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'";

    // Swagger UI applies inline styles (Chromium blocks them under style-src 'self'), so /swagger alone allows
    // inline styles; its scripts stay 'self' only, like everywhere else.
    public const string SwaggerContentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self'; " +
        "object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'";

    public static WebApplication UseDashboardPage(this WebApplication app)
    {
        app.Use(static (context, next) =>
        {
            // Set when the answer starts, so error pages written after an exception (which clear headers) carry them too.
            context.Response.OnStarting(static state =>
            {
                var http = (HttpContext)state;
                var headers = http.Response.Headers;
                headers.ContentSecurityPolicy = http.Request.Path.StartsWithSegments("/swagger") ? SwaggerContentSecurityPolicy : ContentSecurityPolicy;
                headers.XContentTypeOptions = "nosniff";
                headers["Referrer-Policy"] = "no-referrer";
                return Task.CompletedTask;
            }, context);
            return next(context);
        });
        app.UseDefaultFiles();
        app.UseStaticFiles();
        return app;
    }
}
