using HistoryStore;
using GrpcBestPractices.Tests.Fakes;
using GrpcBestPractices.Tests.History;
using GrpcBestPractices.Tests.Infrastructure;
using GrpcBestPractices.Tests.Unit;
using LoadTest;

namespace GrpcBestPractices.Tests.Distributed;

/// <summary>
/// An agent reads its plan's descriptor set from the history by name. A set that is missing, or was changed after it was
/// stored, is the shard's failure in one sentence: the agent claims the shard, stores the sentence for the gateway to end
/// the run with, exits 1 and calls nothing.
/// </summary>
public sealed class AgentDescriptorSetTests
{
    private static readonly byte[] Set = [.. "inventory's FileDescriptorSet"u8];

    [Fact]
    public async Task AnAgentWhosePlansDescriptorSetIsMissingOrChangedFailsItsShardWithOneSentenceAndCallsNothing()
    {
        using var folder = new TemporaryFolder();
        var history = folder.File("history.db");
        await using var store = new RunAgentStore(HistoryDatabase.Open(HistoryDatabase.Sqlite, history));
        await store.EnsureSchemaAsync();
        var plan = StoredRecords.DescribedPlan("client-wrapper", Set) with { Agents = 1 };
        var (changed, missing) = (Guid.NewGuid(), Guid.NewGuid());
        await store.CreateRunAsync(changed, plan, DateTimeOffset.UtcNow);
        using (var database = HistoryDatabase.OpenSqlite(history))
        {
            await database.ExecuteAsync("UPDATE descriptor_sets SET bytes = @bytes;", CancellationToken.None, ("bytes", new byte[] { 0 }));
            await store.CreateRunAsync(missing, plan.WithDescriptors(null, StoredRecords.NameOf([.. "a set nobody stored"u8])), DateTimeOffset.UtcNow);
        }

        var sentences = new Dictionary<Guid, string>
        {
            [changed] = $"The descriptor set stored as {plan.Described!.DescriptorSet} in {store.Description} does not match its name (its SHA-256 is {StoredRecords.NameOf([0])}): " +
                "it was changed after it was stored, so the plan is not run",
            [missing] = $"The plan names descriptor set {StoredRecords.NameOf([.. "a set nobody stored"u8])}, which {store.Description} does not hold: " +
                "start the run again from the gateway, which stores the set with the plan",
        };
        foreach (var (run, sentence) in sentences)
        {
            // Nothing listens at port 9: a call would fail, not hang, if one were made.
            var (code, output, error) = await LoadTestCommandTests.InvokeAsync("agent", "--run-id", run.ToString(), "--shard", "0/1", "--target", "http://127.0.0.1:9", "--history", history, "--plain");

            Assert.True(code == ExitCodes.NotCompleted, $"{code}: {output}{error}");
            Assert.Contains($": shard 0/1 Failed: {sentence}; stored in the SQLite file {history}.", output);
            Assert.DoesNotContain("calling", output);
            var shard = Assert.Single(await store.ListShardsAsync(run, withFigures: true));
            Assert.Equal((AgentState.Failed, sentence + ".", 0L, null), (shard.State, shard.Error, shard.Calls, shard.Stats));
        }
    }
}
