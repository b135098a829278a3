using System.Diagnostics;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Serilog;
using ILogger = Microsoft.Extensions.Logging.ILogger;

namespace GrpcDependencies.Hosting;

/// <summary>Start-up pieces both apps share: Serilog from configuration, request logging, a loopback default address.</summary>
public static partial class HostingExtensions
{
    /// <summary>
    /// Let the shared ArrayPool keep enough buffers for many HTTP/2 streams at once. SocketsHttpHandler buffers
    /// each stream's response in 16 KB blocks from that pool; at 100 calls in flight the default 32 arrays per
    /// partition overflowed and every miss allocated a fresh block (measured: 10.9 KB allocated per call and
    /// 66k calls/s, against 4.7 KB and 87k with 256). The runtime reads this setting only from the environment,
    /// once, when the pool is first used, so this must run first thing in Main; a value the user set wins.
    /// </summary>
    public static void SizeSharedArrayPoolForConcurrentStreams(int arraysPerPartition = 256)
    {
        const string Variable = "DOTNET_SYSTEM_BUFFERS_SHAREDARRAYPOOL_MAXARRAYSPERPARTITION";
        if (string.IsNullOrEmpty(Environment.GetEnvironmentVariable(Variable)))
        {
            Environment.SetEnvironmentVariable(Variable, arraysPerPartition.ToString(System.Globalization.CultureInfo.InvariantCulture));
        }
    }

    /// <summary>
    /// Serilog configured from the "Serilog" section. Serilog.AspNetCore is not served by this machine's
    /// package registry, so this wires its parts (Serilog.Extensions.Logging, Serilog.Settings.Configuration) directly.
    /// </summary>
    public static WebApplicationBuilder AddSerilogLogging(this WebApplicationBuilder builder)
    {
        var logger = new LoggerConfiguration().ReadFrom.Configuration(builder.Configuration).CreateLogger();
        builder.Logging.ClearProviders();
        // Let Serilog's MinimumLevel decide; Microsoft's filter would otherwise drop Debug before Serilog sees it.
        builder.Logging.SetMinimumLevel(LogLevel.Trace);
        builder.Logging.AddSerilog(logger, dispose: true);
        return builder;
    }

    /// <summary>Listen on loopback unless --urls, ASPNETCORE_URLS, ASPNETCORE_HTTP_PORTS or a Kestrel section says otherwise.</summary>
    public static WebApplicationBuilder UseLoopbackByDefault(this WebApplicationBuilder builder, string defaultUrl)
    {
        var configured = builder.Configuration["urls"] ?? builder.Configuration["http_ports"] ?? builder.Configuration["https_ports"];
        if (string.IsNullOrWhiteSpace(configured))
        {
            builder.WebHost.UseUrls(defaultUrl);
        }

        return builder;
    }

    /// <summary>
    /// Runs the options validators registered with ValidateOnStart now, before anything reads options: a bad
    /// setting ends the app with one line naming the key and exit code 2, not a stack trace.
    /// </summary>
    public static WebApplication ExitOnInvalidConfiguration(this WebApplication app)
    {
        try
        {
            (app.Services.GetService(typeof(IStartupValidator)) as IStartupValidator)?.Validate();
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
        Environment.Exit(2);
    }

    /// <summary>One line per request, in the template Serilog.AspNetCore's request logging uses.</summary>
    public static IApplicationBuilder UseRequestLogging(this IApplicationBuilder app, LogLevel level = LogLevel.Information)
    {
        var logger = app.ApplicationServices.GetService(typeof(ILoggerFactory)) is ILoggerFactory factory
            ? factory.CreateLogger("RequestLogging")
            : throw new InvalidOperationException("Logging is not registered.");
        // Off at start means off: no per-request cost at all (the service logs calls at Debug only).
        if (!logger.IsEnabled(level))
        {
            return app;
        }

        return app.Use(async (http, next) =>
        {
            var start = Stopwatch.GetTimestamp();
            try
            {
                await next(http);
            }
            finally
            {
                if (logger.IsEnabled(level))
                {
                    var status = http.RequestAborted.IsCancellationRequested ? 499 : http.Response.StatusCode;
                    LogRequest(logger, level, http.Request.Method, http.Request.Path, status, Stopwatch.GetElapsedTime(start).TotalMilliseconds);
                }
            }
        });
    }

    [LoggerMessage(Message = "HTTP {RequestMethod} {RequestPath} responded {StatusCode} in {Elapsed:0.0000} ms")]
    private static partial void LogRequest(ILogger logger, LogLevel level, string requestMethod, PathString requestPath, int statusCode, double elapsed);
}
