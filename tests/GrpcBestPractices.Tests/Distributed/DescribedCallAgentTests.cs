using System.Text.Json;
using HistoryStore;
using GrpcBestPractices.Tests.EndToEnd;
using GrpcBestPractices.Tests.Fakes;
using GrpcBestPractices.Tests.History;
using GrpcBestPractices.Tests.Infrastructure;
using LoadEngine.Runs;
using LoadEngine.Strategies;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.Distributed;

/// <summary>
/// A distributed run of a described call: the stored plan names the method's descriptor set, which the history keeps once
/// and each agent reads back by that name, and carries its call and its data, so agents given only the service's address
/// run their shares of a method they were never told about; nothing secret is in the store.
/// </summary>
[Trait("Category", "Process")]
public sealed class DescribedCallAgentTests(ITestOutputHelper output)
{
    private const string GetPerformance = "performance.Monitor/GetPerformance";

    [Fact]
    public async Task AgentsGivenOnlyTheAddressRunTheirSharesOfADescribedCallFromTheStoredPlan()
    {
        await using var service = await AppProcess.StartAsync("PerformanceService");
        using var folder = new TemporaryFolder();
        var history = folder.File("history.db");
        await using var store = new RunAgentStore(HistoryDatabase.Open(HistoryDatabase.Sqlite, history));
        await store.EnsureSchemaAsync();
        var input = new RunPlanInput("factory-client", 401) { Warmup = 10, Call = GetPerformance, Data = """{"clientName": "agent {{.WorkerID}} call {{.RequestNumber}}"}""" };
        Assert.True(RunPlanRules.TryCreate(input, PlanLimits.Defaults, StrategyList.Names, out var whole, out var refusal), refusal);
        // As the gateway stores a distributed run: the plan with the descriptor set it described the target with, and the set's name.
        whole = whole.WithDescriptors(LessonOnTargetPlanTests.Performance, StoredRecords.NameOf(LessonOnTargetPlanTests.Performance)) with { Agents = 2 };
        var id = Guid.NewGuid();
        await store.CreateRunAsync(id, whole, DateTimeOffset.UtcNow);

        var agents = Enumerable.Range(0, 2)
            .Select(index => CliProcess.Start("agent", "--run-id", id.ToString(), "--shard", $"{index}/2", "--target", service.Url, "--history", history, "--plain", "--silence-seconds", "30"))
            .ToList();
        try
        {
            var results = await Task.WhenAll(agents.Select(agent => agent.WaitForExitAsync(TimeSpan.FromSeconds(120))));
            Assert.All(results, result => Assert.True(result.ExitCode == 0, result.ToString()));
            output.WriteLine(string.Join(Environment.NewLine, results.Select(result => result.Output.Trim())));
        }
        finally
        {
            agents.ForEach(agent => agent.Dispose());
        }

        var stored = (await store.GetRunAsync(id))!.Plan;
        Assert.Equal((GetPerformance, input.Data), (stored.Described!.Call, stored.Described.Data));
        Assert.Equal(LessonOnTargetPlanTests.Performance, stored.Described.Descriptors);
        // The agents read the set from its table: the plan they read names it and carries none of its bytes.
        using (var database = HistoryDatabase.OpenSqlite(history))
        {
            var planJson = (await database.QueryAsync("SELECT plan_json FROM agent_runs;", row => row.GetString(0), CancellationToken.None)).Single();
            Assert.Contains($"\"descriptorSet\":\"{whole.Described!.DescriptorSet}\"", planJson);
            Assert.DoesNotContain("\"descriptors\"", planJson);
            Assert.Equal([whole.Described!.DescriptorSet!], await database.QueryAsync("SELECT hash FROM descriptor_sets;", row => row.GetString(0), CancellationToken.None));
        }

        var shards = await store.ListShardsAsync(id, withFigures: true);
        Assert.Equal([AgentState.Completed, AgentState.Completed], shards.Select(shard => shard.State));
        Assert.Equal([201L, 200L], shards.Select(shard => shard.Stats!.Calls));
        Assert.All(shards, shard =>
        {
            Assert.Equal(0, shard.Stats!.Failed);
            // The built-in service's answers say which connection carried each call, read from the described answer's connection_id.
            Assert.Equal(1, shard.Stats.ConnectionsUsed);
            Assert.Contains("\"connectionId\"", shard.Stats.FirstAnswer);
        });
    }
}

/// <summary>What a distributed run stores of a described call: the plan, which has nowhere to put a header value or a key, nor the descriptor set's bytes.</summary>
public sealed class StoredPlanTests
{
    [Fact]
    public void TheStoredPlanHasNoPlaceForMetadataOrCredentials()
    {
        var plan = new RunPlan { Strategy = "client-wrapper", Called = new MethodCall { Call = "performance.Monitor/GetPerformance", Data = "{}", Descriptors = [1, 2, 3], DescriptorSet = StoredRecords.NameOf([1, 2, 3]), Target = "inventory" }, Agents = 2 };

        var json = JsonSerializer.SerializeToElement(plan, RunJson.Options);

        // The set itself is kept apart, once, under its name (descriptorSet): a plan's JSON never carries its bytes.
        Assert.Equal(["agents", "call", "data", "descriptorSet", "target"], json.EnumerateObject().Select(property => property.Name)
            .Where(name => name is "agents" or "call" or "data" or "descriptors" or "descriptorSet" or "target" or "metadata" or "caCertificate" or "clientCertificate" or "clientKey" or "authority").Order());
        Assert.DoesNotContain(typeof(RunPlan).GetProperties(), property => property.Name is "Metadata" or "CaCertificate" or "ClientCertificate" or "ClientKey" or "Authority");
    }
}
