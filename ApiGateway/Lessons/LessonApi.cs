using System.Net.ServerSentEvents;
using System.Runtime.CompilerServices;
using ApiGateway.Configuration;
using ApiGateway.Endpoints;
using ApiGateway.Errors;
using ApiGateway.History;
using ApiGateway.OpenApi;
using ApiGateway.Runs;
using LoadEngine;
using LoadEngine.Lessons;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.Extensions.Options;
using ApiGateway.Security;
using ApiGateway.Targets;
using LoadEngine.Targets.Described;

namespace ApiGateway.Lessons;

/// <summary>
/// The lessons as experiments: each lesson's text and design, one POST to run its experiment (repeated, interleaved, its
/// runs stored like any other), and the experiment with its verdicts, live or from the history; and two routes that make a
/// lesson visible in one request, rather than timing a strategy over many calls.
/// </summary>
public static class LessonApi
{
    public const string Tag = "Lessons";

    private static readonly RouteParameter PauseMs = RouteParameter.Whole("pauseMs", 0, KeepAliveLesson.MaxPauseMs, KeepAliveLesson.DefaultPauseMs,
        "Milliseconds both connections stay idle before the call that is timed; longer than the service's idle timeout (5 s) to see the lesson.");

    private static readonly Paging Page = new("of the lesson's experiments", 100, 20, "experiments");

    private static readonly RouteParameter LessonId = RouteParameter.OneOf("id", LessonList.Ids, null, "The lesson's id, as GET /api/lessons lists them.") with { InPath = true, Example = LessonList.Ids[0] };

    private static readonly RouteParameter ExperimentId =
        new("experimentId", typeof(Guid), "The experiment's id (a GUID), as its start answered and its list shows.") { InPath = true, Example = ProblemResponses.ExampleId };

    private static readonly RouteParameters ListParameters = new([LessonId, Page.Limit, Page.Offset]);

    private static readonly RouteParameters OneExperiment = new([LessonId, ExperimentId]);

