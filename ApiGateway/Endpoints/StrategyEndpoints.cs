using ApiGateway.Clients;
using ApiGateway.Configuration;
using ApiGateway.Errors;
using ApiGateway.Runs;
using ApiGateway.Strategies;
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
    string Measured,
    RunPlan Plan,
    RunStats Stats,
    IReadOnlyList<PerformanceStatus> PerformanceStatuses);

/// <summary>The chapter's six routes. Each only parses the plan and hands it to the run coordinator.</summary>
public static class StrategyEndpoints
{
    public static IEndpointRouteBuilder MapStrategyEndpoints(this IEndpointRouteBuilder app)
    {
        var limits = app.ServiceProvider.GetRequiredService<IOptions<RunLimitsOptions>>().Value;
        app.MapStrategy<FactoryClientStrategy>(limits);
        app.MapStrategy<ClientWrapperStrategy>(limits);
        app.MapStrategy<InitializedClientStrategy>(limits);
        app.MapStrategy<StreamingCallStrategy>(limits);
        app.MapStrategy<SingleConnectionStrategy>(limits);
        app.MapStrategy<MultipleConnectionsStrategy>(limits);
        return app;
    }

    public static IServiceCollection AddStrategies(this IServiceCollection services)
    {
        services.AddSingleton(new StrategyCatalog()
            .Add<FactoryClientStrategy>()
            .Add<ClientWrapperStrategy>()
            .Add<InitializedClientStrategy>()
            .Add<StreamingCallStrategy>()
            .Add<SingleConnectionStrategy>()
            .Add<MultipleConnectionsStrategy>());
        services.AddSingleton<RunEngine>();
        services.AddSingleton<RunCoordinator>();
        services.AddHostedService(provider => provider.GetRequiredService<RunCoordinator>());
        // Like the chapter's controller: the factory hands a fresh client to each run.
        services.AddTransient<FactoryClientStrategy>();
        services.AddSingleton<ClientWrapperStrategy>();
        services.AddSingleton<InitializedClientStrategy>();
        services.AddSingleton(provider => new StreamingCallStrategy(provider.GetRequiredService<MonitorClientWrapper>().CreateClient()));
        services.AddSingleton<SingleConnectionStrategy>();
        services.AddSingleton<MultipleConnectionsStrategy>();
        return services;
    }

    /// <summary>The limits every run-starting endpoint states in its OpenAPI description.</summary>
    public static string DescribeLimits(RunLimitsOptions limits) =>
        $"count: 1 to {limits.MaxCount} (Runs:MaxCount). " +
        $"concurrency (concurrent strategies only): 1 to {limits.MaxConcurrency}; left out, all calls at once, at most {limits.MaxConcurrency} in flight. " +
        $"warmup: calls made first and kept out of the statistics, 0 to {limits.MaxWarmup}. " +
        $"delayMs: the service waits this long before each answer, 0 to {RunPlanValidator.MaxDelayMs}. " +
        $"payloadBytes: size of each of the two data fields, 1 to {RunPlanValidator.MaxPayloadBytes} (default {RunPlanValidator.DefaultPayloadBytes}). " +
        $"Each call has a deadline of {limits.CallTimeoutSeconds} s (Runs:CallTimeoutSeconds); failed calls are counted by gRPC status, never as successes. " +
        $"A run may last {limits.MaxRunSeconds} s (Runs:MaxRunSeconds); at most {limits.MaxRunsInFlight} run(s) at once (Runs:MaxRunsInFlight), more get 429.";

    private static RouteHandlerBuilder MapStrategy<TStrategy>(this IEndpointRouteBuilder app, RunLimitsOptions limits)
        where TStrategy : IClientStrategy, IDescribedStrategy
    {
        var info = TStrategy.Info;
        return app.MapGet(info.Route, async Task<Results<Ok<ChapterRunResponse>, ProblemHttpResult>> (
                string count, string? concurrency, string? warmup, string? delayMs, string? payloadBytes, string? includeStatuses,
                RunCoordinator runs, MonitorChannelFactory channels, IOptions<RunLimitsOptions> options, HttpContext http) =>
            {
                var input = new RunPlanInput(info.Name, count, concurrency, warmup, delayMs, payloadBytes, includeStatuses);
                if (!RunPlanValidator.TryCreate(input, options.Value, [info.Name], out var plan, out var error))
                {
                    return ProblemResponses.InvalidParameters(error);
                }

                var run = await runs.StartRunAsync(plan, http.RequestAborted);
                var result = await run.Completion;
                http.RequestAborted.ThrowIfCancellationRequested();
                if (result.Record is not { State: RunState.Completed, Stats: { } stats })
                {
                    throw new RunFailedException(channels.ServerUri, result);
                }

                return TypedResults.Ok(new ChapterRunResponse(
                    result.Record.Id, info.Name, plan.Count ?? 0, plan.DelayMs, stats.WallTimeMs, stats.ConnectionsUsed, result.Measured, plan, stats, result.Statuses));
            })
            .WithName(info.Name)
            .WithTags(info.Group)
            .WithSummary(info.Summary)
            .WithDescription($"Lesson: {info.Lesson} ({info.Link})\n\n{DescribeLimits(limits)} " +
                "includeStatuses: false leaves out the per-call list (for big counts). requestProcessingTime is stats.wallTimeMs.")
            .ProducesProblem(StatusCodes.Status429TooManyRequests)
            .ProducesProblem(StatusCodes.Status503ServiceUnavailable);
    }
}
