using System.Security.Cryptography;
using System.Text.Json;
using ApiGateway.Runs;
using LoadEngine.Lessons;

namespace GrpcBestPractices.Tests.History;

/// <summary>Runs, suites and stats as the history tests save them, full of values, so that a lost column shows.</summary>
public static class StoredRecords
{
    public static readonly DateTimeOffset Noon = new(2026, 11, 22, 12, 0, 0, TimeSpan.Zero);

    public static RunPlan Plan(string strategy) => new() { Strategy = strategy, Count = 1000, Concurrency = 100, Warmup = 10, IncludeStatuses = true };

    public static RunRecord Run(string strategy, DateTimeOffset startedAt, RunState state = RunState.Running, Guid? suiteId = null) =>
        new(Guid.NewGuid(), Plan(strategy), state, startedAt, null, null, null, suiteId);

    /// <summary>A plan of a target's method carrying <paramref name="set"/> as DescribedTarget.Describing makes it: the bytes, named by their SHA-256 in hex.</summary>
    public static RunPlan DescribedPlan(string strategy, byte[] set) =>
        Plan(strategy) with { Called = new MethodCall { Target = "inventory", Call = "inventory.Stock/Get", Data = """{"sku": "A-{{.RequestNumber}}"}""", Descriptors = set, DescriptorSet = NameOf(set) } };

    public static string NameOf(byte[] set) => Convert.ToHexString(SHA256.HashData(set));

    public static SuiteRecord Comparison(ComparisonPlan comparison, DateTimeOffset startedAt) =>
        new(Guid.NewGuid(), Plan(comparison.Contenders[0]) with { Called = new WorkloadContender("small-ints", null, null, null, null, null, null) }, [.. comparison.Schedule().Select(step => step.Contender)], RunState.Completed, startedAt, startedAt.AddMinutes(1), null)
        {
            Comparison = comparison,
        };

    public static RunStats FullStats() => new(
        WallTimeMs: 144.9,
        ThroughputPerSecond: 6901.3,
        Calls: 1000,
        Succeeded: 999,
        Failed: 1,
        FirstCallMs: 12.25,
        Latency: new LatencySummary(0.08, 0.14, 0.02, 0.13, 0.17, 0.31, 0.9, 1.7),
        Histogram: [new HistogramBin(0, 0.1, 120), new HistogramBin(0.1, 0.2, 860), new HistogramBin(0.2, 1.7, 19)],
        StatusCounts: new Dictionary<string, long> { ["OK"] = 999, ["Unavailable"] = 1 },
        ConnectionsUsed: 1,
        AllocatedBytesPerCall: 2345.5,
        Service: new ServiceLoad(3.1, 7.5, 84.4, 12),
        WarmupCalls: 10,
        WarmupMs: 5.5);

    // The records hold lists, which compare by reference; their JSON compares every value.
    public static string Json<T>(T value) => JsonSerializer.Serialize(value, RunJson.Options);
}
