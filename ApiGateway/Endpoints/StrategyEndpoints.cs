using System.Globalization;
using ApiGateway.Configuration;
using ApiGateway.Errors;
using ApiGateway.Runs;
using LoadEngine.Clients;
using LoadEngine.Strategies;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.Extensions.Options;

namespace ApiGateway.Endpoints;

/// <summary>The chapter's JSON, plus what a reader needs to trust it. Statuses last, so the figures come first.</summary>
public sealed record ChapterRunResponse(
    Guid RunId,
    string Strategy,
    int Count,
    int DelayMs,
    double RequestProcessingTime,
    int ConnectionsUsed,
    string? Measured,
    RunPlan Plan,
    RunStats Stats,
    TimeSeries? Series,
    Verdict? Verdict,
    IReadOnlyList<PerformanceStatus> PerformanceStatuses);

/// <summary>The chapter's routes, one per strategy of the list. Each only parses the plan and hands it to the run coordinator.</summary>
public static class StrategyEndpoints
{
    public static IEndpointRouteBuilder MapStrategyEndpoints(this IEndpointRouteBuilder app)
    {
        var limits = app.ServiceProvider.GetRequiredService<IOptions<RunLimitsOptions>>().Value;
        foreach (var strategy in StrategyList.All)
        {
            app.MapStrategy(strategy.Info, limits);
        }

        return app;
    }

    public static IServiceCollection AddStrategies(this IServiceCollection services)
    {
        services.AddLoadEngine();
        services.AddSingleton<RunCoordinator>();
        services.AddSingleton<WarmupState>();
        services.AddHostedService(provider => provider.GetRequiredService<RunCoordinator>());
        return services;
    }

    /// <summary>The limits every run-starting endpoint states in its OpenAPI description.</summary>
    public static string DescribeLimits(RunLimitsOptions limits) =>
        $"count: 1 to {limits.MaxCount} (Runs:MaxCount). " +
        $"load (optional): {RunPlanRules.LoadNames}; left out, the strategy's own (the chapter's): sequential for the Performance routes but the stream, closed (all at once) for the stream and the Concurrency routes. " +
        $"concurrency (closed load): calls in flight, 1 to {limits.MaxConcurrency}; left out, all calls at once, at most {limits.MaxConcurrency} in flight. " +
        $"rate (open load: calls started per second; ramping: the rate it starts from), duration (seconds the measured phase lasts, at most {limits.MaxRunSeconds}; with a count, whichever ends first), " +
        "stages (ramping: seconds:rate pairs such as 10:5000,20:5000). " +
        $"warmup: calls made first and kept out of the statistics, 0 to {limits.MaxWarmup}. " +
        $"delayMs: the service waits this long before each answer, 0 to {RunPlanRules.MaxDelayMs}. " +
        $"payloadBytes: size of each of the two data fields, 1 to {RunPlanRules.MaxPayloadBytes} (default {RunPlanRules.DefaultPayloadBytes}). " +
        $"percentiles: which to report, e.g. 50,90,99,99.9 (default {string.Join(',', RunPlan.DefaultPercentiles.Select(p => p.ToString(CultureInfo.InvariantCulture)))}). " +
        "thresholds: k6-style pass/fail conditions such as \"p99 < 5ms\" or \"errorRate < 1%\"; the run's verdict judges each. " +
        $"Each call has a deadline of {limits.CallTimeoutSeconds} s (Runs:CallTimeoutSeconds); failed calls are counted by gRPC status, never as successes. " +
        $"A run may last {limits.MaxRunSeconds} s (Runs:MaxRunSeconds); at most {limits.MaxRunsInFlight} run(s) at once (Runs:MaxRunsInFlight), more get 429.";

    public static PlanLimits PlanLimits(this RunLimitsOptions limits) => new(limits.MaxCount, limits.MaxConcurrency, limits.MaxWarmup, limits.MaxRunSeconds);

    private static RouteHandlerBuilder MapStrategy(this IEndpointRouteBuilder app, StrategyInfo info, RunLimitsOptions limits) =>
        app.MapGet(info.Route, async Task<Results<Ok<ChapterRunResponse>, ProblemHttpResult>> (
                string count, string? concurrency, string? warmup, string? delayMs, string? payloadBytes, string? includeStatuses,
                string? load, string? rate, string? duration, string? stages, string? percentiles, string[]? thresholds,
                RunCoordinator runs, MonitorChannelFactory channels, IOptions<RunLimitsOptions> options, HttpContext http) =>
            {
                var input = new RunPlanInput(info.Name, count, concurrency, warmup, delayMs, payloadBytes, includeStatuses)
                {
                    Load = load, Rate = rate, Duration = duration, Stages = stages, Percentiles = percentiles, Thresholds = thresholds,
                };
                if (!RunPlanRules.TryCreate(input, options.Value.PlanLimits(), [info.Name], out var plan, out var error))
                {
                    return ProblemResponses.InvalidParameters(error);
                }

                if (await runs.StartRunAsync(plan, http.RequestAborted) is not { } run)
                {
                    return ProblemResponses.TooManyRuns(http, options.Value.MaxRunsInFlight);
                }

                var ended = await run.Completion;
                http.RequestAborted.ThrowIfCancellationRequested();
                return ended is { State: RunState.Completed, Stats: { } stats }
                    ? TypedResults.Ok(new ChapterRunResponse(
                        ended.Id, info.Name, plan.Count ?? (int)stats.Calls, plan.DelayMs, stats.WallTimeMs, stats.ConnectionsUsed, ended.Measured, plan, stats,
                        ended.Series, ended.Verdict, run.Live.Statuses))
                    : ProblemResponses.RunDidNotComplete(channels.ServerUri, ended);
            })
            .WithName(info.Name)
            .WithTags(info.Group)
            .WithSummary(info.Summary)
            .WithDescription($"Lesson: {info.Lesson} ({info.Link})\n\n{DescribeLimits(limits)} " +
                "includeStatuses: false leaves out the per-call list (for big counts). requestProcessingTime is stats.wallTimeMs.")
            .ProducesProblem(StatusCodes.Status400BadRequest)
            .ProducesProblem(StatusCodes.Status429TooManyRequests)
            .ProducesProblem(StatusCodes.Status503ServiceUnavailable);
}
