using GrpcBestPractices.ServiceDefaults;
using Microsoft.Data.Sqlite;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;

namespace ApiGateway.History;

public static partial class HistorySetup
{
    public static WebApplicationBuilder AddRunHistory(this WebApplicationBuilder builder)
    {
        builder.Services.AddOptions<HistoryOptions>()
            .BindConfiguration(HistoryOptions.Section)
            .ValidateDataAnnotations()
            .ValidateOnStart();
        builder.Services.AddSingleton(services =>
        {
            var options = services.GetRequiredService<IOptions<HistoryOptions>>().Value;
            return new SqliteRunStore(
                options.GetFullPath(services.GetRequiredService<IHostEnvironment>().ContentRootPath), TimeSpan.FromSeconds(options.WriteWaitSeconds));
        });
        builder.Services.TryAddSingleton(TimeProvider.System);
        builder.Services.AddSingleton(services => new DurableRunStore(
            services.GetRequiredService<SqliteRunStore>(), services.GetRequiredService<TimeProvider>(), services.GetRequiredService<ILogger<DurableRunStore>>()));
        builder.Services.AddSingleton<IRunStore>(services => services.GetRequiredService<DurableRunStore>());
        builder.Services.AddHealthChecks().AddCheck<HistoryHealthCheck>(HistoryHealthCheck.Name);
        return builder;
    }

    /// <summary>
    /// Opens the history before the gateway listens, so an unusable file ends the app with one line naming
    /// the key and exit code 2, not with runs that are silently never stored. Then marks runs cut off by the last stop.
    /// </summary>
    public static async Task<WebApplication> EnsureHistoryWritableAsync(this WebApplication app)
    {
        var store = app.Services.GetRequiredService<SqliteRunStore>();
        try
        {
            CreateFolderOf(store.DatabasePath);
            await store.InitializeAsync();
            LogHistoryOpened(app.Logger, store.DatabasePath, await store.MarkInterruptedAsync());
        }
        catch (Exception unusable) when (unusable is SqliteException or IOException or UnauthorizedAccessException or InvalidDataException)
        {
            ServiceDefaultsExtensions.ExitWithInvalidConfiguration(
                $"{HistoryOptions.Section}:{nameof(HistoryOptions.DatabasePath)} '{store.DatabasePath}' cannot be used: {unusable.Message.TrimEnd('.')}. " +
                $"Point {HistoryOptions.Section}:{nameof(HistoryOptions.DatabasePath)} at a writable file.");
        }

        return app;
    }

    private static void CreateFolderOf(string databasePath)
    {
        try
        {
            Directory.CreateDirectory(Path.GetDirectoryName(databasePath) ?? databasePath);
        }
        catch (IOException cannot)
        {
            // .NET's own message ("The file '/x' already exists") does not say it was about the folder.
            throw new IOException($"its folder cannot be created ({cannot.Message.TrimEnd('.')})", cannot);
        }
    }

    [LoggerMessage(Level = LogLevel.Information, Message = "Run history in {DatabasePath}; marked {Interrupted} runs and suites left Running by the last stop as Failed")]
    private static partial void LogHistoryOpened(ILogger logger, string databasePath, int interrupted);
}
