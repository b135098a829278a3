using ApiGateway.Configuration;
using ApiGateway.Endpoints;
using ApiGateway.Errors;
using ApiGateway.OpenApi;
using ApiGateway.Runs;
using ApiGateway.Security;
using LoadEngine.Lessons;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.Extensions.Options;

// The root namespace, which Program.cs already imports: wiring the lessons in takes two lines there and no new using.
namespace ApiGateway;

/// <summary>Routes that make a lesson visible in one request, rather than timing a strategy over many calls.</summary>
public static class LessonEndpoints
{
    public const string Tag = "Lessons";

    private static readonly RouteParameter PauseMs = RouteParameter.Whole("pauseMs", 0, KeepAliveLesson.MaxPauseMs, KeepAliveLesson.DefaultPauseMs,
        "Milliseconds both connections stay idle before the call that is timed; longer than the service's idle timeout (5 s) to see the lesson.");

    public static IEndpointRouteBuilder MapLessonEndpoints(this IEndpointRouteBuilder app)
    {
        var maxRunsInFlight = app.ServiceProvider.GetRequiredService<IOptions<RunLimitsOptions>>().Value.MaxRunsInFlight;
        app.MapGet($"/{Tag}/{KeepAliveLesson.Name}", async Task<Results<Ok<KeepAliveLessonResult>, ProblemHttpResult>> (
                string? pauseMs, KeepAliveLesson lesson, RunCoordinator runs, HttpContext http) =>
                PauseMs.TryWhole(pauseMs, out var pause, out var error)
                    ? await InSlotAsync(runs, http, maxRunsInFlight, () => lesson.RunAsync(pause, http.RequestAborted))
                    : Invalid(error))
            .WithName(KeepAliveLesson.Name)
            .WithTags(Tag)
            .WithSummary("The first call after an idle pause, on a channel with keep-alive pings and on one without.")
            .WithDescription(
                $"Lesson 3: {KeepAliveLesson.Lesson} ({KeepAliveLesson.Link})\n\n" +
                $"pauseMs (optional): how long both connections stay idle, a whole number from 0 to {KeepAliveLesson.MaxPauseMs}, default {KeepAliveLesson.DefaultPauseMs}. " +
                "The pinged channel sends a PING every second (the shortest SocketsHttpHandler allows). " +
                "Something must close idle connections for the lesson to show: the service closes a connection with no calls and no PINGs after " +
                "Kestrel:Limits:KeepAliveTimeout (5 s in its appsettings.json, standing in for a proxy's or load balancer's idle timeout; Kestrel's default is 130 s), " +
                "so use a pauseMs longer than that. connectionChanged = true means that call paid a new connection and handshake.")
            .WithParameters(PauseMs).ProducesProblem(ProblemResponses.LessonFailedExample(KeepAliveLesson.Name))
            .ProducesProblem(ProblemResponses.TooManyRuns(maxRunsInFlight))
            .SameOriginOnly();

        app.MapGet($"/{Tag}/{PayloadLesson.Name}", async Task<Results<Ok<PayloadLessonResult>, ProblemHttpResult>> (
                string? payloadBytes, PayloadLesson lesson, RunCoordinator runs, HttpContext http) =>
                RunParameters.PayloadBytes.TryWhole(payloadBytes, out var size, out var error)
                    ? await InSlotAsync(runs, http, maxRunsInFlight, () => lesson.RunAsync(size, http.RequestAborted))
                    : Invalid(error))
            .WithName(PayloadLesson.Name)
            .WithTags(Tag)
            .WithSummary("The size of one real answer with bytes fields, against the same data as base64 text and as JSON, and what copying costs.")
            .WithDescription(
                $"Lesson 5: {PayloadLesson.Lesson} ({PayloadLesson.Link})\n\n" +
                $"payloadBytes (optional): size of each of the answer's two bytes fields, a whole number from 1 to {RunPlanRules.MaxPayloadBytes}, default {RunPlanRules.DefaultPayloadBytes}. " +
                "One call to the service; sizes are of that answer (protobuf CalculateSize, the same message with base64 strings, Google.Protobuf's JSON, the gateway's JSON). " +
                "copyBenchmark times UnsafeWrap, CopyFrom, ToByteArray and MemoryMarshal.TryGetArray in the gateway's process (bounded: at most 64 MiB copied per operation).")
            .WithParameters(RunParameters.PayloadBytes).ProducesProblem(ProblemResponses.LessonFailedExample(PayloadLesson.Name))
            .ProducesProblem(ProblemResponses.TooManyRuns(maxRunsInFlight))
            .SameOriginOnly();
        return app;
    }

    // A lesson does work like a run: it takes one of the same in-flight slots, or the caller gets 429 with Retry-After.
    private static async Task<Results<Ok<T>, ProblemHttpResult>> InSlotAsync<T>(RunCoordinator runs, HttpContext http, int maxRunsInFlight, Func<Task<T>> lesson)
    {
        using var slot = runs.TryTakeSlot();
        return slot is null ? ProblemResponses.TooManyRuns(http, maxRunsInFlight) : TypedResults.Ok(await lesson());
    }

    private static ProblemHttpResult Invalid(string error) =>
        TypedResults.Problem(statusCode: StatusCodes.Status400BadRequest, title: "Invalid lesson parameters", detail: error);
}
