using Npgsql;

namespace ApiGateway.History;

/// <summary>
/// The history in a PostgreSQL database that several gateways share: its schema is made at start, /health asks the
/// server a cheap SELECT 1, and every sentence names the server from <c>ConnectionStrings:History</c> without its password.
/// </summary>
public sealed class PostgresHistoryBackend(RunStore postgres) : IHistoryBackend
{
    public IRunStore Store => postgres;

    public string Location => postgres.Database.Location;

    public string Setting => $"{HistoryOptions.ConnectionStringKey} ({postgres.Database.Connection})";

    public string StartRemedy =>
        $"Point {HistoryOptions.ConnectionStringKey} at a PostgreSQL server that is up and lets this user create tables in its database (or holds the history's tables already).";

    public string WriteRemedy => $"Check that the PostgreSQL server of {HistoryOptions.ConnectionStringKey} is up and takes this user's writes, then try again.";

    public Task InitializeAsync() => postgres.InitializeAsync();

    public async Task<string?> ProbeAsync(TimeSpan wait, CancellationToken cancellationToken)
    {
        try
        {
            await postgres.Database.ProbeAsync(wait, cancellationToken);
            return null;
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            return $"The history {Location} did not answer SELECT 1 within {wait.TotalSeconds:0.#} s.";
        }
        catch (Exception refused) when (refused is NpgsqlException or TimeoutException)
        {
            return $"The history {Location} cannot be reached: {HistorySetup.OneLine(refused)}.";
        }
    }
}
