using System.Data.Common;
using System.Globalization;
using System.Text.Json;
using static HistoryStore.HistoryDatabase;

namespace HistoryStore;

/// <summary>
/// Where a distributed run meets its agents, in the same database as the run history (the SQLite file on one machine,
/// PostgreSQL for a team or a cluster). The gateway writes the run's plan; each agent claims its shard, beats while it
/// runs and writes what it recorded; the gateway reads the shards back and merges them. Two tables, and the history's
/// descriptor sets (a plan names its set; the agent reads the set by that name), the same SQL on both databases; each
/// side creates them if they are missing, so neither has to start first.
/// </summary>
public sealed class RunAgentStore(HistoryDatabase database) : IAsyncDisposable
{
    private readonly DescriptorSets _sets = new(database);

    private string Schema => $"""
        CREATE TABLE IF NOT EXISTS agent_runs (
            run_id TEXT NOT NULL PRIMARY KEY,
            agents INTEGER NOT NULL,
            plan_json TEXT NOT NULL,
            created_ms BIGINT NOT NULL,
            cancelled INTEGER NOT NULL DEFAULT 0,
            {DescriptorSets.Column} TEXT NULL);
        CREATE TABLE IF NOT EXISTS agent_shards (
            run_id TEXT NOT NULL,
            shard INTEGER NOT NULL,
            agent TEXT NOT NULL,
            state TEXT NOT NULL,
            started_ms BIGINT NOT NULL,
            seen_ms BIGINT NOT NULL,
            finished_ms BIGINT NULL,
            calls BIGINT NOT NULL,
            error TEXT NULL,
            stats_json TEXT NULL,
            figures_json TEXT NULL,
            series_json TEXT NULL,
            PRIMARY KEY (run_id, shard));
        {_sets.Schema}
        """;

    /// <summary>The database in words, without any password: for messages.</summary>
    public string Description => database.Description;

    /// <summary>The SQLite file, when the store is one; null for PostgreSQL.</summary>
    public string? SqliteFile => database.SqliteFile;

    /// <summary>
    /// What the store throws when its database is unreachable, refuses, or holds something unreadable: a caller reports
    /// it and carries on or retries; anything else is a bug and propagates.
    /// </summary>
    public static bool IsStoreFailure(Exception exception) =>
        exception is DbException or InvalidOperationException or IOException or InvalidDataException or TimeoutException or System.Net.Sockets.SocketException or JsonException;

    // Agents' tables made before descriptor sets were kept apart gain the column that names a plan's set.
    public Task EnsureSchemaAsync(CancellationToken cancellationToken = default) => database.ChangeSchemaAsync(
        async change =>
        {
            await change.ExecuteAsync(Schema);
            await change.AddColumnAsync("agent_runs", DescriptorSets.Column, "TEXT NULL");
        },
        cancellationToken);

    /// <summary>Writes the plan where agents look for it; its descriptor set, if it carries one, is stored once by its name.</summary>
    public Task CreateRunAsync(Guid runId, RunPlan plan, DateTimeOffset at, CancellationToken cancellationToken = default) => _sets.WriteAsync(
        plan,
        $"INSERT INTO agent_runs (run_id, agents, plan_json, created_ms, cancelled, {DescriptorSets.Column}) VALUES (@run, @agents, @plan, @at, 0, @{DescriptorSets.Column});",
        cancellationToken,
        ("run", Id(runId)), ("agents", plan.Agents ?? 1), ("plan", ToJson(plan)), ("at", at.ToUnixTimeMilliseconds()));

    /// <summary>The run as an agent runs it: its plan with the descriptor set it names read back, or the run's <see cref="AgentRun.Problem"/>.</summary>
    public async Task<AgentRun?> GetRunAsync(Guid runId, CancellationToken cancellationToken = default)
    {
        var stored = (await database.QueryAsync(
            "SELECT plan_json, created_ms, cancelled FROM agent_runs WHERE run_id = @run",
            reader => new AgentRun(runId, FromJson<RunPlan>(reader.GetString(0)), Time(reader.GetInt64(1)), reader.GetInt64(2) != 0),
            cancellationToken,
            ("run", Id(runId)))).SingleOrDefault();
        if (stored is null)
        {
            return null;
        }

        var (plan, problem) = await _sets.LoadAsync(stored.Plan, cancellationToken);
        return stored with { Plan = plan, Problem = problem };
    }

