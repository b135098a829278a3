using System.Net.ServerSentEvents;
using System.Runtime.CompilerServices;
using ApiGateway.Configuration;
using ApiGateway.Errors;
using ApiGateway.History;
using ApiGateway.Runs;
using ApiGateway.Strategies;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.Extensions.Options;

namespace ApiGateway.Endpoints;

/// <summary>The resource API the dashboard is built on: strategies, runs (started in the background), their live events, history and comparisons, and suites.</summary>
public static class RunApiEndpoints
{
    private const int MaxPageSize = 500;
    private static readonly TimeSpan EventPoll = TimeSpan.FromMilliseconds(50);

    public static IEndpointRouteBuilder MapRunApi(this IEndpointRouteBuilder app)
    {
        var limits = DescribeLimitsOf(app);
        var api = app.MapGroup("/api");

        api.MapGet("/strategies", (StrategyCatalog catalog) => catalog.All.Select(info => new
            {
                info.Name, info.Group, info.Route, info.Summary, info.Lesson, info.Link,
            }))
            .WithTags("Strategies").WithSummary("Every client strategy: its name, chapter route, lesson and the matching section of Microsoft's guide.");

        var runs = api.MapGroup("/runs").WithTags("Runs");
        runs.MapPost("/", StartRunAsync)
            .Accepts<RunRequestBody>("application/json")
            .WithSummary("Start a run in the background; 202 with its id and Location.")
            .WithDescription($"Body: {{\"strategy\": \"client-wrapper\", \"count\": 1000, \"concurrency\": 100, \"warmup\": 100, \"delayMs\": 0, \"payloadBytes\": 100}}. {limits} Per-call statuses are not kept for background runs.")
            .ProducesProblem(StatusCodes.Status400BadRequest).ProducesProblem(StatusCodes.Status429TooManyRequests);
        runs.MapGet("/", ListRunsAsync)
            .WithSummary("The run history, newest first.")
            .WithDescription($"strategy (optional): only that strategy's runs. limit: 1 to {MaxPageSize}, default 50. offset: 0 or more, default 0.")
            .ProducesProblem(StatusCodes.Status400BadRequest);
        runs.MapGet("/compare", CompareAsync)
            .WithSummary("Two finished runs side by side, with ratios (candidate ÷ baseline).")
            .WithDescription("baseline and candidate: run ids (GUIDs) of finished runs.")
            .ProducesProblem(StatusCodes.Status400BadRequest).ProducesProblem(StatusCodes.Status404NotFound);
        runs.MapGet("/{id:guid}", GetRunAsync).WithSummary("One run: its plan, state, statistics, and live progress while it runs.")
            .ProducesProblem(StatusCodes.Status404NotFound);
        runs.MapDelete("/{id:guid}", DeleteRunAsync).WithSummary("Delete a run from the history (a running run is cancelled first).")
            .ProducesProblem(StatusCodes.Status404NotFound);
        runs.MapPost("/{id:guid}/cancel", CancelRunAsync).WithSummary("Cancel a running run; it is stored as cancelled with what it measured so far.")
            .ProducesProblem(StatusCodes.Status404NotFound);
        runs.MapGet("/{id:guid}/events", RunEventsAsync)
            .WithSummary("Server-Sent Events: 'progress' five times a second (completed, errors, current throughput, rolling p50/p99), then one 'final' with the stored run.")
            .ProducesProblem(StatusCodes.Status404NotFound);

        var suites = api.MapGroup("/suites").WithTags("Suites");
        suites.MapPost("/", StartSuiteAsync)
            .Accepts<SuiteRequestBody>("application/json")
            .WithSummary("Run every strategy (or those listed in 'strategies') in turn with the same plan, and compare them.")
            .WithDescription($"Body: {{\"count\": 1000, \"strategies\": [\"client-wrapper\", \"streaming-call\"]}} (strategies optional: all). {limits}")
            .ProducesProblem(StatusCodes.Status400BadRequest).ProducesProblem(StatusCodes.Status429TooManyRequests);
        suites.MapGet("/{id:guid}", GetSuiteAsync).WithSummary("A suite, its runs, and each strategy's wall time against the fastest.")
            .ProducesProblem(StatusCodes.Status404NotFound);
        suites.MapPost("/{id:guid}/cancel", CancelSuiteAsync).WithSummary("Cancel a suite: the current run is cancelled and no further run starts.")
            .ProducesProblem(StatusCodes.Status404NotFound);
        suites.MapGet("/{id:guid}/events", SuiteEventsAsync)
            .WithSummary("Server-Sent Events: 'progress' of the current run (with its strategy), 'run' when each run ends, then 'final' with the suite.")
            .ProducesProblem(StatusCodes.Status404NotFound);
        return app;
    }

