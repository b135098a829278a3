using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.Targets;

/// <summary>
/// A distributed run of a target's method through the gateway: POST /api/runs with target, call and agents stores the plan
/// naming the target's descriptor set, and an agent given only the grpc-js server's address runs it with the set it reads from the history.
/// </summary>
[Trait("Category", "Process")]
public sealed class TargetAgentTests(TargetApiTests.Fixture system) : IClassFixture<TargetApiTests.Fixture>
{
    private const string Unary = "performance.Monitor/GetPerformance";

    [Fact]
    public async Task AnAgentGivenOnlyTheTargetsAddressRunsItsShareOfTheTargetsMethod()
    {
        var started = await system.Http.StartRunAsync(
            $$$"""{"target": "grpcjs", "call": "{{{Unary}}}", "data": {"clientName": "agent"}, "strategy": "client-wrapper", "count": 40, "agents": 1}""");
        var id = started.GetProperty("id").GetString()!;
        var command = started.GetProperty("agentReports")[0].GetProperty("command").GetString()!;
        Assert.Contains($"--target {system.Node.Url}", command);
        // The plan names the target's descriptor set; the agent reads the set from the history by that name.
        Assert.Matches("^[0-9A-F]{64}$", started.GetProperty("plan").GetProperty("descriptorSet").GetString());
        Assert.False(started.GetProperty("plan").TryGetProperty("descriptors", out _));

        var agent = await CliProcess.RunAsync("agent", "--run-id", id, "--shard", "0/1", "--target", system.Node.Url, "--history", system.Gateway.HistoryPath!, "--plain", "--silence-seconds", "30");
        var run = await system.Http.WaitUntilFinishedAsync($"/api/runs/{id}", TimeSpan.FromSeconds(120));

        Assert.True(agent.ExitCode == 0, agent.ToString());
        Assert.Contains($"client-wrapper calling {Unary}", agent.Output);
        Assert.True(run.GetProperty("state").GetString() == "Completed", run.ToString());
        Assert.Equal((40L, 0L), (run.GetProperty("stats").GetProperty("calls").GetInt64(), run.GetProperty("stats").GetProperty("failed").GetInt64()));
        Assert.Contains("\"connectionId\": \"grpc-js 127.0.0.1:", run.GetProperty("stats").GetProperty("firstAnswer").GetString()!.Replace("\":\"", "\": \""));
    }
}
