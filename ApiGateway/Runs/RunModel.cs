using System.Text.Json;
using System.Text.Json.Serialization;

namespace ApiGateway.Runs;

/// <summary>
/// Everything that decides what a run does. <see cref="Concurrency"/> is how many calls are in flight at
/// once for the concurrent strategies (sequential ones and the stream ignore it); <see cref="Warmup"/>
/// calls run first and are kept out of the statistics.
/// </summary>
public sealed record RunPlan(
    string Strategy,
    int Count,
    int Concurrency,
    int Warmup,
    int DelayMs,
    int PayloadBytes,
    bool IncludeStatuses);

[JsonConverter(typeof(JsonStringEnumConverter<RunState>))]
public enum RunState
{
    Running,
    Completed,
    Failed,
    Cancelled,
}

/// <summary>One run as the history keeps it. <see cref="Stats"/> is null only while it runs (or if it failed before any call).</summary>
public sealed record RunRecord(
    Guid Id,
    RunPlan Plan,
    RunState State,
    DateTimeOffset StartedAt,
    DateTimeOffset? FinishedAt,
    RunStats? Stats,
    string? Error,
    Guid? SuiteId);

/// <summary>A suite: every strategy in <see cref="Strategies"/>, one after another, with the same plan.</summary>
public sealed record SuiteRecord(
    Guid Id,
    RunPlan Plan,
    IReadOnlyList<string> Strategies,
    RunState State,
    DateTimeOffset StartedAt,
    DateTimeOffset? FinishedAt,
    string? Error);

/// <summary>What a run measured. Times are milliseconds; everything but <see cref="FirstCallMs"/> and warm-up is steady state.</summary>
public sealed record RunStats(
    double WallTimeMs,
    double ThroughputPerSecond,
    long Calls,
    long Succeeded,
    long Failed,
    double? FirstCallMs,
    LatencySummary? Latency,
    IReadOnlyList<HistogramBin> Histogram,
    IReadOnlyDictionary<string, long> StatusCounts,
    int ConnectionsUsed,
    double AllocatedBytesPerCall,
    ServiceLoad Service,
    int WarmupCalls,
    double WarmupMs);

/// <summary>Latency of the calls after the first (the first is reported apart). Percentiles come from a log-linear histogram, within 1%.</summary>
public sealed record LatencySummary(
    double MinMs,
    double MeanMs,
    double StdDevMs,
    double P50Ms,
    double P90Ms,
    double P99Ms,
    double P999Ms,
    double MaxMs);

public sealed record HistogramBin(double FromMs, double ToMs, long Count);

/// <summary>The service's own CPU and memory as its answers reported them during the measured phase.</summary>
public sealed record ServiceLoad(double? CpuMeanPercent, double? CpuMaxPercent, double? MemoryMaxMegabytes, int Samples);

/// <summary>The one JSON shape for runs: in HTTP answers, Server-Sent Events and the history file.</summary>
public static class RunJson
{
    public static JsonSerializerOptions Options { get; } = new(JsonSerializerDefaults.Web)
    {
        DefaultIgnoreCondition = JsonIgnoreCondition.Never,
    };
}