    /// <summary>Agents see it at their next heartbeat and stop.</summary>
    public Task CancelRunAsync(Guid runId, CancellationToken cancellationToken = default) =>
        database.ExecuteAsync("UPDATE agent_runs SET cancelled = 1 WHERE run_id = @run", cancellationToken, ("run", Id(runId)));

    /// <summary>
    /// Deletes the run's plan and every shard's figures, as deleting the run from the history does; then the descriptor
    /// set its plan named, if no other plan names it.
    /// </summary>
    public async Task DeleteRunAsync(Guid runId, CancellationToken cancellationToken = default)
    {
        var deleted = await database.ExecuteAtomicallyAsync(
            "DELETE FROM agent_shards WHERE run_id = @run; DELETE FROM agent_runs WHERE run_id = @run;", cancellationToken, ("run", Id(runId)));
        // A run of the gateway's own has no plan here, and the history's delete swept already.
        if (deleted > 0)
        {
            await _sets.SweepAsync(cancellationToken);
        }
    }

    /// <summary>
    /// Takes the shard for <paramref name="agent"/>; returns null when taken, or the shard as another agent holds it (or as
    /// the gateway declared it missing when the run ended without it).
    /// </summary>
    public async Task<ShardHolder?> ClaimAsync(Guid runId, AgentShard shard, string agent, DateTimeOffset at, CancellationToken cancellationToken = default)
    {
        var claimed = await database.ExecuteAsync(
            """
            INSERT INTO agent_shards (run_id, shard, agent, state, started_ms, seen_ms, calls) VALUES (@run, @shard, @agent, @state, @at, @at, 0)
            ON CONFLICT (run_id, shard) DO NOTHING
            """,
            cancellationToken,
            ("run", Id(runId)), ("shard", shard.Index), ("agent", agent), ("state", nameof(AgentState.Running)), ("at", at.ToUnixTimeMilliseconds()));
        return claimed == 1 ? null : (await database.QueryAsync(
            "SELECT agent, state, error FROM agent_shards WHERE run_id = @run AND shard = @shard",
            reader => new ShardHolder(reader.GetString(0), Enum.Parse<AgentState>(reader.GetString(1)), reader.IsDBNull(2) ? null : reader.GetString(2)),
            cancellationToken,
            ("run", Id(runId)), ("shard", shard.Index))).SingleOrDefault() ?? new ShardHolder("another agent", AgentState.Running, null);
    }

    /// <summary>
    /// The gateway's word on a shard whose share the ended run lacks (no agent took it, or its agent went silent): kept,
    /// so the run reads the same sentence ever after, and the agent's late figures cannot replace it.
    /// </summary>
    public Task DeclareMissingAsync(Guid runId, int shard, string why, DateTimeOffset at, CancellationToken cancellationToken = default) => database.ExecuteAsync(
        """
        INSERT INTO agent_shards (run_id, shard, agent, state, started_ms, seen_ms, calls, error) VALUES (@run, @shard, '', @missing, @at, @at, 0, @why)
        ON CONFLICT (run_id, shard) DO UPDATE SET state = @missing, error = @why
        """,
        cancellationToken,
        ("run", Id(runId)), ("shard", shard), ("missing", nameof(AgentState.Missing)), ("why", why), ("at", at.ToUnixTimeMilliseconds()));

    /// <summary>The agent is alive with <paramref name="calls"/> calls made so far. Returns true when the run was cancelled.</summary>
    public async Task<bool> HeartbeatAsync(Guid runId, int shard, long calls, DateTimeOffset at, CancellationToken cancellationToken = default)
    {
        await database.ExecuteAsync(
            "UPDATE agent_shards SET seen_ms = @at, calls = @calls WHERE run_id = @run AND shard = @shard AND state = @running",
            cancellationToken,
            ("run", Id(runId)), ("shard", shard), ("calls", calls), ("at", at.ToUnixTimeMilliseconds()), ("running", nameof(AgentState.Running)));
        return (await database.QueryAsync("SELECT cancelled FROM agent_runs WHERE run_id = @run", reader => reader.GetInt64(0) != 0, cancellationToken, ("run", Id(runId)))).SingleOrDefault();
    }

