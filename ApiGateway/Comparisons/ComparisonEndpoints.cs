using ApiGateway.Configuration;
using ApiGateway.Endpoints;
using ApiGateway.Errors;
using ApiGateway.History;
using ApiGateway.OpenApi;
using ApiGateway.Runs;
using LoadEngine;
using LoadEngine.Protocols;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.Extensions.Options;
using ApiGateway.Security;

namespace ApiGateway.Comparisons;

/// <summary>
/// Protocol comparisons: one workload on several contenders, each run once per repetition, interleaved, as a suite whose
/// runs are stored like any other; the summary per contender and the sentence that says which was fastest.
/// </summary>
public static class ComparisonEndpoints
{
    private static readonly Paging Page = new("comparisons", 100, 20);

    private static readonly RouteParameters ListParameters = new([Page.Limit, Page.Offset]);

    private static readonly RouteParameters OneComparison = new([RouteParameter.RunId("comparison")]);

    public static IEndpointRouteBuilder MapComparisonEndpoints(this IEndpointRouteBuilder app)
    {
        var limits = RunApiEndpoints.LimitsOf(app);
        var comparisons = app.MapGroup("/api/comparisons").WithTags("Protocols");
        comparisons.MapPost("/", StartAsync).SameOriginOnly()
            .Accepts<ComparisonRequestBody>("application/json")
            .WithSummary("Compare contenders on one workload: each runs once per repetition, interleaved; 202 with the comparison's id and links.")
            .WithDescription(
                "Body: {\"workload\": \"small-ints\", \"contenders\": [\"grpc-h2-cleartext\", \"rest-stj-h2-cleartext\", \"rest-newtonsoft-h2-cleartext\"], \"repetitions\": 3, \"count\": 1000}. " +
                $"workload: {string.Join(", ", WorkloadList.Ids)}. contenders (optional; default: every contender that can run the workload with these settings on this gateway, " +
                $"at least two): {string.Join(", ", ContenderList.Names)}. repetitions: 1 to {PlanExpansion.MaxRepetitions}, default {PlanExpansion.DefaultRepetitions}; " +
                "each repetition runs every contender once, the order rotated by one each time (A B C, then B C A, then C A B), one run at a time, so drift falls on all alike. " +
                $"count defaults to the workload's own and warmup to a tenth of it (1 to {PlanExpansion.MaxDefaultWarmup} calls, kept out of the figures); load, duration, " +
                $"concurrency and rate as for POST /api/runs, and the settings the workload takes: {string.Join(", ", WorkloadParameters.All.Select(parameter => parameter.Name))}. " +
                $"Each run is an ordinary run in the history (its strategy is its contender) and of the suite with the comparison's id. {RunParameters.Describe(limits)}")
            .WithBody(RunRequestReader.Comparison, "/api/comparisons", app)
            .ProducesProblem(ProblemResponses.OverMemoryBudgetExample(limits.PlanLimits().MaxRunMemoryBytes, keepsStatuses: false))
            .ProducesProblem(ProblemResponses.TooManyRuns(limits.MaxRunsInFlight));
        comparisons.MapGet("/", ListAsync)
            .WithSummary("The comparisons, newest first, each with its summary and sentence.")
            .WithDescription($"{ListParameters.Describe()} GET /api/comparisons?limit=1 is the latest.")
            .WithParameters(ListParameters);
        comparisons.MapGet("/{id:guid}", GetAsync)
            .WithSummary("One comparison: its schedule and runs, the summary per contender, the ranking and the sentence.")
            .WithDescription(
                "schedule: each repetition and contender in the order they run, with the run's id and state. summary, per contender: runIds by repetition, " +
                "completedRuns, failure (why it is not ranked: a run that did not complete or a failed call), figures as {median, min, max} over its completed runs — " +
                string.Join(", ", ComparisonFigures.All.Select(figure => $"{figure.Name} ({figure.Title}, {figure.Unit})")) +
                " — and serverSaw (the HTTP and TLS versions the service saw). rankedBy: meanMs, or throughputPerSecond when the runs were bounded by duration " +
                "under a sequential or closed load. ranking (once completed, with two contenders or more without a failure): the order, the fastest against the next " +
                "and against the slowest (median and range of the per-repetition ratios), and withinSpread when the two best ranges overlap. sentence: all of that in words.")
            .WithParameters(OneComparison).ProducesProblem(NotFound(ProblemResponses.ExampleId));
        comparisons.MapPost("/{id:guid}/cancel", CancelAsync).SameOriginOnly()
            .WithSummary("Cancel a comparison: the current run is cancelled and no further run starts; no contender is then named fastest.")
            .WithParameters(OneComparison).ProducesProblem(NotFound(ProblemResponses.ExampleId));
        comparisons.MapGet("/{id:guid}/events", EventsAsync)
            .WithSummary("Server-Sent Events: 'progress' of the current run (with its contender, and which run of how many), 'run' when each run ends, then 'final' with the comparison.")
            .WithParameters(OneComparison).ProducesProblem(NotFound(ProblemResponses.ExampleId));
        return app;
    }

