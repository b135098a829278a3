using System.Text.Json.Serialization;

namespace LoadEngine.Runs;

/// <summary>Shard <see cref="Index"/> (from 0, as a Kubernetes Indexed Job numbers its pods) of <see cref="Count"/>.</summary>
public sealed record AgentShard(int Index, int Count)
{
    public override string ToString() => $"{Index}/{Count}";

    /// <summary>"2/4": the index from 0, then how many shards there are.</summary>
    public static bool TryParse(string? text, out AgentShard shard)
    {
        shard = null!;
        var parts = text?.Split('/') ?? [];
        if (parts.Length != 2
            || !int.TryParse(parts[0], System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out var index)
            || !int.TryParse(parts[1], System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out var count)
            || count < 1 || index >= count)
        {
            return false;
        }

        shard = new AgentShard(index, count);
        return true;
    }
}

/// <summary>
/// How a run is shared among agents: each runs the same plan with its share of the calls (count ÷ N, the first
/// count mod N agents one more), of the rate (rate ÷ N, and every ramp target ÷ N) and of the calls in flight, so N
/// agents together put the load of the whole plan on the service. Each keeps the whole warm-up: it is a process of
/// its own, with its own JIT and its own channels to warm.
/// </summary>
public static class AgentShares
{
    public const int MaxAgents = 64;

    public static RunPlan Of(RunPlan whole, AgentShard shard) => whole with
    {
        Agents = null,
        Shard = shard,
        Count = whole.Count is { } count ? Split(count, shard) : null,
        Concurrency = whole.Load == LoadKind.Sequential ? 1 : Math.Max(1, Split(whole.Concurrency, shard)),
        Rate = whole.Rate / shard.Count,
        Stages = whole.Stages?.Select(stage => stage with { Target = stage.Target / shard.Count }).ToList(),
        IncludeStatuses = false,
    };

    /// <summary>What keeps <paramref name="whole"/> from being shared among <paramref name="agents"/>, or null.</summary>
    public static string? Problem(RunPlan whole, int agents) => whole switch
    {
        _ when agents is < 1 or > MaxAgents => $"agents was {agents}; it must be between 1 and {MaxAgents}.",
        { Workload: not null } => "agents applies to the strategies; a workload run is made by one process (its service figures cannot be split among agents).",
        { IncludeStatuses: true } => "includeStatuses cannot be used with agents: each agent keeps counts, not answers.",
        { Count: { } count } when count < agents => $"count was {count}; with {agents} agents it must be at least {agents}, one call per agent.",
        { Load: LoadKind.Closed } when whole.Concurrency < agents => $"concurrency was {whole.Concurrency}; with {agents} agents it must be at least {agents}, one call in flight per agent.",
        _ => null,
    };

    private static int Split(int total, AgentShard shard) => total / shard.Count + (shard.Index < total % shard.Count ? 1 : 0);
}

/// <summary>Where an agent's share stands, as the shared store has it.</summary>
[JsonConverter(typeof(JsonStringEnumConverter<AgentState>))]
public enum AgentState
{
    /// <summary>No agent has taken this shard yet.</summary>
    Waiting,

    Running,
    Completed,
    Failed,
    Cancelled,

    /// <summary>The agent stopped reporting (killed, or its pod lost) or never came: its share is missing.</summary>
    Missing,
}

/// <summary>One agent's share of a distributed run and what it reported: its own stats, from its own histogram.</summary>
public sealed record AgentReport(
    int Shard,
    AgentState State,
    string? Agent,
    RunPlan Share,
    long CallsSoFar,
    DateTimeOffset? StartedAt,
    DateTimeOffset? LastSeenAt,
    DateTimeOffset? FinishedAt,
    RunStats? Stats,
    string? Error)
{
    /// <summary>While the shard waits for an agent: the command that starts one (it holds no secret).</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? Command { get; init; }
}
