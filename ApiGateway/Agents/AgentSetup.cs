using HistoryStore;
using ApiGateway.History;
using GrpcBestPractices.ServiceDefaults;

namespace ApiGateway.Agents;

public static class AgentSetup
{
    /// <summary>Distributed runs meet their agents in the run history's own database (the SQLite file, or PostgreSQL), over its connections.</summary>
    public static WebApplicationBuilder AddAgentRuns(this WebApplicationBuilder builder)
    {
        builder.Services.AddValidatedOptions<AgentOptions>(AgentOptions.Section);
        // Both stores dispose the database at shutdown, and a data source takes a second Dispose as a no-op.
        builder.Services.AddSingleton(services => new RunAgentStore(services.GetRequiredService<RunStore>().Database));
        builder.Services.AddSingleton<AgentRuns>();
        return builder;
    }

    /// <summary>Creates the agents' two tables if they are missing, after the history itself opened.</summary>
    public static async Task<WebApplication> EnsureAgentTablesAsync(this WebApplication app)
    {
        var store = app.Services.GetRequiredService<RunAgentStore>();
        try
        {
            await store.EnsureSchemaAsync();
        }
        catch (Exception unusable) when (RunAgentStore.IsStoreFailure(unusable))
        {
            ServiceDefaultsExtensions.ExitWithInvalidConfiguration(
                $"The agents' tables could not be created in {store.Description}: {unusable.Message.TrimEnd('.')}. Check the History settings.");
        }

        return app;
    }
}
