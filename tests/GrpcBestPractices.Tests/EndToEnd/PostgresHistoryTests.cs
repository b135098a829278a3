using System.Net;
using HistoryStore;
using ApiGateway.History;
using ApiGateway.Runs;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>The real gateway with its history in PostgreSQL: shared by two gateways, refused at start, lost while it runs.</summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class PostgresHistoryTests(SystemFixture system, PostgresServer postgres) : IClassFixture<PostgresServer>
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(60);

    [Fact]
    public async Task ARunOneGatewayStoresInPostgresIsSeenByASecondGatewayOnTheSameDatabase()
    {
        var history = await postgres.CreateDatabaseAsync("shared_" + Guid.NewGuid().ToString("N"));
        await using var first = await StartGatewayAsync(history);
        using var firstHttp = new HttpClient { BaseAddress = first.BaseAddress, Timeout = Patience };

        var id = (await firstHttp.StartRunAsync("""{"strategy": "client-wrapper", "count": 20}""")).GetProperty("id").GetString()!;
        var ended = await firstHttp.WaitUntilFinishedAsync($"/api/runs/{id}", Patience);

        Assert.Equal("Completed", ended.GetProperty("state").GetString());
        // The gateway answers an ended run from its memory while the history writes it (DurableRunStore): wait for the row.
        using (var store = new RunStore(HistoryDatabase.OpenPostgres(history)))
        {
            var deadline = DateTime.UtcNow + Patience;
            var stored = await store.GetAsync(Guid.Parse(id));
            while (stored?.State != RunState.Completed && DateTime.UtcNow < deadline)
            {
                await Task.Delay(50);
                stored = await store.GetAsync(Guid.Parse(id));
            }

            Assert.Equal((RunState.Completed, 20L), stored is { } row ? (row.State, row.Stats!.Calls) : default);
        }

        await using var second = await StartGatewayAsync(history);
        using var secondHttp = new HttpClient { BaseAddress = second.BaseAddress, Timeout = Patience };
        var seen = await secondHttp.GetJsonAsync($"/api/runs/{id}");
        Assert.Equal(ended.GetProperty("stats").GetRawText(), seen.GetProperty("stats").GetRawText());
        Assert.Contains(id, (await secondHttp.GetJsonAsync("/api/runs")).GetProperty("runs").EnumerateArray().Select(run => run.GetProperty("id").GetString()));
        using var health = await secondHttp.GetAsync("/health");
        Assert.Equal(HttpStatusCode.OK, health.StatusCode);
        Assert.EndsWith($"on 127.0.0.1:{postgres.Port} is present and writable.", (await health.ReadJsonAsync()).GetProperty("checks")[0].GetProperty("description").GetString());
        Assert.DoesNotContain(postgres.Password, first.Output + second.Output);
    }

    [Fact]
    public async Task AnUnreachablePostgresStopsTheGatewayAtStartWithOneLineNamingTheKeyAndNeverThePassword()
    {
        var port = Ports.Unused();
        const string password = "Do-not-print-me-7731";

        await using var gateway = await AppProcess.RunToExitAsync(
            "ApiGateway",
            ["--urls", "http://127.0.0.1:0", "--History:Provider", "Postgres", "--ConnectionStrings:History", $"Host=127.0.0.1;Port={port};Database=history;Username=gateway;Password={password}"],
            Patience);

        Assert.Equal(2, gateway.ExitCode);
        var line = Assert.Single(gateway.Output.Split('\n'), line => line.Contains("Invalid configuration", StringComparison.Ordinal));
        Assert.StartsWith(
            $"Invalid configuration: ConnectionStrings:History (Host=127.0.0.1;Port={port};Database=history;Username=gateway) cannot be used: Failed to connect to 127.0.0.1:{port}",
            line);
        Assert.Contains("Point ConnectionStrings:History at a PostgreSQL server that is up", line);
        Assert.DoesNotContain(password, gateway.Output);
        Assert.DoesNotContain("   at ", gateway.Output);
        Assert.DoesNotContain("Now listening", gateway.Output);
    }

    [Theory]
    [InlineData("MySql", "", "History:Provider must be Sqlite or Postgres; it was 'MySql'.")]
    [InlineData("Postgres", "", "ConnectionStrings:History is required with History:Provider Postgres")]
    [InlineData("postgres", "Host=127.0.0.1;Port=five", "ConnectionStrings:History is not a PostgreSQL connection string: Couldn't set port")]
    public async Task AHistoryProviderThatCannotWorkStopsTheGatewayAtStartNamingTheKey(string provider, string connectionString, string expected)
    {
        await using var gateway = await AppProcess.RunToExitAsync(
            "ApiGateway", ["--urls", "http://127.0.0.1:0", "--History:Provider", provider, "--ConnectionStrings:History", connectionString], Patience);

        Assert.Equal(2, gateway.ExitCode);
        var line = Assert.Single(gateway.Output.Split('\n'), line => line.StartsWith("Invalid configuration: ", StringComparison.Ordinal));
        Assert.Contains(expected, line);
        Assert.DoesNotContain("Now listening", gateway.Output);
    }

    [Fact]
    public async Task APostgresThatGoesAwayMakesReadsAndNewRunsA503AndHealthUnhealthyNamingIt()
    {
        await using var doomed = await PostgresServer.StartAsync();
        var history = await doomed.CreateDatabaseAsync("doomed");
        await using var gateway = await StartGatewayAsync(history);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = Patience };
        Assert.Equal(HttpStatusCode.OK, (await http.GetAsync("/api/runs")).StatusCode);

        await doomed.StopAsync();

        var where = $"PostgreSQL database 'doomed' on 127.0.0.1:{doomed.Port}";
        using var list = await http.GetAsync("/api/runs");
        Assert.Equal(HttpStatusCode.ServiceUnavailable, list.StatusCode);
        var problem = await SystemFixture.ReadProblemAsync(list);
        Assert.Equal("The run history could not be read or written", problem.GetProperty("title").GetString());
        Assert.StartsWith($"The run history {where} answered: ", problem.GetProperty("detail").GetString());
        using var start = await http.PostJsonAsync("/api/runs", """{"strategy": "client-wrapper", "count": 5}""");
        Assert.Equal(HttpStatusCode.ServiceUnavailable, start.StatusCode);
        Assert.Contains("Check that the PostgreSQL server of ConnectionStrings:History is up", (await SystemFixture.ReadProblemAsync(start)).GetRawText());
        using var health = await http.GetAsync("/health");
        Assert.Equal(HttpStatusCode.ServiceUnavailable, health.StatusCode);
        var check = (await health.ReadJsonAsync()).GetProperty("checks")[0];
        Assert.StartsWith($"The history {where} cannot be reached: ", check.GetProperty("description").GetString());
        Assert.DoesNotContain(doomed.Password, gateway.Output);
    }

    private Task<AppProcess> StartGatewayAsync(string history) =>
        AppProcess.StartAsync("ApiGateway", ["--ServerUrl", system.Service.Url, "--History:Provider", "Postgres", "--ConnectionStrings:History", history]);
}
