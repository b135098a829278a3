using System.CommandLine;
using HistoryStore;
using Microsoft.Extensions.DependencyInjection;

namespace LoadTest;

/// <summary>Which share of which run, and where the shared history is.</summary>
public sealed record AgentSettings(Guid RunId, AgentShard Shard, string Provider, string Connection);

/// <summary>
/// The CLI as one load agent of a distributed run: it finds the run the gateway created in the shared history, claims
/// its shard, runs its share of the plan with the same engine as every other run, beats every second while it runs
/// (the gateway takes an agent that stops beating for dead, and its share for missing), and writes back what it
/// recorded: the exact histograms, the counts by status and the time series. The gateway merges the shares.
/// </summary>
public static class AgentMode
{
    public static readonly TimeSpan Beat = TimeSpan.FromSeconds(1);

    /// <summary>The gateway's own settings for the shared history, as environment variables: one Secret or ConfigMap serves both.</summary>
    public const string ProviderVariable = "History__Provider";
    public const string ConnectionVariable = "ConnectionStrings__History";
    public const string DatabasePathVariable = "History__DatabasePath";

    public static readonly IReadOnlyList<string> EnvironmentVariables = [ProviderVariable, ConnectionVariable, DatabasePathVariable];

    // The final write is what the whole share was for: retried for about half a minute before the agent gives up.
    private static readonly TimeSpan[] FinishRetries = [TimeSpan.FromSeconds(0.5), TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(2), TimeSpan.FromSeconds(4), TimeSpan.FromSeconds(8), TimeSpan.FromSeconds(16)];

    public static bool TryRead(ParseResult parsed, LoadTestCommand command, Func<string, string?> environment, out AgentSettings agent, out string error)
    {
        agent = null!;
        if (parsed.GetValue(command.RunId) is not { } runId)
        {
            error = "agent needs --run-id: the id POST /api/runs answered for the distributed run.";
            return false;
        }

        if (parsed.GetValue(command.Shard) is not { } shard)
        {
            error = "--shard was ''; it must be index/count with the index from 0 and below the count, e.g. 0/4.";
            return false;
        }

        var provider = parsed.GetValue(command.HistoryProvider) ?? environment(ProviderVariable) ?? HistoryDatabase.Sqlite;
        var sqlite = string.Equals(provider, HistoryDatabase.Sqlite, StringComparison.OrdinalIgnoreCase);
        var connection = parsed.GetValue(command.History) ?? environment(ConnectionVariable) ?? (sqlite ? environment(DatabasePathVariable) : null);
        error = !sqlite && !string.Equals(provider, HistoryDatabase.Postgres, StringComparison.OrdinalIgnoreCase)
            ? $"the history provider was '{provider}'; it must be {HistoryDatabase.Sqlite} or {HistoryDatabase.Postgres} (--history-provider, or {ProviderVariable})."
            : string.IsNullOrWhiteSpace(connection)
            ? $"agent needs the shared history the gateway uses: --history (the SQLite file, or the PostgreSQL connection string), or {ConnectionVariable} in the environment."
            : string.Empty;
        agent = new AgentSettings(runId, shard, provider, connection ?? "");
        return error.Length == 0;
    }

    public static async Task<int> RunAsync(LoadTestSettings settings, AgentSettings agent, TextWriter output, TextWriter error, Interrupt interrupt)
    {
        await using var store = new RunAgentStore(HistoryDatabase.Open(agent.Provider, agent.Connection));
        var name = $"{Environment.MachineName} (pid {Environment.ProcessId})";
        AgentRun? run;
        ShardHolder? holder;
        try
        {
            await store.EnsureSchemaAsync(interrupt.Token);
            run = await store.GetRunAsync(agent.RunId, interrupt.Token);
            if (run is null)
            {
                return Exit(error, ExitCodes.Usage, $"there is no distributed run {agent.RunId} in {store.Description}; POST /api/runs with agents creates one.");
            }

            if (run.Plan.Agents != agent.Shard.Count)
            {
                return Exit(error, ExitCodes.Usage, $"run {agent.RunId} is shared among {run.Plan.Agents ?? 1} agents; --shard was {agent.Shard}.");
            }

            if (run.Cancelled)
            {
                return Exit(error, ExitCodes.NotCompleted, $"run {agent.RunId} was cancelled at the gateway; nothing was run.");
            }

            holder = await store.ClaimAsync(agent.RunId, agent.Shard, name, DateTimeOffset.UtcNow, interrupt.Token);
        }
        catch (Exception unusable) when (RunAgentStore.IsStoreFailure(unusable))
        {
            return Exit(error, ExitCodes.NotCompleted, $"{store.Description} cannot be used: {unusable.Message.TrimEnd('.')}.");
        }

        if (holder is { State: AgentState.Missing })
        {
            return Exit(error, ExitCodes.NotCompleted, $"run {agent.RunId} ended without shard {agent.Shard}: {holder.Error ?? "the gateway declared it missing."} Nothing was run.");
        }

        if (holder is not null)
        {
            return Exit(error, ExitCodes.Usage, $"shard {agent.Shard} of run {agent.RunId} is already taken by {holder.Agent}.");
        }

        RunRecord ended;
        if (run.Problem is { } problem)
        {
            // Claimed and failed rather than left alone: the gateway ends the run with this sentence now, not after its join timeout.
            var now = DateTimeOffset.UtcNow;
            ended = new RunRecord(agent.RunId, run.Plan, RunState.Failed, now, now, null, problem, null);
        }
        else
        {
            var share = AgentShares.Of(run.Plan, agent.Shard);
            output.WriteLine($"agent {name}: shard {agent.Shard} of run {agent.RunId}: {share.Strategy}{(share.Described?.Call is { } call ? $" calling {call}" : "")}, {Describe(share)}, against {settings.Target}");
            await using var services = LoadTestRunner.BuildServices(settings);
            ended = await services.GetRequiredService<LoadTestRunner>().Sequence(new Heartbeat(store, agent, error, interrupt), settings.Limits, interrupt).RunAsync(share, 1, 1);
        }

        var state = ended.State switch
        {
            RunState.Completed => AgentState.Completed,
            RunState.Cancelled => AgentState.Cancelled,
            _ => AgentState.Failed,
        };
        if (await TryFinishAsync(store, agent, state, ended, error) is { } unstored)
        {
            return Exit(error, ExitCodes.NotCompleted, $"the share ended {state} but {unstored}");
        }

        output.WriteLine($"agent {name}: shard {agent.Shard} {state}: {Summary(ended)}; stored in {store.Description}.");
        return state switch
        {
            AgentState.Completed => ExitCodes.Passed,
            AgentState.Cancelled when interrupt.Signal is not null => ExitCodes.Interrupted,
            _ => ExitCodes.NotCompleted,
        };
    }