    private static string DescribeLimitsOf(IEndpointRouteBuilder app) =>
        StrategyEndpoints.DescribeLimits(app.ServiceProvider.GetRequiredService<IOptions<RunLimitsOptions>>().Value);

    private static async Task<Results<Accepted<RunView>, ProblemHttpResult>> StartRunAsync(
        HttpRequest http, RunCoordinator coordinator, StrategyCatalog catalog, IOptions<RunLimitsOptions> limits)
    {
        var (request, error) = await RunRequestReader.ReadAsync(http, suite: false);
        if (request is null)
        {
            return ProblemResponses.InvalidParameters(error);
        }

        if (!RunPlanValidator.TryCreate(request.Input, limits.Value, catalog.Names, out var plan, out error))
        {
            return ProblemResponses.InvalidParameters(error);
        }

        // Nobody waits on a background run's answer, so per-call statuses would only hold memory.
        var run = await coordinator.StartRunAsync(plan with { IncludeStatuses = false });
        return TypedResults.Accepted($"/api/runs/{run.Id}", RunView.From(run.Record, run.Progress.Latest));
    }

    private static async Task<Results<Ok<RunPage>, ProblemHttpResult>> ListRunsAsync(
        string? strategy, string? limit, string? offset, IRunStore store, StrategyCatalog catalog)
    {
        if (strategy is not null && !catalog.Names.Contains(strategy))
        {
            return ProblemResponses.InvalidParameters($"strategy was '{strategy}'; it must be one of: {string.Join(", ", catalog.Names)}.");
        }

        if (!RunPlanValidator.TryWhole(limit, "limit", 1, MaxPageSize, 50, out var take, out var error)
            || !RunPlanValidator.TryWhole(offset, "offset", 0, int.MaxValue, 0, out var skip, out error))
        {
            return ProblemResponses.InvalidParameters(error);
        }

        var total = await store.CountAsync(strategy);
        var page = await store.ListAsync(strategy, take, skip);
        return TypedResults.Ok(new RunPage(total, take, skip, page.Select(record => RunView.From(record)).ToList()));
    }

    private static async Task<Results<Ok<RunView>, ProblemHttpResult>> GetRunAsync(Guid id, RunCoordinator coordinator, IRunStore store)
    {
        if (coordinator.FindRun(id) is { } active)
        {
            return TypedResults.Ok(RunView.From(active.Record, active.Progress.Latest));
        }

        return await store.GetAsync(id) is { } record ? TypedResults.Ok(RunView.From(record)) : RunNotFound(id);
    }

    private static async Task<Results<NoContent, ProblemHttpResult>> DeleteRunAsync(Guid id, RunCoordinator coordinator, IRunStore store)
    {
        if (coordinator.FindRun(id) is { } active)
        {
            active.Stop(RunState.Cancelled, "Cancelled to be deleted.");
            await active.Progress.Finished;
        }

        return await store.DeleteAsync(id) ? TypedResults.NoContent() : RunNotFound(id);
    }

    private static async Task<Results<Ok<RunView>, ProblemHttpResult>> CancelRunAsync(Guid id, RunCoordinator coordinator, IRunStore store)
    {
        if (coordinator.FindRun(id) is { } active)
        {
            active.Stop(RunState.Cancelled, "Cancelled on request.");
            return TypedResults.Ok(RunView.From((await active.Completion).Record));
        }

        // Already finished: cancelling is a no-op, and the answer says how it ended.
        return await store.GetAsync(id) is { } record ? TypedResults.Ok(RunView.From(record)) : RunNotFound(id);
    }

