using System.Text.Json.Nodes;
using HistoryStore;
using GrpcBestPractices.Tests.EndToEnd;
using GrpcBestPractices.Tests.Fakes;
using static GrpcBestPractices.Tests.History.StoredRecords;

namespace GrpcBestPractices.Tests.History;

/// <summary>
/// What every history does with the descriptor sets plans name: each set is kept once, apart from the plans; an agent's
/// plan gets its set back by name, and a set that is missing or does not match its name is one sentence; a set goes with
/// the last plan that names it; plans that carried their set inline, before sets were kept apart, still load.
/// </summary>
public abstract partial class RunStoreContract
{
    /// <summary>The built-in service's contract as a host describes it, and a set of another target.</summary>
    private static readonly byte[] Set = LessonOnTargetPlanTests.Performance;

    private static readonly byte[] OtherSet = [.. "another target's FileDescriptorSet"u8];

    private readonly List<RunAgentStore> _agentStores = [];

    [Fact]
    public async Task ADescriptorSetIsStoredOnceHoweverManyPlansNameItAndNoStoredPlanCarriesItsBytes()
    {
        var (store, agents) = (await OpenStoreAsync(), await OpenAgentStoreAsync());
        var plan = DescribedPlan("client-wrapper", Set);
        var runs = Enumerable.Range(0, 3).Select(i => new RunRecord(Guid.NewGuid(), plan, RunState.Running, Noon.AddMinutes(i), null, null, null, null)).ToArray();
        foreach (var run in runs)
        {
            // As a run is stored: when it starts, and again when it ends.
            await store.SaveAsync(run);
            await store.SaveAsync(run with { State = RunState.Completed, Stats = FullStats() });
        }

        await store.SaveSuiteAsync(new SuiteRecord(Guid.NewGuid(), plan, ["client-wrapper"], RunState.Completed, Noon, null, null));
        await agents.CreateRunAsync(Guid.NewGuid(), plan with { Agents = 2 }, Noon);

        Assert.Equal([plan.Described!.DescriptorSet!], await SetNamesAsync());
        Assert.Equal(Set, (await QueryAsync("SELECT bytes FROM descriptor_sets;", row => row.GetFieldValue<byte[]>(0))).Single());
        var plans = await QueryAsync("SELECT plan_json FROM runs UNION ALL SELECT plan_json FROM suites UNION ALL SELECT plan_json FROM agent_runs;", row => row.GetString(0));
        Assert.Equal(5, plans.Count);
        Assert.All(plans, json =>
        {
            Assert.Contains($"\"descriptorSet\":\"{plan.Described!.DescriptorSet}\"", json);
            Assert.DoesNotContain("\"descriptors\"", json);
        });
        var loaded = (await store.GetAsync(runs[0].Id))!.Plan;
        Assert.Equal((plan.Described!.Call, plan.Described!.DescriptorSet, null), (loaded.Described!.Call, loaded.Described!.DescriptorSet, loaded.Described!.Descriptors));
    }

    [Fact]
    public async Task AnAgentsPlanGetsItsDescriptorSetBackFromTheHistory()
    {
        var agents = await OpenAgentStoreAsync();
        var id = Guid.NewGuid();
        var plan = DescribedPlan("client-wrapper", Set) with { Agents = 2 };
        await agents.CreateRunAsync(id, plan, Noon);

        var run = await agents.GetRunAsync(id);

        Assert.Null(run?.Problem);
        Assert.Equal(Set, run?.Plan.Described?.Descriptors);
        Assert.Equal(Json(plan), Json(run?.Plan));
    }

    [Fact]
    public async Task ADescriptorSetThatDoesNotMatchItsNameIsRefusedInOneSentence()
    {
        var agents = await OpenAgentStoreAsync();
        var id = Guid.NewGuid();
        var plan = DescribedPlan("client-wrapper", Set) with { Agents = 1 };
        await agents.CreateRunAsync(id, plan, Noon);
        // What anyone who can write the shared history could do.
        await ExecuteAsync("UPDATE descriptor_sets SET bytes = @bytes;", ("bytes", OtherSet));

        var run = await agents.GetRunAsync(id);

        Assert.Null(run?.Plan.Described?.Descriptors);
        Assert.Equal(
            $"The descriptor set stored as {plan.Described!.DescriptorSet} in {agents.Description} does not match its name (its SHA-256 is {NameOf(OtherSet)}): " +
            "it was changed after it was stored, so the plan is not run.",
            run?.Problem);
    }