    private static async Task<Results<Accepted<ComparisonView>, ProblemHttpResult>> StartAsync(
        ComparisonRequestBody? body, HttpContext http, RunCoordinator coordinator, IOptions<RunLimitsOptions> limits, IOptions<EngineOptions> engine)
    {
        if (!RunApiEndpoints.TryPlan(body, out var error) || !RunRequestReader.TryNames(RunRequestReader.Comparison, body!.Contenders, out error)
            || !PlanExpansion.TryComparison(body, body.Contenders, body.Repetitions, limits.Value.PlanLimits(), engine.Value, out var comparison, out var schedule, out error))
        {
            return ProblemResponses.InvalidParameters(error);
        }

        if (await coordinator.StartSuiteAsync(schedule, comparison) is not { } suite)
        {
            return ProblemResponses.TooManyRuns(http, limits.Value.MaxRunsInFlight);
        }

        return TypedResults.Accepted($"/api/comparisons/{suite.Record.Id}", ComparisonSummary.Of(suite.Record, [], suite));
    }

    private static async Task<Results<Ok<ComparisonPage>, ProblemHttpResult>> ListAsync(string? limit, string? offset, RunCoordinator coordinator, IRunStore store)
    {
        if (!Page.TryRead(limit, offset, out var take, out var skip, out var error))
        {
            return ProblemResponses.InvalidParameters(error);
        }

        var views = new List<ComparisonView>();
        foreach (var suite in await store.ListComparisonsAsync(take, skip))
        {
            views.Add(ComparisonSummary.Of(suite, await store.ListSuiteRunsAsync(suite.Id), Active(suite.Id, coordinator)));
        }

        return TypedResults.Ok(new ComparisonPage(await store.CountComparisonsAsync(), take, skip, views));
    }

    /// <summary>The comparison as it is now: running (with the current run's progress) or from the history.</summary>
    private static async Task<Results<Ok<ComparisonView>, ProblemHttpResult>> GetAsync(Guid id, RunCoordinator coordinator, IRunStore store)
    {
        var active = Active(id, coordinator);
        var suite = active?.Record ?? await store.GetSuiteAsync(id);
        return suite?.Comparison is null ? NotFound(id) : TypedResults.Ok(ComparisonSummary.Of(suite, await store.ListSuiteRunsAsync(id), active));
    }

    private static async Task<Results<Ok<ComparisonView>, ProblemHttpResult>> CancelAsync(Guid id, RunCoordinator coordinator, IRunStore store)
    {
        if (Active(id, coordinator) is { } active)
        {
            active.Stop(RunState.Cancelled, "The comparison was cancelled on request.");
            await active.Completion;
        }

        return await GetAsync(id, coordinator, store);
    }

    private static async Task<Results<ServerSentEventsResult<object>, ProblemHttpResult>> EventsAsync(
        Guid id, RunCoordinator coordinator, IRunStore store, EventViewers viewers, HttpContext http, CancellationToken cancellation)
    {
        var active = Active(id, coordinator);
        return active is null && (await store.GetSuiteAsync(id, cancellation))?.Comparison is null
            ? NotFound(id)
            : viewers.Stream(http, RunApiEndpoints.SuiteEvents(id, active, store, (suite, runs) => ComparisonSummary.Of(suite, runs), cancellation));
    }

    private static ActiveSuite? Active(Guid id, RunCoordinator coordinator) => coordinator.FindSuite(id) is { Record.Comparison: not null } suite ? suite : null;

    private static ProblemHttpResult NotFound(Guid id) =>
        TypedResults.Problem(statusCode: StatusCodes.Status404NotFound, title: "No such comparison",
            detail: $"There is no comparison {id}; GET /api/comparisons lists them, and POST /api/comparisons starts one.");
}
