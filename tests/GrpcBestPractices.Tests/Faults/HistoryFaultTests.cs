using System.Diagnostics;
using System.Net;
using System.Text.Json;
using HistoryStore;
using ApiGateway.History;
using ApiGateway.Runs;
using GrpcBestPractices.Tests.Infrastructure;
using Microsoft.Data.Sqlite;

namespace GrpcBestPractices.Tests.Faults;

/// <summary>The real gateway with a history another process locks, or that is deleted under it.</summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class HistoryFaultTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(60);

    [Fact]
    public async Task RunThatEndsWhileTheHistoryIsLockedIsServedEndedAndStoredOnceTheLockGoes()
    {
        using var folder = new TemporaryFolder();
        var path = folder.File("history.db");
        await using var service = await AppProcess.StartAsync("PerformanceService");
        await using var gateway = await StartGatewayAsync(path, service.Url);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = Patience };

        var id = (await http.StartRunAsync("""{"strategy": "client-wrapper", "count": 40, "delayMs": 25}""")).GetProperty("id").GetString()!;
        var events = ReadFinalEventAsync(http, $"/api/runs/{id}/events");
        await using (var holder = await LockAsync(path))
        {
            var ended = await http.WaitUntilFinishedAsync($"/api/runs/{id}", Patience);

            Assert.Equal("Completed", ended.GetProperty("state").GetString());
            Assert.Equal(40, ended.GetProperty("stats").GetProperty("calls").GetInt64());
            Assert.Equal("Running", await StoredStateAsync(holder, id));
            var final = await events;
            Assert.Equal("Completed", final.GetProperty("state").GetString());
            Assert.Equal(40, final.GetProperty("stats").GetProperty("calls").GetInt64());
            var listed = (await http.GetJsonAsync("/api/runs?limit=5")).GetProperty("runs").EnumerateArray().Single(run => run.GetProperty("id").GetString() == id);
            Assert.Equal("Completed", listed.GetProperty("state").GetString());
            var (status, health) = await HealthAsync(http);
            Assert.Equal(HttpStatusCode.ServiceUnavailable, status);
            Assert.Contains("could not be stored in the history", health);
            Assert.Contains(path, health);
            Assert.True(await gateway.WaitForOutputAsync(line => IsError(line) && line.Contains(id), Patience), gateway.Output);
        }

        using var history = new RunStore(HistoryDatabase.OpenSqlite(path));
        await WaitUntilAsync(async () => (await history.GetAsync(Guid.Parse(id)))?.State == RunState.Completed, "the run was never stored as Completed after the lock went");
        Assert.Equal(40, (await history.GetAsync(Guid.Parse(id)))!.Stats!.Calls);
        await WaitUntilAsync(async () => (await HealthAsync(http)).Status == HttpStatusCode.OK, "/health stayed unhealthy after the history recovered");
        Assert.Single(gateway.Output.Split('\n'), IsError);
    }

    [Fact]
    public async Task LockedHistoryRefusesANewRunWithinSecondsSayingItWasNotStarted()
    {
        using var folder = new TemporaryFolder();
        var path = folder.File("history.db");
        await using var gateway = await StartGatewayAsync(path, $"http://127.0.0.1:{Ports.Unused()}");
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = Patience };

        await using (await LockAsync(path))
        {
            foreach (var start in new Func<Task<HttpResponseMessage>>[]
            {
                () => http.GetAsync("/Performance/client-wrapper/5"),
                () => http.PostJsonAsync("/api/runs", """{"strategy": "client-wrapper", "count": 5}"""),
            })
            {
                var started = Stopwatch.GetTimestamp();
                using var response = await start();
                var waited = Stopwatch.GetElapsedTime(started);

                Assert.Equal(HttpStatusCode.ServiceUnavailable, response.StatusCode);
                var problem = await SystemFixture.ReadProblemAsync(response);
                var detail = problem.GetProperty("detail").GetString()!;
                Assert.StartsWith("The run was not started: the run history could not be written", detail);
                Assert.DoesNotContain("finished", detail);
                // The write waits 0.5 s for the lock; before, SQLite's own retries held the caller 30.7 s.
                Assert.InRange(waited, TimeSpan.Zero, TimeSpan.FromSeconds(10));
            }
        }

        Assert.Equal(0, (await http.GetJsonAsync("/api/runs")).GetProperty("total").GetInt32());
    }

    [Fact]
    public async Task ADeleteThatMeetsALockedHistoryIsA503NotA500()
    {
        using var folder = new TemporaryFolder();
        var path = folder.File("history.db");
        await using var gateway = await StartGatewayAsync(path, $"http://127.0.0.1:{Ports.Unused()}");
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = Patience };

        await using (await LockAsync(path))
        {
            using var response = await http.DeleteAsync($"/api/runs/{Guid.NewGuid()}");

            Assert.Equal(HttpStatusCode.ServiceUnavailable, response.StatusCode);
            var problem = await SystemFixture.ReadProblemAsync(response);
            Assert.Equal("The run history could not be read or written", problem.GetProperty("title").GetString());
            Assert.Contains("database is locked", problem.GetProperty("detail").GetString());
        }

        // Once the lock is gone the same request is answered as usual.
        using var after = await http.DeleteAsync($"/api/runs/{Guid.NewGuid()}");
        Assert.Equal(HttpStatusCode.NotFound, after.StatusCode);
    }

    [Fact]
    public async Task HistoryFolderDeletedWhileTheGatewayRunsMakesHealthUnhealthy()
    {
        using var folder = new TemporaryFolder();
        var path = Path.Combine(folder.Path, "data", "history.db");
        await using var gateway = await StartGatewayAsync(path, $"http://127.0.0.1:{Ports.Unused()}");
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = Patience };
        var (before, healthy) = await HealthAsync(http);
        Assert.True(before == HttpStatusCode.OK, healthy);

        Directory.Delete(Path.GetDirectoryName(path)!, recursive: true);

        var (status, health) = await HealthAsync(http);
        Assert.Equal(HttpStatusCode.ServiceUnavailable, status);
        Assert.Contains($"The history file {path} is gone", health);
        using var json = JsonDocument.Parse(health);
        Assert.Equal("Unhealthy", json.RootElement.GetProperty("status").GetString());
        Assert.Equal(HistoryHealthCheck.Name, json.RootElement.GetProperty("checks")[0].GetProperty("name").GetString());
    }

    private static Task<AppProcess> StartGatewayAsync(string historyPath, string serverUrl) =>
        AppProcess.StartAsync("ApiGateway", ["--ServerUrl", serverUrl, "--History:DatabasePath", historyPath, "--History:WriteWaitSeconds", "0.5", "--Runs:WarmUpAtStart", "false"]);

    private static bool IsError(string line) => line.Contains(" ERR]") || line.Contains(" FTL]");

    /// <summary>Another process's write lock on the history, as the sqlite3 shell's BEGIN EXCLUSIVE takes it, until disposed.</summary>
    private static async Task<SqliteConnection> LockAsync(string path)
    {
        var connection = new SqliteConnection(new SqliteConnectionStringBuilder { DataSource = path, Pooling = false }.ToString());
        await connection.OpenAsync();
        await using var begin = connection.CreateCommand();
        begin.CommandText = "BEGIN EXCLUSIVE;";
        await begin.ExecuteNonQueryAsync();
        return connection;
    }

    private static async Task<string?> StoredStateAsync(SqliteConnection connection, string id)
    {
        await using var read = connection.CreateCommand();
        read.CommandText = "SELECT state FROM runs WHERE id = $id;";
        read.Parameters.AddWithValue("$id", id);
        return (string?)await read.ExecuteScalarAsync();
    }

    private static async Task<(HttpStatusCode Status, string Body)> HealthAsync(HttpClient http)
    {
        using var response = await http.GetAsync("/health");
        return (response.StatusCode, await response.Content.ReadAsStringAsync());
    }

    /// <summary>The data of the stream's 'final' event.</summary>
    private static async Task<JsonElement> ReadFinalEventAsync(HttpClient http, string path)
    {
        using var response = await http.GetAsync(path, HttpCompletionOption.ResponseHeadersRead);
        using var reader = new StreamReader(await response.Content.ReadAsStreamAsync());
        var name = string.Empty;
        while (await reader.ReadLineAsync() is { } line)
        {
            if (line.StartsWith("event: ", StringComparison.Ordinal))
            {
                name = line["event: ".Length..];
            }
            else if (name == "final" && line.StartsWith("data: ", StringComparison.Ordinal))
            {
                return JsonDocument.Parse(line["data: ".Length..]).RootElement.Clone();
            }
        }

        throw new InvalidOperationException($"{path} ended without a 'final' event");
    }

    private static async Task WaitUntilAsync(Func<Task<bool>> condition, string failure)
    {
        var started = Stopwatch.GetTimestamp();
        while (!await condition())
        {
            Assert.True(Stopwatch.GetElapsedTime(started) < Patience, failure);
            await Task.Delay(100);
        }
    }
}