    /// <summary>Follows the share's run by beating every second until the engine finishes it.</summary>
    private sealed class Heartbeat(RunAgentStore store, AgentSettings agent, TextWriter error, Interrupt interrupt) : IRunFollower
    {
        public async Task FollowAsync(RunRecord run, int position, int of, LiveRun live)
        {
            using (live)
            using (var stopBeating = new CancellationTokenSource())
            {
                var beating = BeatAsync(store, agent, live, error, interrupt, stopBeating.Token);
                await live.Finished;
                await stopBeating.CancelAsync();
                await beating;
            }
        }
    }

    /// <summary>Every second: the calls made so far, and whether the gateway cancelled the run (then the share stops as if interrupted).</summary>
    private static async Task BeatAsync(RunAgentStore store, AgentSettings agent, LiveRun live, TextWriter error, Interrupt interrupt, CancellationToken stop)
    {
        using var timer = new PeriodicTimer(Beat);
        var failing = false;
        try
        {
            while (await timer.WaitForNextTickAsync(stop))
            {
                var latest = live.Latest;
                var calls = latest.Phase == RunPhase.Measured ? latest.Completed : 0;
                try
                {
                    if (await store.HeartbeatAsync(agent.RunId, agent.Shard.Index, calls, DateTimeOffset.UtcNow, stop))
                    {
                        interrupt.Raise("the run's cancellation at the gateway");
                    }

                    failing = false;
                }
                catch (Exception unreachable) when (RunAgentStore.IsStoreFailure(unreachable) && !stop.IsCancellationRequested)
                {
                    // Said once per outage: the share goes on, and the gateway decides whether it waited too long.
                    if (!failing)
                    {
                        error.WriteLine($"loadtest agent: a heartbeat could not be written to {store.Description} ({unreachable.Message.TrimEnd('.')}); still running.");
                    }

                    failing = true;
                }
            }
        }
        catch (OperationCanceledException) when (stop.IsCancellationRequested)
        {
        }
    }

    /// <summary>Writes the share's end; null when stored, else why it was not (the rest of a sentence).</summary>
    private static async Task<string?> TryFinishAsync(RunAgentStore store, AgentSettings agent, AgentState state, RunRecord ended, TextWriter error)
    {
        for (var attempt = 0; ; attempt++)
        {
            try
            {
                return await store.FinishAsync(agent.RunId, agent.Shard.Index, state, ended.Error, ended, DateTimeOffset.UtcNow)
                    ? null
                    : "the gateway had already ended the run without it (declared missing): its figures are not in the run.";
            }
            catch (Exception failed) when (RunAgentStore.IsStoreFailure(failed) && attempt < FinishRetries.Length)
            {
                error.WriteLine($"loadtest agent: the share's figures could not be written to {store.Description} ({failed.Message.TrimEnd('.')}); trying again in {FinishRetries[attempt].TotalSeconds:0.#} s.");
                await Task.Delay(FinishRetries[attempt]);
            }
            catch (Exception failed) when (RunAgentStore.IsStoreFailure(failed))
            {
                return $"could not be stored in {store.Description}; the gateway will show it as missing.";
            }
        }
    }

    private static int Exit(TextWriter error, int exitCode, string sentence)
    {
        error.WriteLine($"loadtest agent: {sentence}");
        return exitCode;
    }

    private static string Describe(RunPlan share) => share switch
    {
        { IsOpen: true } => $"{share.Rate:0.##} calls/s for {share.Duration:0.##} s",
        { Count: { } count, Duration: { } duration } => $"{count} calls or {duration:0.##} s",
        { Count: { } count } => $"{count} calls, {share.Concurrency} in flight",
        _ => $"{share.Duration:0.##} s, {share.Concurrency} in flight",
    };

    private static string Summary(RunRecord ended) => ended.Stats is not { } stats
        ? ended.Error?.TrimEnd('.') ?? "nothing was measured"
        : $"{stats.Calls} calls, {stats.Failed} failed" + (stats.Latency is { } latency ? $", p50 {latency.P50Ms:0.###} ms, p99 {latency.P99Ms:0.###} ms" : "") + ((ended.Error ?? ended.Note) is { } why ? $" ({why})" : "");
}
