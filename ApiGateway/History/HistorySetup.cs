using System.Data.Common;
using HistoryStore;
using GrpcBestPractices.ServiceDefaults;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;

namespace ApiGateway.History;

public static partial class HistorySetup
{
    public static WebApplicationBuilder AddRunHistory(this WebApplicationBuilder builder)
    {
        builder.Services.AddOptions<HistoryOptions>()
            .BindConfiguration(HistoryOptions.Section)
            .Configure<IConfiguration>((options, configuration) => options.ConnectionString = configuration.GetConnectionString(HistoryOptions.ConnectionStringName))
            .ValidateDataAnnotations()
            .ValidateOnStart();
        // Only the chosen store is ever made; the container disposes it at shutdown (SQLite checkpoints its WAL, Npgsql closes its pool).
        builder.Services.AddSingleton(services =>
        {
            var options = services.GetRequiredService<IOptions<HistoryOptions>>().Value;
            return new RunStore(options.Kind == HistoryProvider.Postgres
                ? HistoryDatabase.OpenPostgres(options.ConnectionString!)
                : HistoryDatabase.OpenSqlite(options.GetFullPath(services.GetRequiredService<IHostEnvironment>().ContentRootPath), TimeSpan.FromSeconds(options.WriteWaitSeconds)));
        });
        builder.Services.AddSingleton<HistoryBackend>();
        builder.Services.TryAddSingleton(TimeProvider.System);
        builder.Services.AddSingleton(services => new DurableRunStore(
            services.GetRequiredService<RunStore>(), services.GetRequiredService<TimeProvider>(), services.GetRequiredService<ILogger<DurableRunStore>>()));
        builder.Services.AddSingleton<IRunStore>(services => services.GetRequiredService<DurableRunStore>());
        builder.Services.AddHealthChecks().AddCheck<HistoryHealthCheck>(HistoryHealthCheck.Name);
        return builder;
    }

    /// <summary>
    /// Opens the history before the gateway listens, so an unusable store ends the app with one line naming the key and
    /// exit code 2, not with runs that are silently never stored. Then marks runs cut off by the last stop.
    /// </summary>
    public static async Task<WebApplication> EnsureHistoryWritableAsync(this WebApplication app)
    {
        var history = app.Services.GetRequiredService<HistoryBackend>();
        try
        {
            await history.InitializeAsync();
            LogHistoryOpened(app.Logger, history.Location, await app.Services.GetRequiredService<RunStore>().MarkInterruptedAsync());
        }
        catch (Exception unusable) when (unusable is DbException or IOException or UnauthorizedAccessException or InvalidDataException)
        {
            ServiceDefaultsExtensions.ExitWithInvalidConfiguration($"{history.Setting} cannot be used: {OneLine(unusable)}. {history.StartRemedy}");
        }

        return app;
    }

    /// <summary>The failure and what caused it, on one line: a driver's message may span several, and its cause ("Connection refused") is often the useful part.</summary>
    public static string OneLine(Exception failure)
    {
        var message = failure.Message.TrimEnd('.');
        if (failure.InnerException is { } cause && !message.Contains(cause.Message, StringComparison.Ordinal))
        {
            message += $" ({cause.Message.TrimEnd('.')})";
        }

        return string.Join(' ', message.Split(['\r', '\n'], StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries));
    }

    [LoggerMessage(Level = LogLevel.Information, Message = "Run history in {Location}; marked {Interrupted} runs and suites left Running by the last stop as Failed")]
    private static partial void LogHistoryOpened(ILogger logger, string location, int interrupted);
}
