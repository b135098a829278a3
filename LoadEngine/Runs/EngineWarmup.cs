using System.Diagnostics;
using LoadEngine.Lessons;
using LoadEngine.Protocols;
using LoadEngine.Strategies;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace LoadEngine.Runs;

/// <summary>How the engine's warm-up at start went: warmed, or skipped and why; what it ran and how long it took.</summary>
public sealed record WarmupReport(bool Warmed, string Summary, double DurationMs, IReadOnlyList<string> Ran);

/// <summary>
/// Runs every strategy and every contender this host can reach, briefly, before anything is measured, so the first run
/// of the day meets code the JIT has already compiled (and tiered up) and connection pools already made: a workshop's
/// first click then measures steady state, not start-up. Nothing it runs is stored. It stops at the first failure (a dead
/// or hung service must not hold the start) and within <see cref="Budget"/>.
/// </summary>
public static class EngineWarmup
{
    public static readonly TimeSpan Budget = TimeSpan.FromSeconds(60);

    // Enough calls for .NET's tiered JIT to promote the hot paths (30 calls, then a background recompile), few enough to take a second or two.
    private const int UnaryCalls = 300;
    private const int ContenderCalls = 60;

    public static async Task<WarmupReport> RunAsync(IServiceProvider services, CancellationToken stopping)
    {
        var start = Stopwatch.GetTimestamp();
        var options = services.GetRequiredService<IOptions<EngineOptions>>().Value;
        using var budget = CancellationTokenSource.CreateLinkedTokenSource(stopping);
        budget.CancelAfter(Budget);
        var ran = new List<string>();
        foreach (var (name, input) in Plans(options))
        {
            if (!RunPlanRules.TryCreate(input, PlanLimits.Defaults, StrategyList.Names, out var plan, out var refusal))
            {
                throw new InvalidOperationException($"The warm-up's own plan for {name} was refused: {refusal}");
            }

            var run = RunRecord.Starting(plan);
            var ended = await PlanExecutor.ExecuteAsync(services, run, new LiveRun(), budget.Token);
            if (ended.State != RunState.Completed || ended.Stats is not { Failed: 0 })
            {
                var why = budget.IsCancellationRequested && !stopping.IsCancellationRequested
                    ? $"it took longer than {Budget.TotalSeconds:0} s"
                    : $"{name} did not complete ({ended.Error ?? $"{ended.Stats?.Failed ?? 0} failed calls"})";
                return new WarmupReport(false, $"Not warmed: {why}. The first run of each strategy may include start-up costs.", Elapsed(start), ran);
            }

            ran.Add(name);
        }

        // The payload lesson's copy benchmark and sizing code.
        await services.GetRequiredService<PayloadLesson>().RunAsync(1024, budget.Token);
        ran.Add("binary-payloads");
        return new WarmupReport(true, $"Warmed at start in {Elapsed(start) / 1000:0.0} s: {ran.Count} strategies, contenders and lessons ran briefly, unmeasured.", Elapsed(start), ran);
    }

    /// <summary>
    /// Each strategy under its own load, then the contenders the lessons run (gRPC and REST over TLS, a new TLS channel
    /// per call) when this host can reach them; the Protocols part's other contenders share their code paths.
    /// </summary>
    private static IEnumerable<(string Name, RunPlanInput Input)> Plans(EngineOptions options)
    {
        foreach (var strategy in StrategyList.All)
        {
            yield return (strategy.Info.Name, new RunPlanInput(strategy.Info.Name, UnaryCalls, IncludeStatuses: false));
        }

        foreach (var (workload, contenderName, connection) in WarmedContenders)
        {
            var contender = ContenderList.Find(contenderName)!;
            if (WorkloadTargets.Check(contender, options, out _))
            {
                yield return ($"{workload} on {contender.Name}", contender.Into(new RunPlanInput(null, ContenderCalls, IncludeStatuses: false)
                {
                    Workload = workload,
                    Connection = connection,
                }));
            }
        }
    }

    private static readonly (string Workload, string Contender, ConnectionUse? Connection)[] WarmedContenders =
    [
        ("small-mixed", "grpc-h2-tls", null),
        ("small-mixed", "rest-stj-h1-tls", null),
        ("big-list", "grpc-h2-tls", null),
        ("big-list", "rest-stj-h1-tls", null),
        ("big-dto", "grpc-h2-tls", ConnectionUse.NewPerCall),
    ];

    private static double Elapsed(long start) => Math.Round(Stopwatch.GetElapsedTime(start).TotalMilliseconds, 1);
}
