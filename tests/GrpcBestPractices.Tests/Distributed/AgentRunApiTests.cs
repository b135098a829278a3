using System.Net;
using HistoryStore;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.Distributed;

/// <summary>What POST /api/runs refuses to share among agents, and a distributed run cancelled before its agents came.</summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class AgentRunApiTests(SystemFixture system)
{
    [Theory]
    [InlineData("""{"strategy": "factory-client", "count": 100, "agents": 0}""", "agents was '0'; it must be a whole number from 1 to 64.")]
    [InlineData("""{"strategy": "factory-client", "count": 100, "agents": 65}""", "agents was '65'; it must be a whole number from 1 to 64.")]
    [InlineData("""{"strategy": "factory-client", "count": 100, "agents": "four"}""", "agents was 'four'; it must be a whole number from 1 to 64.")]
    [InlineData("""{"strategy": "factory-client", "count": 3, "agents": 4}""", "count was 3; with 4 agents it must be at least 4, one call per agent.")]
    [InlineData("""{"strategy": "factory-client", "load": "closed", "concurrency": 2, "count": 100, "agents": 4}""", "concurrency was 2; with 4 agents it must be at least 4, one call in flight per agent.")]
    [InlineData("""{"workload": "small-ints", "protocol": "grpc", "count": 100, "agents": 2}""", "agents applies to the strategies; a workload run is made by one process")]
    public async Task APlanThatCannotBeSharedAmongAgentsIsA400SayingWhy(string body, string sentence)
    {
        using var response = await system.Http.PostJsonAsync("/api/runs", body);

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        Assert.Contains(sentence, (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString());
    }

    [Fact]
    public async Task ARunCancelledBeforeItsAgentsCameEndsCancelledAndAnAgentStartedAfterwardsRunsNothing()
    {
        var id = (await system.Http.StartRunAsync("""{"strategy": "initialized-client", "count": 10, "agents": 2}""")).GetProperty("id").GetString()!;

        using var cancel = await system.Http.PostAsync($"/api/runs/{id}/cancel", null);
        var run = await system.Http.WaitUntilFinishedAsync($"/api/runs/{id}");
        var late = await CliProcess.RunAsync("--agent", "--run-id", id, "--shard", "0/2", "--target", system.Service.Url, "--history", system.Gateway.HistoryPath!);

        Assert.Equal(HttpStatusCode.OK, cancel.StatusCode);
        Assert.Equal("Cancelled", run.GetProperty("state").GetString());
        Assert.All(run.GetProperty("agentReports").EnumerateArray(), report => Assert.Equal("Missing", report.GetProperty("state").GetString()));
        Assert.Equal(1, late.ExitCode);
        Assert.Contains($"run {id} was cancelled at the gateway; nothing was run.", late.Error);
    }

    [Fact]
    public async Task CancellingARunWhileItsAgentRunsStopsTheAgentAtItsNextBeatAndKeepsWhatItMeasured()
    {
        // 400 calls of 20 ms each: 8 s, far longer than the cancellation takes.
        var id = (await system.Http.StartRunAsync("""{"strategy": "initialized-client", "count": 400, "delayMs": 20, "agents": 1}""")).GetProperty("id").GetString()!;
        using var agent = CliProcess.Start("--agent", "--run-id", id, "--shard", "0/1", "--target", system.Service.Url, "--history", system.Gateway.HistoryPath!, "--plain", "--silence-seconds", "30");
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(120);
        while ((await system.Http.GetJsonAsync($"/api/runs/{id}")).GetProperty("agentReports")[0].GetProperty("callsSoFar").GetInt64() == 0)
        {
            Assert.True(DateTime.UtcNow < deadline, "the agent never reported a call");
            await Task.Delay(50);
        }

        using var cancel = await system.Http.PostAsync($"/api/runs/{id}/cancel", null);
        var stopped = await agent.WaitForExitAsync(TimeSpan.FromSeconds(120));
        var run = await system.Http.WaitUntilFinishedAsync($"/api/runs/{id}");

        Assert.True(stopped.ExitCode == 105, stopped.ToString());
        Assert.Equal("Cancelled", run.GetProperty("state").GetString());
        Assert.Equal("Cancelled", run.GetProperty("agentReports")[0].GetProperty("state").GetString());
        Assert.InRange(run.GetProperty("stats").GetProperty("calls").GetInt64(), 1, 399);
    }

    [Fact]
    public async Task DeletingADistributedRunDeletesWhatItsAgentsStored()
    {
        var id = (await system.Http.StartRunAsync("""{"strategy": "initialized-client", "count": 10, "agents": 1}""")).GetProperty("id").GetString()!;
        var agent = await CliProcess.RunAsync("--agent", "--run-id", id, "--shard", "0/1", "--target", system.Service.Url, "--history", system.Gateway.HistoryPath!);
        Assert.True(agent.ExitCode == 0, agent.ToString());
        Assert.Equal("Completed", (await system.Http.WaitUntilFinishedAsync($"/api/runs/{id}")).GetProperty("state").GetString());
        await using var store = new RunAgentStore(HistoryDatabase.Open(HistoryDatabase.Sqlite, system.Gateway.HistoryPath!));
        Assert.Single(await store.ListShardsAsync(Guid.Parse(id), withFigures: false));

        using var deleted = await system.Http.DeleteAsync($"/api/runs/{id}");

        Assert.Equal(HttpStatusCode.NoContent, deleted.StatusCode);
        Assert.Null(await store.GetRunAsync(Guid.Parse(id)));
        Assert.Empty(await store.ListShardsAsync(Guid.Parse(id), withFigures: false));
    }
}