    public static IEndpointRouteBuilder MapLessonApi(this IEndpointRouteBuilder app)
    {
        var limits = RunApiEndpoints.LimitsOf(app);
        var oneRequest = app.MapGroup($"/{Tag}").WithTags(Tag);
        oneRequest.MapGet($"/{KeepAliveLesson.Name}", async Task<Results<Ok<KeepAliveLessonResult>, ProblemHttpResult>> (
                string? pauseMs, KeepAliveLesson lesson, RunCoordinator runs, HttpContext http) =>
                PauseMs.TryWhole(pauseMs, out var pause, out var error)
                    ? await InSlotAsync(runs, http, limits.MaxRunsInFlight, () => lesson.RunAsync(pause, http.RequestAborted))
                    : Invalid(error))
            .WithName(KeepAliveLesson.Name)
            .WithSummary("The first call after an idle pause, on a channel with keep-alive pings and on one without.")
            .WithDescription(
                $"Lesson 3: {KeepAliveLesson.Lesson} ({KeepAliveLesson.Link})\n\n" +
                $"pauseMs (optional): how long both connections stay idle, a whole number from 0 to {KeepAliveLesson.MaxPauseMs}, default {KeepAliveLesson.DefaultPauseMs}. " +
                "The pinged channel sends a PING every second (the shortest SocketsHttpHandler allows). " +
                "Something must close idle connections for the lesson to show: the service closes a connection with no calls and no PINGs after " +
                "Kestrel:Limits:KeepAliveTimeout (5 s in its appsettings.json, standing in for a proxy's or load balancer's idle timeout; Kestrel's default is 130 s), " +
                "so use a pauseMs longer than that. connectionChanged = true means that call paid a new connection and handshake.")
            .WithParameters(PauseMs).ProducesProblem(ProblemResponses.LessonFailedExample(KeepAliveLesson.Name))
            .ProducesProblem(ProblemResponses.TooManyRuns(limits.MaxRunsInFlight))
            .SameOriginOnly();

        oneRequest.MapGet($"/{PayloadLesson.Name}", async Task<Results<Ok<PayloadLessonResult>, ProblemHttpResult>> (
                string? payloadBytes, PayloadLesson lesson, RunCoordinator runs, HttpContext http) =>
                RunParameters.PayloadBytes.TryWhole(payloadBytes, out var size, out var error)
                    ? await InSlotAsync(runs, http, limits.MaxRunsInFlight, () => lesson.RunAsync(size, http.RequestAborted))
                    : Invalid(error))
            .WithName(PayloadLesson.Name)
            .WithSummary("The size of one real answer with bytes fields, against the same data as base64 text and as JSON, and what copying costs.")
            .WithDescription(
                $"Lesson 5: {PayloadLesson.Lesson} ({PayloadLesson.Link})\n\n" +
                $"payloadBytes (optional): size of each of the answer's two bytes fields, a whole number from 1 to {RunPlanRules.MaxPayloadBytes}, default {RunPlanRules.DefaultPayloadBytes}. " +
                "One call to the service; sizes are of that answer (protobuf CalculateSize, the same message with base64 strings, Google.Protobuf's JSON, the gateway's JSON). " +
                "copyBenchmark times UnsafeWrap, CopyFrom, ToByteArray and MemoryMarshal.TryGetArray in the gateway's process (bounded: at most 64 MiB copied per operation).")
            .WithParameters(RunParameters.PayloadBytes).ProducesProblem(ProblemResponses.LessonFailedExample(PayloadLesson.Name))
            .ProducesProblem(ProblemResponses.TooManyRuns(limits.MaxRunsInFlight))
            .SameOriginOnly();

        var lessons = app.MapGroup("/api/lessons").WithTags(Tag);
        lessons.MapGet("/", ListAsync)
            .WithSummary("The chapter's five lessons and gRPC against REST, in order: each with its text, its experiment's design and arms, its claims and its latest experiment.")
            .WithParameters(RouteParameters.None);
        lessons.MapGet("/{id}", GetLessonAsync)
            .WithSummary("One lesson, with its latest experiment.")
            .WithDescription($"id: {string.Join(", ", LessonList.Ids)}.")
            .WithParameters(LessonId).ProducesProblem(NoSuchLesson("reuse-the-channel"));
        lessons.MapPost("/{id}/experiments", StartAsync).SameOriginOnly()
            .Accepts<ExperimentRequestBody>("application/json")
            .WithBody(RunRequestReader.Experiment, "/api/lessons/reuse-channel/experiments", app, LessonId)
            .WithSummary("Run the lesson's experiment: every arm once per repetition, interleaved, warm-up apart; 202 with the experiment and its links.")
            .WithDescription(
                $"id: {string.Join(", ", LessonList.Ids)}. Body (optional): {{\"repetitions\": {LessonList.DefaultRepetitions}}}, 1 to {LessonList.MaxRepetitions}. " +
                "With target, call and data as POST /api/runs takes them, the lesson runs on that unary method of a configured target (GET /api/targets); " +
                "streamCall names the bidirectional method of the same types the streaming lesson uses (else the first found). A lesson that cannot run on " +
                "it (binary-payloads and grpc-vs-rest stay on the built-in service) is a 400 saying why; a target that cannot be described or reached, a 503. " +
                "The lesson's settings are its design (GET /api/lessons/{id} shows them). The answer's verdict judges the lesson's headline claim: " +
                "expectedDirection (above-1: the other arm's figure is larger; near-1: about equal), measuredRatio (the median over the repetitions of " +
                "other ÷ baseline), range (the smallest and largest ratio), agrees (the measurement goes the lesson's way) and beyondNoise (every repetition on " +
                "the same side of 1 and the two arms' figures apart). checks judges every claim of the lesson the same way.")
            .ProducesProblem(NoSuchLesson("reuse-the-channel"))
            .ProducesProblem(ProblemResponses.TooManyRuns(limits.MaxRunsInFlight));
        lessons.MapGet("/{id}/experiments", ListExperimentsAsync)
            .WithSummary("The lesson's experiments, newest first.")
            .WithDescription(ListParameters.Describe())
            .WithParameters(ListParameters).ProducesProblem(NoSuchLesson("reuse-the-channel"));
        lessons.MapGet("/{id}/experiments/{experimentId:guid}", GetExperimentAsync)
            .WithSummary("One experiment: its verdicts, each arm's figures over the repetitions, its samples, and the step running now.")
            .WithParameters(OneExperiment).ProducesProblem(NoSuchExperiment("reuse-channel", ProblemResponses.ExampleId));
        lessons.MapPost("/{id}/experiments/{experimentId:guid}/cancel", CancelAsync).SameOriginOnly()
            .WithSummary("Cancel an experiment: its current run is cancelled and no further step starts.")
            .WithParameters(OneExperiment).ProducesProblem(NoSuchExperiment("reuse-channel", ProblemResponses.ExampleId));
        lessons.MapGet("/{id}/experiments/{experimentId:guid}/events", EventsAsync)
            .WithSummary("Server-Sent Events: 'progress' of the step running now, 'experiment' each time a step ends (with the verdicts so far), then 'final'.")
            .WithParameters(OneExperiment).ProducesProblem(NoSuchExperiment("reuse-channel", ProblemResponses.ExampleId));
        return app;
    }

