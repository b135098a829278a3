using System.Net.ServerSentEvents;
using System.Runtime.CompilerServices;
using ApiGateway.Configuration;
using ApiGateway.Endpoints;
using ApiGateway.Errors;
using ApiGateway.History;
using ApiGateway.OpenApi;
using ApiGateway.Runs;
using ApiGateway.Security;
using ApiGateway.Targets;
using LoadEngine;
using LoadEngine.Checkup;
using LoadEngine.Lessons;
using LoadEngine.Targets.Described;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.Extensions.Options;

namespace ApiGateway.Checkups;

/// <summary>
/// A checkup of the user's client on one method of a configured target: one POST starts its measurements in the background
/// (the lessons' designs on that method, and a capacity sweep, within a time budget, each run stored like any other), and
/// the checkup with its prescription is read live, followed as events, cancelled, or read back from the history.
/// </summary>
public static class CheckupApi
{
    public const string Tag = "Checkups";

    private static readonly Paging Page = new("checkups", 100, 20);

    private static readonly RouteParameters ListParameters = new([Page.Limit, Page.Offset]);

    private static readonly RouteParameters OneCheckup = new([RouteParameter.RunId("checkup")]);

    private static readonly string NoCall = $"A checkup needs call: the unary method of your service to check, as {DescribedPlan.CallForm}.";

    /// <summary>What each item of the prescription measures, in the order the checkup measures them.</summary>
    private static readonly string Measures =
        "1. a channel per call against one reused channel, and the factory client against a wrapper; " +
        "2. the target's capacity: calls in flight doubled (1, 2, 4, …) on one connection until calls per second stop growing or p99 passes a stated bound, " +
        "giving the knee, its rate and its p99, and how many concurrent streams one connection gave before calls queued; " +
        "3. one connection against several at the load beyond that knee, when the sweep reached it; " +
        "4. a channel with keep-alive pings against one without, after an idle pause (over TLS when the target has it); " +
        "5. one bidirectional stream against unary calls, when the target has a bidirectional method of the same types (streamCall names it; else the first found); " +
        "6. gzip against no compression, on the request data given (bytes on the wire and time per call); " +
        "7. what a deadline at the measured p99.9 would cut, as the share of calls that would have failed.";

    public static IEndpointRouteBuilder MapCheckupApi(this IEndpointRouteBuilder app)
    {
        var limits = RunApiEndpoints.LimitsOf(app);
        var checkups = app.MapGroup("/api/checkups").WithTags(Tag);
        checkups.MapPost("/", StartAsync).SameOriginOnly()
            .Accepts<CheckupRequestBody>("application/json")
            .WithBody(RunRequestReader.Checkup, "/api/checkups", app)
            .WithSummary("Check your client on one method: measure what each of the chapter's practices would save there, within a time budget; 202 with the checkup and its links.")
            .WithDescription(
                "Body: {\"target\": \"name\", \"call\": \"pkg.Service/Method\", \"data\": {…}, \"budgetSeconds\": 120, \"inFlight\": 1}. " +
                $"call (required): the unary method to check, as {DescribedPlan.CallForm}. target: a configured target by name (GET /api/targets); left out, " +
                "the built-in service, called through its descriptors. data: the request, as POST /api/runs takes it. streamCall: the bidirectional method of the " +
                $"same types the streaming measurement uses. budgetSeconds: the time every measurement shares, {CheckupPlan.MinBudgetSeconds} to " +
                $"{CheckupPlan.MaxBudgetSeconds}, default {CheckupPlan.DefaultBudgetSeconds}. inFlight: the calls your client keeps in flight, 1 to " +
                $"{limits.PlanLimits().MaxConcurrency}, default {CheckupPlan.DefaultInFlight}; each saving is said at that load. " +
                $"It measures, each as a lesson's experiment on your method (repeated, interleaved, its runs stored like any other): {Measures} " +
                "The answer's items are the prescription, ordered by the measured effect: each with its outcome (advice, no-saving, not-applicable or not-measured), " +
                "the advice in one sentence, what was measured (the arms, other ÷ baseline as the median over the repetitions, its range, beyond noise or not), " +
                "the saving at your load in your units, the C# to paste, and the runs it came from (GET /api/runs/{id}). A difference within noise is " +
                "\"no measurable saving here\", never advice, and one beyond it but under 5% is said but not advised; an item that does not apply or could not be measured says why. A target that cannot be described " +
                "or reached is a 503.")
            .ProducesProblem(ProblemResponses.InvalidParameters(NoCall))
            .ProducesProblem(ProblemResponses.TooManyRuns(limits.MaxRunsInFlight));
        checkups.MapGet("/", ListAsync)
            .WithSummary("The checkups, newest first, each with its prescription.")
            .WithDescription(ListParameters.Describe())
            .WithParameters(ListParameters);
        checkups.MapGet("/{id:guid}", GetAsync)
            .WithSummary("One checkup: its prescription so far (each item judged as its measurement ends), the capacity sweep, the experiments it ran, and the step measured now.")
            .WithParameters(OneCheckup).ProducesProblem(NoSuchCheckup(ProblemResponses.ExampleId));
        checkups.MapPost("/{id:guid}/cancel", CancelAsync).SameOriginOnly()
            .WithSummary("Cancel a checkup: its current run is cancelled, no further measurement starts, and what was measured is kept.")
            .WithParameters(OneCheckup).ProducesProblem(NoSuchCheckup(ProblemResponses.ExampleId));
        checkups.MapGet("/{id:guid}/events", EventsAsync)
            .WithSummary("Server-Sent Events: 'checkup' with the checkup each time a measurement ends (its items judged so far), then 'final'.")
            .WithParameters(OneCheckup).ProducesProblem(NoSuchCheckup(ProblemResponses.ExampleId));
        return app;
    }

