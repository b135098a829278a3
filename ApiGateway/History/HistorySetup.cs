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
                : HistoryDatabase.OpenSqlite(Path.GetFullPath(options.DatabasePath, services.GetRequiredService<IHostEnvironment>().ContentRootPath), TimeSpan.FromSeconds(options.WriteWaitSeconds)));
        });
        builder.Services.TryAddSingleton(TimeProvider.System);
        builder.Services.AddSingleton(services => ActivatorUtilities.CreateInstance<DurableRunStore>(services, services.GetRequiredService<RunStore>()));
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
        var history = app.Services.GetRequiredService<RunStore>();
        try
        {
            if (history.Database.SqliteFile is not null)
            {
                CreateFolder(history.Location);
            }

            await history.InitializeAsync();
            LogHistoryOpened(app.Logger, history.Location, await history.MarkInterruptedAsync());
        }
        catch (Exception unusable) when (unusable is DbException or IOException or UnauthorizedAccessException or InvalidDataException)
        {
            ServiceDefaultsExtensions.ExitWithInvalidConfiguration($"{history.Setting} cannot be used: {OneLine(unusable)}. {history.StartRemedy}");
        }

        return app;
    }

    /// <summary>Makes the SQLite file's folder, which SQLite does not.</summary>
    private static void CreateFolder(string file)
    {
        try
        {
            Directory.CreateDirectory(Path.GetDirectoryName(file) ?? file);
        }
        catch (IOException cannot)
        {
            // .NET's own message ("The file '/x' already exists") does not say it was about the folder.
            throw new IOException($"its folder cannot be created ({cannot.Message.TrimEnd('.')})", cannot);
        }
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