    [Fact]
    public async Task APlanNamingADescriptorSetTheHistoryLacksOrNotNamingItByAHashIsOneSentence()
    {
        var agents = await OpenAgentStoreAsync();
        var (lacking, misnamed) = (Guid.NewGuid(), Guid.NewGuid());
        var plan = DescribedPlan("client-wrapper", Set) with { Agents = 1 };
        await agents.CreateRunAsync(lacking, plan, Noon);
        await ExecuteAsync("DELETE FROM descriptor_sets;");
        await agents.CreateRunAsync(misnamed, plan.WithDescriptors(null, "\u001b]0;owned\u0007"), Noon);

        var (missing, strange) = (await agents.GetRunAsync(lacking), await agents.GetRunAsync(misnamed));

        Assert.Equal(
            $"The plan names descriptor set {plan.Described!.DescriptorSet}, which {agents.Description} does not hold: start the run again from the gateway, which stores the set with the plan.",
            missing?.Problem);
        // A name that is not a hash is not quoted: it came from the database, and could be anything.
        Assert.Equal($"The plan's descriptor set in {agents.Description} is not named by a SHA-256 in hex, so it is not run.", strange?.Problem);
        Assert.Null(missing?.Plan.Described?.Descriptors);
    }

    [Fact]
    public async Task ADescriptorSetGoesWithTheLastPlanThatNamesItARunsASuitesOrAnAgentsPlan()
    {
        var (store, agents) = (await OpenStoreAsync(), await OpenAgentStoreAsync());
        var (plan, other) = (DescribedPlan("client-wrapper", Set), DescribedPlan("client-wrapper", OtherSet));
        var (first, second, distributed) = (Ended(plan, 0), Ended(plan, 1), Ended(plan with { Agents = 2 }, 2));
        var unrelated = Ended(other, 3);
        foreach (var run in new[] { first, second, distributed, unrelated })
        {
            await store.SaveAsync(run);
        }

        await agents.CreateRunAsync(distributed.Id, distributed.Plan, Noon);
        await store.SaveSuiteAsync(new SuiteRecord(Guid.NewGuid(), other, ["client-wrapper"], RunState.Completed, Noon, null, null));
        string[] both = [.. new[] { plan.Described!.DescriptorSet!, other.Described!.DescriptorSet! }.Order(StringComparer.Ordinal)];

        Assert.True(await store.DeleteAsync(first.Id));
        Assert.Equal(both, await SetNamesAsync());
        Assert.True(await store.DeleteAsync(second.Id));
        Assert.True(await store.DeleteAsync(distributed.Id));
        // The distributed run's agents' plan still names it, until the gateway deletes that too.
        Assert.Equal(both, await SetNamesAsync());
        await agents.DeleteRunAsync(distributed.Id);
        Assert.Equal([other.Described!.DescriptorSet!], await SetNamesAsync());
        // The suite's plan names the other set.
        Assert.True(await store.DeleteAsync(unrelated.Id));
        Assert.Equal([other.Described!.DescriptorSet!], await SetNamesAsync());
    }

    [Fact]
    public async Task APlanThatCarriedItsDescriptorSetInlineBeforeSetsWereKeptApartStillLoadsWithoutIt()
    {
        var (store, agents) = (await OpenStoreAsync(), await OpenAgentStoreAsync());
        var run = Run("client-wrapper", Noon, RunState.Completed) with { Stats = FullStats() };
        await store.SaveAsync(run);
        await ExecuteAsync("UPDATE runs SET plan_json = @plan;", ("plan", InlinePlan()));
        var agentRun = Guid.NewGuid();
        await ExecuteAsync(
            "INSERT INTO agent_runs (run_id, agents, plan_json, created_ms, cancelled) VALUES (@run, 2, @plan, 0, 0);", ("run", agentRun.ToString("D")), ("plan", InlinePlan(agents: 2)));

        var (loaded, listed, agentPlan) = (await store.GetAsync(run.Id), Assert.Single(await store.ListAsync(null, 10, 0)), await agents.GetRunAsync(agentRun));

        foreach (var plan in new[] { loaded?.Plan, listed.Plan, agentPlan?.Plan })
        {
            Assert.Equal(("inventory.Stock/Get", null, null), (plan?.Described?.Call, plan?.Described?.Descriptors, plan?.Described?.DescriptorSet));
        }

        Assert.Equal(Json(run.Stats), Json(loaded?.Stats));
        // An agent of such a run, were one still to come, is told why it cannot run it.
        Assert.Equal(
            "The plan calls a target's method but names no descriptor set: it was stored by an earlier version, which kept the set in the plan; start the run again from the gateway.",
            agentPlan?.Problem);
    }