    private static async Task<Results<Accepted<CheckupView>, ProblemHttpResult>> StartAsync(
        CheckupRequestBody? body, HttpContext http, RunCoordinator coordinator, IOptions<RunLimitsOptions> limits, IOptions<EngineOptions> engine, TargetPlans targets)
    {
        var (call, unfit) = await targets.CallOfAsync(body ?? new CheckupRequestBody(null, null, null), body?.StreamCall, NoCall, http.RequestAborted);
        if (call is null)
        {
            return unfit!;
        }

        if (!CheckupPlan.TryCreate(call, body!.BudgetSeconds, body.InFlight, limits.Value.PlanLimits(), engine.Value, out var plan, out var refusal))
        {
            return ProblemResponses.InvalidParameters(refusal);
        }

        if (await coordinator.StartCheckupAsync(plan) is not { } checkup)
        {
            return ProblemResponses.TooManyRuns(http, limits.Value.MaxRunsInFlight);
        }

        var view = CheckupView.From(checkup.Record, checkup);
        return TypedResults.Accepted(view.Links.Self, view);
    }

    private static async Task<Results<Ok<CheckupPage>, ProblemHttpResult>> ListAsync(string? limit, string? offset, RunCoordinator coordinator, IRunStore store)
    {
        if (!Page.TryRead(limit, offset, out var take, out var skip, out var error))
        {
            return ProblemResponses.InvalidParameters(error);
        }

        var views = (await store.ListCheckupsAsync(take, skip)).Select(record => View(record, coordinator)).ToList();
        return TypedResults.Ok(new CheckupPage(await store.CountCheckupsAsync(), take, skip, views));
    }

    private static async Task<Results<Ok<CheckupView>, ProblemHttpResult>> GetAsync(Guid id, RunCoordinator coordinator, IRunStore store) =>
        await FindAsync(id, coordinator, store) is { } record ? TypedResults.Ok(View(record, coordinator)) : NoSuchCheckup(id);

    private static async Task<Results<Ok<CheckupView>, ProblemHttpResult>> CancelAsync(Guid id, RunCoordinator coordinator, IRunStore store)
    {
        if (coordinator.FindCheckup(id) is { } active)
        {
            active.Stop(RunState.Cancelled, "The checkup was cancelled on request.");
            await active.Completion;
        }

        return await GetAsync(id, coordinator, store);
    }

    private static async Task<Results<ServerSentEventsResult<object>, ProblemHttpResult>> EventsAsync(
        Guid id, RunCoordinator coordinator, IRunStore store, EventViewers viewers, HttpContext http, CancellationToken cancellation) =>
        await FindAsync(id, coordinator, store) is null
            ? NoSuchCheckup(id)
            : viewers.Stream(http, Events(id, coordinator.FindCheckup(id), store, cancellation));

    /// <summary>The checkup as it grows: the record so far, then the record each time a measurement ends, then the final one.</summary>
    private static async IAsyncEnumerable<SseItem<object>> Events(Guid id, ActiveCheckup? active, IRunStore store, [EnumeratorCancellation] CancellationToken cancellation)
    {
        if (active is not null)
        {
            using var events = active.Events.Follow();
            yield return new SseItem<object>(CheckupView.From(active.Record, active), "checkup");
            await foreach (var record in events.Reader.ReadAllAsync(cancellation))
            {
                yield return new SseItem<object>(CheckupView.From(record, active), "checkup");
            }
        }

        var ended = active is null ? await store.GetCheckupAsync(id, cancellation) : await active.Completion.WaitAsync(cancellation);
        yield return new SseItem<object>(CheckupView.From(ended!), "final");
    }

    private static async Task<CheckupRecord?> FindAsync(Guid id, RunCoordinator coordinator, IRunStore store) =>
        coordinator.FindCheckup(id)?.Record ?? await store.GetCheckupAsync(id);

    private static CheckupView View(CheckupRecord record, RunCoordinator coordinator) =>
        coordinator.FindCheckup(record.Id) is { } active ? CheckupView.From(active.Record, active) : CheckupView.From(record);

    private static ProblemHttpResult NoSuchCheckup(Guid id) =>
        TypedResults.Problem(statusCode: StatusCodes.Status404NotFound, title: "No such checkup",
            detail: $"There is no checkup {id}; GET /api/checkups lists them, and POST /api/checkups starts one.");
}
