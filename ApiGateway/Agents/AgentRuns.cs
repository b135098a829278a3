using System.ComponentModel.DataAnnotations;
using HistoryStore;
using ApiGateway.Configuration;
using LoadEngine.Thresholds;
using Microsoft.Extensions.Options;

namespace ApiGateway.Agents;

/// <summary>How many distributed runs may go at once, and how long one waits for its agents. Section <c>Agents</c>.</summary>
public sealed class AgentOptions
{
    public const string Section = "Agents";

    /// <summary>How long a shard may wait for an agent to take it before its share counts as missing.</summary>
    [Range(1, 3600, ErrorMessage = "Agents:JoinTimeoutSeconds must be between 1 and 3600: how long a distributed run waits for an agent to take each shard.")]
    public double JoinTimeoutSeconds { get; set; } = 120;

    /// <summary>
    /// Distributed runs waiting for or following their agents at once. They make no calls in the gateway, so they take
    /// none of the <c>Runs:MaxRunsInFlight</c> slots that local runs need; more get 429.
    /// </summary>
    [Range(1, 64, ErrorMessage = "Agents:MaxRunsInFlight must be between 1 and 64: how many distributed runs may wait for or follow their agents at once.")]
    public int MaxRunsInFlight { get; set; } = 4;

    /// <summary>How long an agent may go without a heartbeat (it beats every second) before it counts as dead and its share as missing.</summary>
    [Range(2, 600, ErrorMessage = "Agents:HeartbeatTimeoutSeconds must be between 2 and 600: how long an agent may go silent before its share counts as missing.")]
    public double HeartbeatTimeoutSeconds { get; set; } = 10;
}

