using ApiGateway.Configuration;
using ApiGateway.Runs;
using ApiGateway.Strategies;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.Extensions.Options;

namespace ApiGateway.Endpoints;

/// <summary>The chapter's six routes. Each only parses the plan and hands its strategy to the run engine.</summary>
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
        services.AddSingleton<RunEngine>();
        // Like the chapter's controller: the factory hands a fresh client to each HTTP request.
        services.AddTransient<FactoryClientStrategy>();
        services.AddSingleton<ClientWrapperStrategy>();
        services.AddSingleton<InitializedClientStrategy>();
        services.AddSingleton<StreamingCallStrategy>();
        services.AddSingleton<SingleConnectionStrategy>();
        services.AddSingleton<MultipleConnectionsStrategy>();
        return services;
    }

    private static RouteHandlerBuilder MapStrategy<TStrategy>(this IEndpointRouteBuilder app, RunLimitsOptions limits)
        where TStrategy : IClientStrategy, IDescribedStrategy
    {
        var info = TStrategy.Info;
        return app.MapGet(info.Route, async Task<Results<Ok<RunResponse>, ProblemHttpResult>> (
                string count, string? delayMs, TStrategy strategy, RunEngine engine, IOptions<RunLimitsOptions> options, HttpContext http) =>
            {
                if (!RunPlanValidator.TryCreate(new RunPlanInput(info.Name, count, DelayMs: delayMs), options.Value, [info.Name], out var plan, out var error))
                {
                    return TypedResults.Problem(statusCode: StatusCodes.Status400BadRequest, title: "Invalid run parameters", detail: error);
                }

                return TypedResults.Ok(await engine.RunAsync(strategy, info, plan, http.RequestAborted));
            })
            .WithName(info.Name)
            .WithTags(info.Group)
            .WithSummary(info.Summary)
            .WithDescription(
                $"Lesson: {info.Lesson} ({info.Link})\n\n" +
                $"count: a whole number from 1 to {limits.MaxCount} (Runs:MaxCount). " +
                $"delayMs (optional): the service waits this many milliseconds before each answer, 0 to {RunPlanValidator.MaxDelayMs}. " +
                $"Each call has a deadline of {limits.CallTimeoutSeconds} s (Runs:CallTimeoutSeconds); the first failed call stops the run with 503.")
            .ProducesProblem(StatusCodes.Status503ServiceUnavailable);
    }
}
