using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Serilog;
using Serilog.Events;

namespace GrpcBestPractices.ServiceDefaults;

/// <summary>
/// What PerformanceService and ApiGateway do the same way at start (eShop's ServiceDefaults is the model):
/// Serilog from configuration, request logging, a loopback default address, one exit for a bad setting.
/// </summary>
public static class ServiceDefaultsExtensions
{
    private const string HostingDiagnostics = "Microsoft.AspNetCore.Hosting.Diagnostics";
    private const string OutputTemplate = "[{Timestamp:HH:mm:ss.fff} {Level:u3}] {Application} {SourceContext}: {Message:lj}{NewLine}{Exception}";

    /// <summary>
    /// The first stage of Serilog's two-stage start: a console logger for what happens before configuration is read.
    /// <see cref="AddServiceDefaults"/> replaces it with the one the "Serilog" section describes.
    /// </summary>
    public static void CreateBootstrapLogger(string application) =>
        Log.Logger = new LoggerConfiguration()
            .MinimumLevel.Override("Microsoft", LogEventLevel.Warning)
            .Enrich.WithProperty("Application", application)
            .WriteTo.Console(outputTemplate: OutputTemplate, formatProvider: System.Globalization.CultureInfo.InvariantCulture)
            .CreateBootstrapLogger();

    /// <summary>Serilog from the "Serilog" section, and listening on <paramref name="defaultUrl"/> unless an address is configured.</summary>
    public static WebApplicationBuilder AddServiceDefaults(this WebApplicationBuilder builder, string application, string defaultUrl)
    {
        ExitOnInvalidSerilogSection(builder.Configuration);
        builder.Services.AddSerilog((services, logger) => logger
            .ReadFrom.Configuration(builder.Configuration)
            .ReadFrom.Services(services)
            .Enrich.WithProperty("Application", application)
            // While this category is enabled at all, ASP.NET Core makes an Activity and a log scope for every request
            // (measured on the service: 2 413 B allocated per unary call with it, 1 404 B without). Its only lines are
            // "Request starting/finished"; Serilog's levels stop at Fatal, so only code can turn it off.
            .MinimumLevel.Override(HostingDiagnostics, LevelAlias.Off)
            // Under SIGSTOP/SIGCONT a service wrote 12 700 error entries with stack traces in 5 s, most of them clients that had gone.
            .Filter.With(new QuietErrors(() => Log.Logger)));
        // Listen on loopback unless --urls, ASPNETCORE_URLS, ASPNETCORE_HTTP_PORTS or a Kestrel section says otherwise.
        if (string.IsNullOrWhiteSpace(builder.Configuration["urls"] ?? builder.Configuration["http_ports"] ?? builder.Configuration["https_ports"]))
        {
            builder.WebHost.UseUrls(defaultUrl);
        }

        return builder;
    }

    // A bad "Serilog" section would otherwise end the app with a stack trace when its first logger is made.
    private static void ExitOnInvalidSerilogSection(IConfiguration configuration)
    {
        try
        {
            new LoggerConfiguration().ReadFrom.Configuration(configuration).CreateLogger().Dispose();
        }
        catch (Exception invalid) when (invalid is InvalidOperationException or ArgumentException or FormatException)
        {
            ExitWithInvalidConfiguration($"the Serilog section cannot be used: {invalid.Message}");
        }
    }

    /// <summary>
    /// Serilog.AspNetCore's request logging: one line per request at <paramref name="level"/>; a failure of the app's own
    /// (an exception, a 500) at Error, and an answer that reports someone else's failure (a 503, say) at Warning.
    /// When that level is off at start, the middleware is left out, so a request costs nothing for it.
    /// </summary>
    public static WebApplication UseRequestLogging(this WebApplication app, LogEventLevel level = LogEventLevel.Information)
    {
        var logger = app.Services.GetRequiredService<ILoggerFactory>().CreateLogger("Serilog.AspNetCore.RequestLoggingMiddleware");
        // Serilog's levels and Microsoft's share their numbers, Verbose = Trace to Fatal = Critical.
        if (!logger.IsEnabled((LogLevel)level))
        {
            return app;
        }

        app.UseSerilogRequestLogging(options => options.GetLevel = (http, _, error) => http.Response.StatusCode switch
        {
            _ when error is not null => LogEventLevel.Error,
            StatusCodes.Status500InternalServerError => LogEventLevel.Error,
            > StatusCodes.Status500InternalServerError => LogEventLevel.Warning,
            _ => level,
        });
        return app;
    }

    /// <summary>A typed setting bound from <paramref name="section"/>, its data annotations checked at start (see <see cref="ExitOnInvalidConfiguration"/>).</summary>
    public static OptionsBuilder<T> AddValidatedOptions<T>(this IServiceCollection services, string section)
        where T : class =>
        services.AddOptions<T>().BindConfiguration(section).ValidateDataAnnotations().ValidateOnStart();

    /// <summary>
    /// The options, or null when they are invalid. Kestrel reads its options while the app is built, before
    /// <see cref="ExitOnInvalidConfiguration"/> can report a bad setting in one line; so a bad setting leaves Kestrel's
    /// defaults (or binds no listener) there and is reported (exit code 2) right after.
    /// </summary>
    public static T? ValidOrNull<T>(this IOptions<T> options)
        where T : class
    {
        try
        {
            return options.Value;
        }
        catch (Exception invalid) when (invalid is OptionsValidationException or InvalidOperationException)
        {
            return null;
        }
    }

    /// <summary>
    /// Runs the options validators registered with ValidateOnStart now, before anything reads options: a bad
    /// setting ends the app with one line naming the key and exit code 2, not a stack trace.
    /// </summary>
    public static WebApplication ExitOnInvalidConfiguration(this WebApplication app)
    {
        try
        {
            app.Services.GetService<IStartupValidator>()?.Validate();
        }
        catch (OptionsValidationException invalid)
        {
            ExitWithInvalidConfiguration(string.Join(" ", invalid.Failures));
        }
        catch (InvalidOperationException unbindable)
        {
            // The binder's own message names the key and the value it could not convert.
            ExitWithInvalidConfiguration(unbindable.Message);
        }

        return app;
    }

    /// <summary>The apps' one convention for a setting that cannot work: one line on stderr naming it, exit code 2.</summary>
    public static void ExitWithInvalidConfiguration(string problem)
    {
        Console.Error.WriteLine($"Invalid configuration: {problem}");
        Log.CloseAndFlush();
        Environment.Exit(2);
    }
}