/// <summary>
/// The gateway's side of a distributed run. The run is an ordinary run (stored, listed, cancelled, followed live like
/// any other) whose calls are made by agents instead of this process: it writes the plan for them, watches their
/// shards, publishes their summed progress, and when every shard has ended or gone missing, merges what they recorded:
/// percentiles from the merged histograms, counts summed. A shard nobody took in time, or whose agent stopped beating,
/// is missing, and the run is <see cref="RunState.Partial"/>, saying whose share of how many calls it lacks.
/// </summary>
public sealed partial class AgentRuns(
    RunAgentStore store, IOptions<AgentOptions> options, IOptions<GatewayOptions> gateway, IOptions<Targets.TargetsOptions> targets, TimeProvider time, ILogger<AgentRuns> logger)
{
    public static readonly TimeSpan Poll = TimeSpan.FromMilliseconds(500);

    public RunAgentStore Store => store;

    /// <summary>Writes the plan where agents look for it; before the run is announced, so an agent started at once finds it.</summary>
    public Task CreateAsync(RunRecord run) => store.CreateRunAsync(run.Id, run.Plan, run.StartedAt);

    /// <summary>Waits for the run's agents and returns the merged run; cancelling the run tells the agents to stop, and waits for what they measured.</summary>
    public async Task<RunRecord> WaitForAgentsAsync(RunRecord run, LiveRun live, CancellationToken cancellation)
    {
        var plan = run.Plan;
        DateTimeOffset? cancelledAt = null;
        IReadOnlyList<ShardRow> rows = [];
        var unreadable = false;
        using var timer = new PeriodicTimer(Poll, time);
        while (true)
        {
            var now = time.GetUtcNow();
            if (cancellation.IsCancellationRequested && cancelledAt is null)
            {
                cancelledAt = now;
                await TellAgentsToStopAsync(run.Id);
            }

            try
            {
                rows = await store.ListShardsAsync(run.Id, withFigures: false, CancellationToken.None);
                unreadable = false;
            }
            catch (Exception failed) when (RunAgentStore.IsStoreFailure(failed))
            {
                // The last shards seen stand in until the store answers again; an agent that keeps beating is not declared dead for it.
                if (!unreadable)
                {
                    LogShardsUnreadable(logger, failed, run.Id, store.Description);
                }

                unreadable = true;
            }

            var reports = Classify(run, rows, now, cancelledAt, ended: false);
            live.Publish(Progress(run, reports, now));
            if (reports.All(report => report.State is not (AgentState.Waiting or AgentState.Running)) && !unreadable)
            {
                var ended = await MergeAsync(run, reports, cancelledAt is not null);
                live.Finish(live.Latest);
                return ended;
            }

            await timer.WaitForNextTickAsync(CancellationToken.None);
        }
    }

    /// <summary>Each shard as the store has it now (for GET while it runs, and after): missing when its agent never came or went silent.</summary>
    public async Task<IReadOnlyList<AgentReport>> ReportsAsync(RunRecord run, CancellationToken cancellationToken = default) =>
        Classify(run, await store.ListShardsAsync(run.Id, withFigures: false, cancellationToken), time.GetUtcNow(), null, ended: run.State != RunState.Running);

    /// <summary>
    /// The command that starts an agent for <paramref name="shard"/>, with no secret in it: the run's target by its address
    /// only; a target's credentials and metadata are the agent's own options, as the store keeps none.
    /// </summary>
    private string Command(Guid runId, AgentShard shard, RunPlan plan)
    {
        var history = store.SqliteFile is { } file
            ? $"--history {Quote(file)}"
            : "--history-provider Postgres (with ConnectionStrings__History set as the gateway's)";
        var target = plan.Described?.Target is { } name ? targets.Value.Targets.GetValueOrDefault(name) : null;
        var credentials = target is { Metadata.Count: > 0 } or { CaCertificate.Length: > 0 } or { ClientCertificate.Length: > 0 } or { Authority.Length: > 0 } or { InsecureSkipVerify: true } or { Compression.Length: > 0 }
            ? $", with {plan.Described?.Target}'s --metadata, --cacert, --cert/--key, --authority or --compression as the agent's own options (the store keeps none)"
            : "";
        return $"./loadtest agent --run-id {runId} --shard {shard} --target {target?.Address ?? gateway.Value.ServerUrl} {history}{credentials}";
    }

    private IReadOnlyList<AgentReport> Classify(RunRecord run, IReadOnlyList<ShardRow> rows, DateTimeOffset now, DateTimeOffset? cancelledAt, bool ended)
    {
        var count = run.Plan.Agents ?? 1;
        var join = TimeSpan.FromSeconds(options.Value.JoinTimeoutSeconds);
        var silence = TimeSpan.FromSeconds(options.Value.HeartbeatTimeoutSeconds);
        return [.. Enumerable.Range(0, count).Select(index =>
        {
            var shard = new AgentShard(index, count);
            var share = AgentShares.Of(run.Plan, shard);
            var row = rows.FirstOrDefault(row => row.Shard == index);
            if (row is null)
            {
                var (state, why) = (ended, cancelledAt) switch
                {
                    (true, _) => (AgentState.Missing, $"No agent took shard {shard} before the run ended."),
                    (_, not null) => (AgentState.Missing, $"No agent took shard {shard} before the run was cancelled."),
                    _ when now - run.StartedAt > join => (AgentState.Missing, $"No agent took shard {shard} within {join.TotalSeconds:0.#} s (Agents:JoinTimeoutSeconds)."),
                    _ => (AgentState.Waiting, (string?)null),
                };
                return new AgentReport(index, state, null, share, 0, null, null, null, null, why) { Command = state == AgentState.Waiting ? Command(run.Id, shard, run.Plan) : null };
            }

            // Declared missing when the run ended (the gateway's own row when no agent came): the same sentence ever after.
            if (row.State == AgentState.Missing)
            {
                var agent = row.Agent.Length == 0 ? null : row.Agent;
                return new AgentReport(index, AgentState.Missing, agent, share, row.Calls, agent is null ? null : row.StartedAt, agent is null ? null : row.SeenAt, null, null, row.Error);
            }

            var silent = now - row.SeenAt;
            // An agent that keeps beating but does not stop once cancelled (it cannot read the word) is not waited for longer than a silent one.
            var deaf = row.State == AgentState.Running && cancelledAt is { } cancelled && now - cancelled > silence;
            var gone = row.State == AgentState.Running && (ended || silent > silence || deaf);
            return new AgentReport(
                index,
                gone ? AgentState.Missing : row.State,
                row.Agent,
                share,
                row.Calls,
                row.StartedAt,
                row.SeenAt,
                row.FinishedAt,
                row.Stats,
                !gone ? row.Error
                    : deaf && silent <= silence ? $"Agent {row.Agent} did not stop within {silence.TotalSeconds:0.#} s of the cancellation, after {row.Calls} calls."
                    : $"Agent {row.Agent} stopped reporting at {row.SeenAt:HH:mm:ss} UTC, {silent.TotalSeconds:0.#} s without a heartbeat, after {row.Calls} calls.");
        })];
    }

    private async Task<RunRecord> MergeAsync(RunRecord run, IReadOnlyList<AgentReport> reports, bool cancelled)
    {
        IReadOnlyList<ShardRow> rows;
        try
        {
            rows = await store.ListShardsAsync(run.Id, withFigures: true, CancellationToken.None);
        }
        catch (Exception unreadable) when (RunAgentStore.IsStoreFailure(unreadable))
        {
            return run with { State = RunState.Failed, FinishedAt = time.GetUtcNow(), Error = $"The agents' figures could not be read from {store.Description}: {unreadable.Message}", AgentReports = reports };
        }

        await DeclareMissingAsync(run.Id, reports);
        // A shard declared missing stays missing even if its figures arrive later: the run's end does not move.
        var reported = rows.Where(row => row.Figures is not null && reports[row.Shard].State != AgentState.Missing).ToList();
        var merged = reported.Count == 0 ? null : RunFigures.Merge([.. reported.Select(row => row.Figures!)]);
        var missing = reports.Where(report => report.State == AgentState.Missing).ToList();
        var failed = reports.Where(report => report.State == AgentState.Failed).ToList();
        var (state, error) = (cancelled, merged, missing.Count, failed.Count) switch
        {
            (true, _, _, _) => (RunState.Cancelled, "The run was cancelled before its agents finished."),
            (_, null, _, _) => (RunState.Failed, $"No agent reported figures. {string.Join(" ", reports.Select(report => report.Error).OfType<string>())}".TrimEnd()),
            (_, _, > 0, _) => (RunState.Partial, Partial(run.Plan, missing, reported.Count)),
            (_, _, _, > 0) => (RunState.Failed, string.Join(" ", failed.Select(report => $"Agent {report.Shard}/{reports.Count} failed: {report.Error}"))),
            _ => (RunState.Completed, (string?)null),
        };
        var ended = run with
        {
            State = state,
            Error = error,
            FinishedAt = time.GetUtcNow(),
            Stats = merged?.ToStats(run.Plan.Percentiles),
            Series = merged is null ? null : MergedSeries(reported, merged.MeasuredFrom, merged.WallTimeMs),
            Measured = $"{reports.Count} agents, each a process of its own with its own channels, made the calls ({run.Plan.Strategy}); percentiles come from " +
                "their HdrHistograms merged bucket by bucket, and throughput is all agents' successes over the span from the first agent's start to the last one's end.",
            AgentReports = reports,
        };
        return ThresholdJudge.WithVerdict(ended);
    }

    /// <summary>
    /// Keeps each missing shard's sentence in the store as the run ends, so GET, the events' final and the log read the
    /// same one later ("within 120 s", not "before the run ended"; the seconds without a heartbeat as they were then).
    /// </summary>
    private async Task DeclareMissingAsync(Guid runId, IReadOnlyList<AgentReport> reports)
    {
        foreach (var report in reports.Where(report => report.State == AgentState.Missing))
        {
            try
            {
                await store.DeclareMissingAsync(runId, report.Shard, report.Error ?? "Missing.", time.GetUtcNow(), CancellationToken.None);
            }
            catch (Exception failed) when (RunAgentStore.IsStoreFailure(failed))
            {
                LogMissingUnwritten(logger, failed, runId, report.Shard, store.Description);
            }
        }
    }

    private static string Partial(RunPlan plan, IReadOnlyList<AgentReport> missing, int reported)
    {
        var shares = missing.Select(report => report.Share.Count is { } calls
            ? $"shard {report.Shard}/{plan.Agents}'s share of {calls} calls is missing ({report.Error?.TrimEnd('.')})"
            : $"shard {report.Shard}/{plan.Agents}'s share of {report.Share.Rate:0.##} calls/s is missing ({report.Error?.TrimEnd('.')})");
        return $"Partial: {string.Join("; ", shares)}. The figures are the {reported} of {plan.Agents} agents that reported.";
    }

    /// <summary>
    /// The agents' series on one clock: calls and errors summed per bucket. Percentiles per bucket cannot be summed (and
    /// are never averaged), so a merged bucket has none; each agent's own stats keep theirs.
    /// </summary>
    private static TimeSeries MergedSeries(IReadOnlyList<ShardRow> rows, DateTimeOffset from, double spanMs)
    {
        var interval = spanMs < RunRecorder.FineSeriesLimitMs ? 100.0 : 1000.0;
        var buckets = new SortedDictionary<int, (long Calls, long Errors, Dictionary<string, long> ByStatus)>();
        foreach (var row in rows.Where(row => row.Series is not null))
        {
            var offset = (row.Figures!.MeasuredFrom - from).TotalMilliseconds;
            foreach (var point in row.Series!.Points)
            {
                var bucket = Math.Max(1, (int)Math.Ceiling((offset + point.AtMs) / interval - 1e-9));
                var (calls, errors, byStatus) = buckets.GetValueOrDefault(bucket, (0, 0, new Dictionary<string, long>(StringComparer.Ordinal)));
                foreach (var (status, count) in point.ErrorsByStatus)
                {
                    byStatus[status] = byStatus.GetValueOrDefault(status) + count;
                }

                buckets[bucket] = (calls + point.Calls, errors + point.Errors, byStatus);
            }
        }

        return new TimeSeries(interval, [.. buckets.Select(pair => new TimePoint(pair.Key * interval, pair.Value.Calls, pair.Value.Errors, pair.Value.ByStatus, null, null, null, null))]);
    }

    private static ProgressSnapshot Progress(RunRecord run, IReadOnlyList<AgentReport> reports, DateTimeOffset now)
    {
        var calls = reports.Sum(report => report.Stats?.Calls ?? report.CallsSoFar);
        var failed = reports.Sum(report => report.Stats?.Failed ?? 0);
        var elapsed = (now - run.StartedAt).TotalMilliseconds;
        return new ProgressSnapshot(0, RunPhase.Measured, run.Plan.Count ?? 0, calls, calls - failed, failed, elapsed, 0, null, null);
    }

    private async Task TellAgentsToStopAsync(Guid runId)
    {
        try
        {
            await store.CancelRunAsync(runId, CancellationToken.None);
        }
        catch (Exception failed) when (RunAgentStore.IsStoreFailure(failed))
        {
            LogCancelUnwritten(logger, failed, runId, store.Description);
        }
    }

    private static string Quote(string path) => path.Contains(' ', StringComparison.Ordinal) ? $"\"{path}\"" : path;

    [LoggerMessage(Level = LogLevel.Warning, Message = "The shards of distributed run {RunId} could not be read from {Store}; waiting for it to answer again")]
    private static partial void LogShardsUnreadable(ILogger logger, Exception exception, Guid runId, string store);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Distributed run {RunId} ended without shard {Shard}, but {Store} refused that word; a later read may word its absence differently")]
    private static partial void LogMissingUnwritten(ILogger logger, Exception exception, Guid runId, int shard, string store);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Distributed run {RunId} was cancelled but {Store} refused the word to its agents; they stop at their time limit")]
    private static partial void LogCancelUnwritten(ILogger logger, Exception exception, Guid runId, string store);
}