    /// <summary>
    /// The agent's end: its state, and what it recorded (null when it recorded nothing). False when the gateway had already
    /// ended the run without this share (declared it missing): nothing is written.
    /// </summary>
    public async Task<bool> FinishAsync(Guid runId, int shard, AgentState state, string? error, RunRecord? run, DateTimeOffset at, CancellationToken cancellationToken = default) => 1 == await database.ExecuteAsync(
        """
        UPDATE agent_shards SET state = @state, error = @error, finished_ms = @at, seen_ms = @at, calls = @calls,
            stats_json = @stats, figures_json = @figures, series_json = @series
        WHERE run_id = @run AND shard = @shard AND state <> @missing
        """,
        cancellationToken,
        ("run", Id(runId)), ("shard", shard), ("state", state.ToString()), ("error", error), ("at", at.ToUnixTimeMilliseconds()), ("missing", nameof(AgentState.Missing)),
        ("calls", run?.Stats?.Calls ?? 0L),
        ("stats", run?.Stats is { } stats ? ToJson(stats) : null),
        ("figures", run?.Figures is { } figures ? ToJson(figures) : null),
        ("series", run?.Series is { } series ? ToJson(series) : null));

    /// <summary>The shards agents have claimed, in shard order; <paramref name="withFigures"/> also decodes their histograms.</summary>
    public Task<IReadOnlyList<ShardRow>> ListShardsAsync(Guid runId, bool withFigures, CancellationToken cancellationToken = default) => database.QueryAsync(
        $"SELECT shard, agent, state, started_ms, seen_ms, finished_ms, calls, error, stats_json, {(withFigures ? "figures_json, series_json" : "NULL, NULL")} FROM agent_shards WHERE run_id = @run ORDER BY shard",
        reader => new ShardRow(
            reader.GetInt32(0),
            reader.GetString(1),
            Enum.Parse<AgentState>(reader.GetString(2)),
            Time(reader.GetInt64(3)),
            Time(reader.GetInt64(4)),
            reader.IsDBNull(5) ? null : Time(reader.GetInt64(5)),
            reader.GetInt64(6),
            reader.IsDBNull(7) ? null : reader.GetString(7),
            reader.IsDBNull(8) ? null : FromJson<RunStats>(reader.GetString(8)),
            reader.IsDBNull(9) ? null : FromJson<RunFigures>(reader.GetString(9)),
            reader.IsDBNull(10) ? null : FromJson<TimeSeries>(reader.GetString(10))),
        cancellationToken,
        ("run", Id(runId)));

    public ValueTask DisposeAsync()
    {
        database.Dispose();
        return ValueTask.CompletedTask;
    }

    // The agents' ids are text on both databases.
    private static string Id(Guid id) => id.ToString("D", CultureInfo.InvariantCulture);

    private static DateTimeOffset Time(long unixMilliseconds) => DateTimeOffset.FromUnixTimeMilliseconds(unixMilliseconds);
}

/// <summary>A distributed run as its agents find it.</summary>
public sealed record AgentRun(Guid Id, RunPlan Plan, DateTimeOffset CreatedAt, bool Cancelled)
{
    /// <summary>Why its plan cannot be run as stored (the descriptor set it names is missing, or does not match its name, or it names none); null when it can.</summary>
    public string? Problem { get; init; }
}

/// <summary>Who holds a shard an agent asked for: another agent, or the gateway's declaration that the ended run lacks it (<see cref="AgentState.Missing"/>, with why).</summary>
public sealed record ShardHolder(string Agent, AgentState State, string? Error);

/// <summary>
/// One claimed shard: who has it, when it was last heard from, and (once ended) what it recorded. A shard the gateway
/// declared missing has <see cref="AgentState.Missing"/> and its sentence, and no agent when none took it.
/// </summary>
public sealed record ShardRow(
    int Shard,
    string Agent,
    AgentState State,
    DateTimeOffset StartedAt,
    DateTimeOffset SeenAt,
    DateTimeOffset? FinishedAt,
    long Calls,
    string? Error,
    RunStats? Stats,
    RunFigures? Figures,
    TimeSeries? Series);