    private static async Task<Ok<LessonView[]>> ListAsync(RunCoordinator coordinator, IRunStore store, IOptions<RunLimitsOptions> limits, IOptions<EngineOptions> engine) =>
        TypedResults.Ok(await Task.WhenAll(LessonList.All.Select(lesson => ViewAsync(lesson, coordinator, store, limits.Value, engine.Value))));

    private static async Task<Results<Ok<LessonView>, ProblemHttpResult>> GetLessonAsync(
        string id, RunCoordinator coordinator, IRunStore store, IOptions<RunLimitsOptions> limits, IOptions<EngineOptions> engine) =>
        LessonList.Find(id) is { } lesson ? TypedResults.Ok(await ViewAsync(lesson, coordinator, store, limits.Value, engine.Value)) : NoSuchLesson(id);

    private static async Task<Results<Accepted<ExperimentView>, ProblemHttpResult>> StartAsync(
        string id, ExperimentRequestBody? body, HttpContext http, RunCoordinator coordinator, IOptions<RunLimitsOptions> limits, IOptions<EngineOptions> engine,
        TargetPlans targets)
    {
        if (LessonList.Find(id) is not { } lesson)
        {
            return NoSuchLesson(id);
        }

        // The body may be left out: the lesson's own design.
        var (call, unfit) = body is null ? (null, null) : await CallOfAsync(lesson, body, targets, http.RequestAborted);
        if (unfit is not null)
        {
            return unfit;
        }

        if (!LessonPlan.TryCreate(lesson, body?.Repetitions, limits.Value.PlanLimits(), engine.Value, call, out var plan, out var refusal))
        {
            return ProblemResponses.InvalidParameters(refusal);
        }

        if (await coordinator.StartExperimentAsync(plan) is not { } experiment)
        {
            return ProblemResponses.TooManyRuns(http, limits.Value.MaxRunsInFlight);
        }

        var view = ExperimentView.From(experiment.Record, experiment);
        return TypedResults.Accepted(view.Links.Self, view);
    }

    /// <summary>
    /// The user's method the body names (<see cref="TargetPlans.CallOfAsync"/>): null when the body names none; a 400 when the
    /// lesson stays on the built-in service.
    /// </summary>
    private static async Task<(LessonCall? Call, ProblemHttpResult? Problem)> CallOfAsync(
        LessonDefinition lesson, ExperimentRequestBody input, TargetPlans targets, CancellationToken cancellation)
    {
        if (input.Target is null && input.Call is null && input.Data is null && input.StreamCall is null)
        {
            return (null, null);
        }

        // Said before anything is described: these lessons never run on another method, whatever the target's state.
        if (lesson.NotOnTargets is { } builtInOnly)
        {
            return (null, ProblemResponses.InvalidParameters(builtInOnly));
        }

        return await targets.CallOfAsync(input, input.StreamCall, $"A lesson on your own method needs call: the unary method to run it on, as {DescribedPlan.CallForm}.", cancellation);
    }

    private static async Task<Results<Ok<ExperimentPage>, ProblemHttpResult>> ListExperimentsAsync(string id, string? limit, string? offset, RunCoordinator coordinator, IRunStore store)
    {
        if (LessonList.Find(id) is null)
        {
            return NoSuchLesson(id);
        }

        if (!Page.TryRead(limit, offset, out var take, out var skip, out var error))
        {
            return ProblemResponses.InvalidParameters(error);
        }

        var views = (await store.ListExperimentsAsync(id, take, skip)).Select(record => View(record, coordinator)).ToList();
        return TypedResults.Ok(new ExperimentPage(await store.CountExperimentsAsync(id), take, skip, views));
    }

    private static async Task<Results<Ok<ExperimentView>, ProblemHttpResult>> GetExperimentAsync(string id, Guid experimentId, RunCoordinator coordinator, IRunStore store) =>
        await FindAsync(id, experimentId, coordinator, store) is { } record ? TypedResults.Ok(View(record, coordinator)) : NoSuchExperiment(id, experimentId);