    private static async Task<Results<Ok<RunComparison>, ProblemHttpResult>> CompareAsync(string? baseline, string? candidate, IRunStore store)
    {
        if (!Guid.TryParse(baseline, out var baselineId) || !Guid.TryParse(candidate, out var candidateId))
        {
            return ProblemResponses.InvalidParameters($"baseline was '{baseline}' and candidate '{candidate}'; both must be run ids (GUIDs) from /api/runs.");
        }

        var (first, second) = (await store.GetAsync(baselineId), await store.GetAsync(candidateId));
        if (first is null || second is null)
        {
            return RunNotFound(first is null ? baselineId : candidateId);
        }

        var unfinished = new[] { first, second }.FirstOrDefault(run => run.Stats is null);
        return unfinished is null
            ? TypedResults.Ok(RunComparison.Of(first, second))
            : ProblemResponses.InvalidParameters($"Run {unfinished.Id} has no statistics to compare (it is {unfinished.State}); compare finished runs.");
    }

    private static async Task<Results<ServerSentEventsResult<object>, ProblemHttpResult>> RunEventsAsync(
        Guid id, RunCoordinator coordinator, IRunStore store, CancellationToken cancellation)
    {
        var active = coordinator.FindRun(id);
        var stored = active is null ? await store.GetAsync(id) : null;
        if (active is null && stored is null)
        {
            return RunNotFound(id);
        }

        return TypedResults.ServerSentEvents(RunEvents(active, stored, cancellation));
    }

    private static async IAsyncEnumerable<SseItem<object>> RunEvents(ActiveRun? active, RunRecord? stored, [EnumeratorCancellation] CancellationToken cancellation)
    {
        if (active is not null)
        {
            await foreach (var progress in Progress(active.Progress, cancellation))
            {
                yield return new SseItem<object>(progress, "progress");
            }

            stored = (await active.Completion).Record;
        }

        yield return new SseItem<object>(RunView.From(stored!), "final");
    }

    private static async Task<Results<Accepted<SuiteView>, ProblemHttpResult>> StartSuiteAsync(
        HttpRequest http, RunCoordinator coordinator, StrategyCatalog catalog, IOptions<RunLimitsOptions> limits)
    {
        var (request, error) = await RunRequestReader.ReadAsync(http, suite: true);
        if (request is null)
        {
            return ProblemResponses.InvalidParameters(error);
        }

        var strategies = request.Strategies ?? catalog.Names.ToList();
        var unknown = strategies.FirstOrDefault(name => !catalog.Names.Contains(name));
        if (strategies.Count == 0 || unknown is not null || strategies.Distinct().Count() != strategies.Count)
        {
            return ProblemResponses.InvalidParameters(
                $"strategies must name each strategy at most once, from: {string.Join(", ", catalog.Names)}{(unknown is null ? "" : $"; '{unknown}' is not one")}.");
        }

        if (!RunPlanValidator.TryCreate(request.Input with { Strategy = strategies[0] }, limits.Value, catalog.Names, out var plan, out error))
        {
            return ProblemResponses.InvalidParameters(error);
        }

        var suite = await coordinator.StartSuiteAsync(plan with { IncludeStatuses = false }, strategies);
        return TypedResults.Accepted($"/api/suites/{suite.Record.Id}", SuiteView.From(suite.Record, [], suite));
    }

    private static async Task<Results<Ok<SuiteView>, ProblemHttpResult>> GetSuiteAsync(Guid id, RunCoordinator coordinator, IRunStore store)
    {
        var active = coordinator.FindSuite(id);
        var suite = active?.Record ?? await store.GetSuiteAsync(id);
        return suite is null ? SuiteNotFound(id) : TypedResults.Ok(SuiteView.From(suite, await store.ListSuiteRunsAsync(id), active));
    }

    private static async Task<Results<Ok<SuiteView>, ProblemHttpResult>> CancelSuiteAsync(Guid id, RunCoordinator coordinator, IRunStore store)
    {
        if (coordinator.FindSuite(id) is { } active)
        {
            active.Stop(RunState.Cancelled, "The suite was cancelled on request.");
            var ended = await active.Completion;
            return TypedResults.Ok(SuiteView.From(ended, await store.ListSuiteRunsAsync(id), null));
        }

        return await GetSuiteAsync(id, coordinator, store);
    }

