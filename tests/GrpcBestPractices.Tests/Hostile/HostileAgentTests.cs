using System.Security.Cryptography;
using HistoryStore;
using GrpcBestPractices.Tests.Fakes;
using GrpcBestPractices.Tests.Infrastructure;
using LoadEngine.Strategies;
using LoadTest;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.Hostile;

/// <summary>
/// A load agent given a distributed run whose stored plan carries a hostile descriptor set (whoever can write the shared
/// history can put one there): for every case that lives in the set itself, <c>loadtest agent</c> runs none of its code,
/// crashes never, leaves no describe folder, and ends with its documented exit code, a refused set as a failed shard
/// whose error is one sentence.
/// </summary>
[Trait("Category", "Process")]
public sealed class HostileAgentTests(ITestOutputHelper output)
{
    public static TheoryData<string> Cases => HostileCases.InSets;

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task AnAgentOfAStoredHostileSetRunsNoneOfItsCodeAndEndsItsShardWithASentence(string name)
    {
        var hostile = HostileCases.Named(name);
        using var folder = new TemporaryFolder();
        var set = hostile.Set(folder.Path);
        // The target serves the same set, so a set the agent may load (its dangerous part dropped) is really called.
        await using var server = await HostileReflectionServer.StartAsync(set);
        var history = folder.File("history.db");
        await using var store = new RunAgentStore(HistoryDatabase.Open(HistoryDatabase.Sqlite, history));
        await store.EnsureSchemaAsync();
        var id = await CreateRunAsync(store, set);

        var agent = await HostileTool.CliAsync(folder.Path,
            "agent", "--run-id", id.ToString(), "--shard", "0/1", "--target", server.Url, "--history", history, "--plain", "--silence-seconds", "30");
        output.WriteLine($"{name}: {agent}");

        HostileAssert.RanNoCode(folder.Path, "The agent");
        var printed = agent.Result.Output + agent.Result.Error;
        HostileAssert.DidNotCrash("The agent", agent.Result.ExitCode, printed);
        HostileAssert.HasNoControlCharacters("The agent", printed);
        HostileAssert.NeverSays(hostile, "The agent", printed);
        var shard = Assert.Single(await store.ListShardsAsync(id, withFigures: false));
        var completed = agent.Result.ExitCode == ExitCodes.Passed && shard.State == AgentState.Completed;
        var refused = agent.Result.ExitCode == ExitCodes.NotCompleted && shard.State == AgentState.Failed;
        Assert.True(hostile.Verdict switch
        {
            HostileVerdict.Works => completed || (refused && HostileAssert.IsOverTheTimeBudget(shard.Error)),
            HostileVerdict.Refused => refused,
            _ => completed || refused,
        }, $"{name}: the shard ended {shard.State} ({shard.Error}), the agent {agent}");
        if (refused)
        {
            HostileAssert.IsTheSentence(hostile, "The shard's error", shard.Error!);
        }

        HostileAssert.LeftNoDescribeFolder(folder.Path, "The agent");
    }

    /// <summary>A distributed run of three calls of the set's method, for one agent, as the gateway stores one: the plan with the set and its hash.</summary>
    public static async Task<Guid> CreateRunAsync(RunAgentStore store, byte[] set)
    {
        var input = new RunPlanInput("client-wrapper", 3) { Call = HostileDescriptors.Call };
        Assert.True(RunPlanRules.TryCreate(input, PlanLimits.Defaults, StrategyList.Names, out var plan, out var refusal), refusal);
        var id = Guid.NewGuid();
        await store.CreateRunAsync(id, plan.WithDescriptors(set, Convert.ToHexString(SHA256.HashData(set))) with { Agents = 1 }, DateTimeOffset.UtcNow);
        return id;
    }
}