    private static async Task<Results<Ok<ExperimentView>, ProblemHttpResult>> CancelAsync(string id, Guid experimentId, RunCoordinator coordinator, IRunStore store)
    {
        if (coordinator.FindExperiment(experimentId) is { } active && active.Record.Lesson == id)
        {
            active.Stop(RunState.Cancelled, "The experiment was cancelled on request.");
            await active.Completion;
        }

        return await GetExperimentAsync(id, experimentId, coordinator, store);
    }

    private static async Task<Results<ServerSentEventsResult<object>, ProblemHttpResult>> EventsAsync(
        string id, Guid experimentId, RunCoordinator coordinator, IRunStore store, EventViewers viewers, HttpContext http, CancellationToken cancellation) =>
        await FindAsync(id, experimentId, coordinator, store) is null
            ? NoSuchExperiment(id, experimentId)
            : viewers.Stream(http, Events(experimentId, coordinator.FindExperiment(experimentId), store, cancellation));

    /// <summary>The experiment as it grows: the record so far, then each step's progress and each record as a step ends, then the final one.</summary>
    private static async IAsyncEnumerable<SseItem<object>> Events(Guid id, ActiveExperiment? active, IRunStore store, [EnumeratorCancellation] CancellationToken cancellation)
    {
        if (active is not null)
        {
            using var events = active.Events.Follow();
            yield return new SseItem<object>(ExperimentView.From(active.Record, active), "experiment");
            await foreach (var happened in events.Reader.ReadAllAsync(cancellation))
            {
                yield return happened switch
                {
                    ExperimentProgress progress => new SseItem<object>(progress, "progress"),
                    ExperimentChanged changed => new SseItem<object>(ExperimentView.From(changed.Record, active), "experiment"),
                    _ => throw new InvalidOperationException($"Unknown experiment event {happened.GetType().Name}."),
                };
            }
        }

        var ended = active is null ? await store.GetExperimentAsync(id, cancellation) : await active.Completion.WaitAsync(cancellation);
        yield return new SseItem<object>(ExperimentView.From(ended!), "final");
    }

    private static async Task<LessonView> ViewAsync(LessonDefinition lesson, RunCoordinator coordinator, IRunStore store, RunLimitsOptions limits, EngineOptions engine)
    {
        LessonPlan.TryCreate(lesson, null, limits.PlanLimits(), engine, null, out var plan, out _);
        var latest = coordinator.RunningExperimentOf(lesson.Id)?.Record ?? (await store.ListExperimentsAsync(lesson.Id, 1, 0)).FirstOrDefault();
        return LessonView.From(lesson, plan, latest is null ? null : View(latest, coordinator));
    }

    private static async Task<ExperimentRecord?> FindAsync(string id, Guid experimentId, RunCoordinator coordinator, IRunStore store)
    {
        var record = coordinator.FindExperiment(experimentId)?.Record ?? await store.GetExperimentAsync(experimentId);
        return record?.Lesson == id ? record : null;
    }

    private static ExperimentView View(ExperimentRecord record, RunCoordinator coordinator) =>
        ExperimentView.From(coordinator.FindExperiment(record.Id) is { } active ? active.Record : record, coordinator.FindExperiment(record.Id));

    private static ProblemHttpResult NoSuchLesson(string id) =>
        TypedResults.Problem(statusCode: StatusCodes.Status404NotFound, title: "No such lesson",
            detail: $"There is no lesson '{Excerpt.Of(id)}'; the lessons are {string.Join(", ", LessonList.Ids)} (GET /api/lessons).");

    private static ProblemHttpResult NoSuchExperiment(string id, Guid experimentId) =>
        TypedResults.Problem(statusCode: StatusCodes.Status404NotFound, title: "No such experiment",
            detail: $"There is no experiment {experimentId} of the lesson '{Excerpt.Of(id)}'; GET /api/lessons/{Excerpt.Of(id)}/experiments lists them.");

    // A lesson does work like a run: it takes one of the same in-flight slots, or the caller gets 429 with Retry-After.
    private static async Task<Results<Ok<T>, ProblemHttpResult>> InSlotAsync<T>(RunCoordinator runs, HttpContext http, int maxRunsInFlight, Func<Task<T>> lesson)
    {
        using var slot = runs.TryTakeSlot();
        return slot is null ? ProblemResponses.TooManyRuns(http, maxRunsInFlight) : TypedResults.Ok(await lesson());
    }

    private static ProblemHttpResult Invalid(string error) =>
        TypedResults.Problem(statusCode: StatusCodes.Status400BadRequest, title: "Invalid lesson parameters", detail: error);
}