    private static async Task<Results<ServerSentEventsResult<object>, ProblemHttpResult>> SuiteEventsAsync(
        Guid id, RunCoordinator coordinator, IRunStore store, CancellationToken cancellation)
    {
        var active = coordinator.FindSuite(id);
        if (active is null && await store.GetSuiteAsync(id) is null)
        {
            return SuiteNotFound(id);
        }

        return TypedResults.ServerSentEvents(SuiteEvents(id, active, store, cancellation));
    }

    private static async IAsyncEnumerable<SseItem<object>> SuiteEvents(Guid id, ActiveSuite? active, IRunStore store, [EnumeratorCancellation] CancellationToken cancellation)
    {
        SuiteRecord? ended = null;
        var reported = new HashSet<Guid>();
        if (active is not null)
        {
            var strategies = active.Record.Strategies;
            ActiveRun? followed = null;
            while (!active.Completion.IsCompleted)
            {
                if (active.Current is { } current && current != followed)
                {
                    followed = current;
                    reported.Add(current.Id);
                    foreach (var missed in await EndedRunsNotReportedAsync(id, store, reported, cancellation))
                    {
                        yield return missed;
                    }

                    var index = strategies.ToList().IndexOf(current.Record.Plan.Strategy);
                    await foreach (var progress in Progress(current.Progress, cancellation))
                    {
                        yield return new SseItem<object>(new SuiteProgress(current.Id, current.Record.Plan.Strategy, index + 1, strategies.Count, progress), "progress");
                    }

                    yield return new SseItem<object>(RunView.From((await current.Completion).Record), "run");
                    continue;
                }

                await Task.WhenAny(active.Completion, Task.Delay(EventPoll, cancellation));
                cancellation.ThrowIfCancellationRequested();
            }

            ended = await active.Completion;
            foreach (var missed in await EndedRunsNotReportedAsync(id, store, reported, cancellation))
            {
                yield return missed;
            }
        }

        else
        {
            // A suite that ended before anyone listened still tells its runs, as it would have live.
            foreach (var run in await EndedRunsNotReportedAsync(id, store, reported, cancellation))
            {
                yield return run;
            }
        }

        ended ??= await store.GetSuiteAsync(id, cancellation);
        yield return new SseItem<object>(SuiteView.From(ended!, await store.ListSuiteRunsAsync(id, cancellation), null), "final");
    }

    /// <summary>
    /// A run shorter than the poll can start and end between two looks at the suite's current run; its 'run'
    /// event comes from the history, so every strategy of the suite is reported.
    /// </summary>
    private static async Task<IEnumerable<SseItem<object>>> EndedRunsNotReportedAsync(Guid suiteId, IRunStore store, HashSet<Guid> reported, CancellationToken cancellation) =>
        (await store.ListSuiteRunsAsync(suiteId, cancellation))
            .Where(run => run.State != RunState.Running && reported.Add(run.Id))
            .Select(run => new SseItem<object>(RunView.From(run), "run"))
            .ToList();

    /// <summary>Each new snapshot once, until the run has finished (its last snapshot included).</summary>
    private static async IAsyncEnumerable<ProgressSnapshot> Progress(RunProgress progress, [EnumeratorCancellation] CancellationToken cancellation)
    {
        long sent = -1;
        while (true)
        {
            var finished = progress.Finished.IsCompleted;
            var latest = progress.Latest;
            if (latest.Sequence != sent)
            {
                sent = latest.Sequence;
                yield return latest;
            }

            if (finished)
            {
                yield break;
            }

            await Task.WhenAny(progress.Finished, Task.Delay(EventPoll, cancellation));
            cancellation.ThrowIfCancellationRequested();
        }
    }

    private static ProblemHttpResult RunNotFound(Guid id) =>
        TypedResults.Problem(statusCode: StatusCodes.Status404NotFound, title: "No such run", detail: $"There is no run {id}; GET /api/runs lists the runs there are.");

    private static ProblemHttpResult SuiteNotFound(Guid id) =>
        TypedResults.Problem(statusCode: StatusCodes.Status404NotFound, title: "No such suite", detail: $"There is no suite {id}; start one with POST /api/suites.");
}
