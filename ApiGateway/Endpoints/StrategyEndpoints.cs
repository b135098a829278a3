using ApiGateway.Configuration;
using ApiGateway.Errors;
using ApiGateway.OpenApi;
using ApiGateway.Runs;
using ApiGateway.Security;
using ApiGateway.Targets;
using LoadEngine;
using LoadEngine.Clients;
using LoadEngine.Reports;
using LoadEngine.Strategies;
using LoadEngine.Targets;
using System.Text.Json;
using System.Text.RegularExpressions;
using LoadEngine.Protocols;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.Extensions.Options;

namespace ApiGateway.Endpoints;

/// <summary>
/// The chapter's JSON, plus what a reader needs to trust it. The figures come first (System.Text.Json writes a record's
/// properties in this order), then the time series, then the statuses, one per call, which can run to megabytes.
/// </summary>
public sealed record ChapterRunResponse(
    Guid RunId,
    string Strategy,
    int Count,
    int DelayMs,
    double RequestProcessingTime,
    int ConnectionsUsed,
    string? Measured,
    string? Note,
    RunPlan Plan,
    RunStats Stats,
    Verdict? Verdict,
    TimeSeries? Series,
    IAsyncEnumerable<PerformanceStatus> PerformanceStatuses);

/// <summary>
/// What the chart page shows from the engine rather than from a copy: the loads, the payload's default and limit, the
/// whole-number settings (range and default, as configured), the palette.
/// </summary>
public sealed record PlanFacts(IReadOnlyList<LoadFact> Loads, int DefaultPayloadBytes, int MaxPayloadBytes, IReadOnlyList<PlanSetting> Settings, IReadOnlyList<string> Palette, IReadOnlyDictionary<string, string> ApiColours, string UnknownColour)
{
    public static PlanFacts For(RunLimitsOptions limits) => new(
        LoadFact.All, RunPlanRules.DefaultPayloadBytes, RunPlanRules.MaxPayloadBytes, [.. DescribedSettings.All(limits.PlanLimits()).Where(setting => setting.Kind == SettingKind.Whole)],
        HtmlReport.Palette, HtmlReport.ApiColours, HtmlReport.UnknownColour);
}

/// <summary>
/// A chapter route's query, bound by ASP.NET Core: a number or true/false that does not read is refused by the exception
/// handler with the sentence its body value gets (<see cref="QueryRefusal"/>); a load, stages and percentiles read as
/// the body reads their text, so a load is taken by its wire name only, never by its number. The settings that describe
/// themselves it inherits, typed, so a new one is a query parameter without a line here.
/// </summary>
public sealed record ChapterQuery : DescribedSettings
{
    public string? Load { get; init; }

    public int? Concurrency { get; init; }

    public double? Rate { get; init; }

    public double? Duration { get; init; }

    public string? Stages { get; init; }

    public string? Percentiles { get; init; }

    public string[]? Thresholds { get; init; }

    public bool? IncludeStatuses { get; init; }

    public bool TryInput(string strategy, int count, PlanLimits limits, out RunPlanInput input, out string error)
    {
        LoadKind load = default;
        IReadOnlyList<RampStage>? stages = null;
        IReadOnlyList<double>? percentiles = null;
        // In the body's order of fields; a blank value is left out, as a query has always taken it.
        error = (string.IsNullOrEmpty(Load) || WireNames<LoadKind>.TryParse(Load, out load) ? null : RunPlanText.Refusal("load", Load, limits))
            ?? (string.IsNullOrWhiteSpace(Stages) || RunPlanText.TryStages(Stages, out stages, out var notStages) ? null : notStages)
            ?? (string.IsNullOrWhiteSpace(Percentiles) || RunPlanText.TryPercentiles(Percentiles, out percentiles, out var notPercentiles) ? null : notPercentiles)
            ?? string.Empty;
        input = Into(new RunPlanInput(strategy, count, Concurrency, IncludeStatuses)
        {
            Load = string.IsNullOrEmpty(Load) ? null : load, Rate = Rate, Duration = Duration, Stages = stages, Percentiles = percentiles, Thresholds = Thresholds,
        });
        return error.Length == 0;
    }

    /// <summary>
    /// The sentence for a path or query value ASP.NET Core could not bind, as its body value's would be: the binding names the
    /// parameter and the text it held (RequestDelegateFactory's "Failed to bind parameter" message); null for any other failure or parameter.
    /// </summary>
    public static string? QueryRefusal(BadHttpRequestException bad, PlanLimits limits) =>
        Regex.Match(bad.Message, "^Failed to bind parameter \"[^\"]* (?<name>\\w+)\" from \"(?<text>.*)\"\\.$", RegexOptions.Singleline) is { Success: true } unbound
            && JsonNamingPolicy.CamelCase.ConvertName(unbound.Groups["name"].Value) is var field && RunPlanText.Fields.Contains(field)
            ? RunPlanText.Refusal(field, unbound.Groups["text"].Value, limits)
            : null;
}