    [Fact]
    public async Task AnAgentsTableFromBeforeDescriptorSetsGainsItsColumnAndItsPlansStillLoad()
    {
        var agentRun = Guid.NewGuid();
        // The agents' tables as the version before made them.
        await ExecuteAsync("""
            CREATE TABLE agent_runs (run_id TEXT NOT NULL PRIMARY KEY, agents INTEGER NOT NULL, plan_json TEXT NOT NULL, created_ms BIGINT NOT NULL, cancelled INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE agent_shards (run_id TEXT NOT NULL, shard INTEGER NOT NULL, agent TEXT NOT NULL, state TEXT NOT NULL, started_ms BIGINT NOT NULL, seen_ms BIGINT NOT NULL,
                finished_ms BIGINT NULL, calls BIGINT NOT NULL, error TEXT NULL, stats_json TEXT NULL, figures_json TEXT NULL, series_json TEXT NULL, PRIMARY KEY (run_id, shard));
            """);
        await ExecuteAsync("INSERT INTO agent_runs (run_id, agents, plan_json, created_ms, cancelled) VALUES (@run, 2, @plan, 0, 0);", ("run", agentRun.ToString("D")), ("plan", InlinePlan(agents: 2)));

        var agents = await OpenAgentStoreAsync();
        var id = Guid.NewGuid();
        await agents.CreateRunAsync(id, DescribedPlan("client-wrapper", Set) with { Agents = 2 }, Noon);

        Assert.Equal("inventory.Stock/Get", (await agents.GetRunAsync(agentRun))?.Plan.Described?.Call);
        Assert.Equal(Set, (await agents.GetRunAsync(id))?.Plan.Described?.Descriptors);
        // A second agent finds the column there and changes nothing.
        await OpenAgentStoreAsync();
        Assert.Equal(Set, (await agents.GetRunAsync(id))?.Plan.Described?.Descriptors);
    }

    /// <summary>The agents' store on this test's database, its tables made.</summary>
    protected async Task<RunAgentStore> OpenAgentStoreAsync()
    {
        var store = new RunAgentStore(OpenDatabase());
        _agentStores.Add(store);
        await store.EnsureSchemaAsync();
        return store;
    }

    protected async Task ExecuteAsync(string sql, params (string Name, object? Value)[] parameters)
    {
        using var database = OpenDatabase();
        await database.ExecuteAsync(sql, CancellationToken.None, parameters);
    }

    protected async Task<IReadOnlyList<T>> QueryAsync<T>(string sql, Func<System.Data.Common.DbDataReader, T> read)
    {
        using var database = OpenDatabase();
        return await database.QueryAsync(sql, read, CancellationToken.None);
    }

    private async Task<IReadOnlyList<string>> SetNamesAsync() => [.. (await QueryAsync("SELECT hash FROM descriptor_sets;", row => row.GetString(0))).Order(StringComparer.Ordinal)];

    private static RunRecord Ended(RunPlan plan, int minute) => new(Guid.NewGuid(), plan, RunState.Completed, Noon.AddMinutes(minute), Noon.AddMinutes(minute + 1), FullStats(), null, null);

    /// <summary>A plan of a target's method as stored before descriptor sets were kept apart: the set inline, in base64, with no name.</summary>
    private static string InlinePlan(int? agents = null)
    {
        var plan = JsonNode.Parse(Json(DescribedPlan("client-wrapper", Set).WithDescriptors(Set, null) with { Agents = agents }))!.AsObject();
        plan["descriptors"] = Convert.ToBase64String(Set);
        return plan.ToJsonString();
    }
}