/// <summary>The chapter's routes, one per strategy of the list, each only parsing the plan for the run coordinator; and the facts its plans follow.</summary>
public static class StrategyEndpoints
{
    public static IEndpointRouteBuilder MapStrategyEndpoints(this IEndpointRouteBuilder app)
    {
        var limits = app.ServiceProvider.GetRequiredService<IOptions<RunLimitsOptions>>().Value;
        foreach (var strategy in StrategyList.All)
        {
            app.MapStrategy(strategy.Info, limits);
        }

        var facts = PlanFacts.For(limits);
        app.MapGet("/api/plan-facts", () => facts).WithTags("Strategies").WithParameters(RouteParameters.None)
            .WithSummary("The loads (name, words, whether calls start on a schedule, the settings each reads), the payload's default and limit, the whole-number settings' ranges and defaults, and the charts' palette.");
        return app;
    }

    public static IServiceCollection AddStrategies(this IServiceCollection services)
    {
        services.AddLoadEngine();
        // Runs of a configured target run in its own engine.
        services.AddTargets();
        services.AddSingleton<RunMetrics>();
        services.AddSingleton<RunCoordinator>();
        services.AddEventViewers();
        services.AddOptions<MemoryReleaseOptions>().BindConfiguration(MemoryReleaseOptions.Section).ValidateOnStart();
        services.AddHostedService<MemoryRelease>();
        services.AddSingleton<WarmupState>();
        services.AddHostedService(provider => provider.GetRequiredService<RunCoordinator>());
        return services;
    }

    public static PlanLimits PlanLimits(this RunLimitsOptions limits) => new(limits.MaxCount, limits.MaxConcurrency, limits.MaxWarmup, limits.MaxRunSeconds)
    {
        MaxRunMemoryBytes = limits.MaxRunMemoryMegabytes * 1024L * 1024,
    };

    private static RouteHandlerBuilder MapStrategy(this IEndpointRouteBuilder app, StrategyInfo info, RunLimitsOptions limits) =>
        app.MapGet(info.Route, async Task<Results<Ok<ChapterRunResponse>, ProblemHttpResult>> (
                int count, [AsParameters] ChapterQuery query, RunCoordinator runs, ChannelFactory channels, IOptions<RunLimitsOptions> options, HttpContext http) =>
            {
                if (!query.TryInput(info.Name, count, options.Value.PlanLimits(), out var input, out var error)
                    || !RunPlanRules.TryCreate(input, options.Value.PlanLimits(), [info.Name], out var plan, out error))
                {
                    return ProblemResponses.InvalidParameters(error);
                }

                if (await runs.StartRunAsync(plan, http.RequestAborted) is not { } run)
                {
                    return ProblemResponses.TooManyRuns(http, options.Value.MaxRunsInFlight);
                }

                // The statuses' spool file goes when the answer has been written, or the request ended any other way.
                http.Response.RegisterForDispose(run.Live);

                var ended = await run.Completion;
                http.RequestAborted.ThrowIfCancellationRequested();
                return ended is { State: RunState.Completed, Stats: { } stats }
                    ? TypedResults.Ok(new ChapterRunResponse(
                        ended.Id, info.Name, plan.Count ?? (int)stats.Calls, (plan.Called as BuiltInCall)?.DelayMs ?? 0, stats.WallTimeMs, stats.ConnectionsUsed, ended.Measured, ended.Note, plan, stats,
                        ended.Verdict, ended.Series, (run.Live.Answers as StatusSpool)?.ReadAsync(http.RequestAborted) ?? AsyncEnumerable.Empty<PerformanceStatus>()))
                    : ended.State == RunState.Cancelled && runs.IsStopping ? ProblemResponses.GatewayStopping(ended)
                    : ProblemResponses.RunDidNotComplete(channels.ServerUri, ended);
            })
            .WithName(info.Name)
            .WithTags(info.Group)
            .WithSummary(info.Summary)
            .WithDescription($"Lesson: {info.Lesson} ({info.Link})\n\n" +
                "Each parameter says what it does and its limits. requestProcessingTime is stats.wallTimeMs. The answer's figures come first, " +
                "then the time series, then performanceStatuses, one per call. " + RunParameters.DescribeRunLimits(limits))
            .WithParameters(RunParameters.ForRoute(info, limits))
            .ProducesProblem(ProblemResponses.OverMemoryBudgetExample(limits.PlanLimits().MaxRunMemoryBytes, keepsStatuses: true))
            .ProducesProblem(ProblemResponses.TooManyRuns(limits.MaxRunsInFlight))
            .ProducesProblem(ProblemResponses.RunDidNotCompleteExample(info.Name))
            .SameOriginOnly();
}
