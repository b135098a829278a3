using System.Data.Common;
using System.Globalization;
using ApiGateway.Configuration;
using ApiGateway.Endpoints;
using ApiGateway.History;
using ApiGateway.Runs;
using Grpc.Core;
using LoadEngine.Lessons;
using LoadEngine.Strategies;
using Microsoft.AspNetCore.Diagnostics;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Extensions.Options;

namespace ApiGateway.Errors;

/// <summary>Every error reaches HTTP users as application/problem+json with a sentence that says what was wrong.</summary>
public static class ProblemResponses
{
    /// <summary>The chapter's routes, from the one strategy list, for answers that must point somewhere.</summary>
    public static readonly string RoutesHint =
        "The strategy routes are " +
        string.Join(" and ", StrategyList.All.GroupBy(strategy => strategy.Info.Group).Select(group =>
            $"GET /{group.Key}/{{{string.Join('|', group.Select(strategy => strategy.Info.Name))}}}/{{count}}")) +
        "; /swagger lists them.";

    /// <summary>The id the OpenAPI document's examples use.</summary>
    public static readonly Guid ExampleId = new("3f2b8c1e-9a4d-4e6b-8f0a-1c2d3e4f5a6b");

    private static readonly Uri ExampleServerUri = new("http://127.0.0.1:5000");

    public static ProblemHttpResult InvalidParameters(string detail) =>
        TypedResults.Problem(
            statusCode: StatusCodes.Status400BadRequest,
            title: detail.StartsWith(RunMemoryEstimate.Refusal, StringComparison.Ordinal) ? "The run would not fit its memory budget" : "Invalid run parameters",
            detail: detail);

    /// <summary>The memory budget's 400, for the OpenAPI document: a chapter run keeping its statuses, or a background run with many large calls in flight.</summary>
    public static ProblemHttpResult OverMemoryBudgetExample(long limitBytes, bool keepsStatuses)
    {
        var plan = keepsStatuses
            ? new RunPlan { Strategy = "client-wrapper", Count = 100_000, Called = new BuiltInCall(PayloadBytes: 1024 * 1024), IncludeStatuses = true }
            : new RunPlan { Strategy = "single-connection", Load = LoadKind.Closed, Count = 10_000, Concurrency = 10_000, Called = new BuiltInCall(PayloadBytes: 1024 * 1024) };
        RunMemoryEstimate.Fits(plan, limitBytes, out var detail);
        return InvalidParameters(detail);
    }

    public static ProblemHttpResult UnknownParameter(string detail) =>
        TypedResults.Problem(statusCode: StatusCodes.Status400BadRequest, title: "Unknown query parameter", detail: detail);

    public static ProblemHttpResult NoSuchRun(Guid id) =>
        TypedResults.Problem(statusCode: StatusCodes.Status404NotFound, title: "No such run", detail: $"There is no run {id}; GET /api/runs lists the runs there are.");

    public static ProblemHttpResult NoSuchSuite(Guid id) =>
        TypedResults.Problem(statusCode: StatusCodes.Status404NotFound, title: "No such suite", detail: $"There is no suite {id}; start one with POST /api/suites.");

    /// <summary>429 with Retry-After: <paramref name="limit"/> runs are already going.</summary>
    public static ProblemHttpResult TooManyRuns(HttpContext http, int limit)
    {
        http.Response.Headers.RetryAfter = RunCoordinator.RetryAfterSeconds.ToString(CultureInfo.InvariantCulture);
        return TooManyRuns(limit);
    }

    /// <summary>The 429's body, without its Retry-After header (the OpenAPI document's example).</summary>
    public static ProblemHttpResult TooManyRuns(int limit) =>
        TypedResults.Problem(
            statusCode: StatusCodes.Status429TooManyRequests,
            title: "Too many runs in flight",
            detail: $"{limit} run(s) are already in flight, the most Runs:MaxRunsInFlight allows. Wait for one to finish " +
                $"(retry after {RunCoordinator.RetryAfterSeconds} s) or cancel one with POST /api/runs/{{id}}/cancel.");

    /// <summary>429 with Retry-After: <paramref name="limit"/> distributed runs are already waiting for or following their agents.</summary>
    public static ProblemHttpResult TooManyDistributedRuns(HttpContext http, int limit)
    {
        http.Response.Headers.RetryAfter = RunCoordinator.RetryAfterSeconds.ToString(CultureInfo.InvariantCulture);
        return TypedResults.Problem(
            statusCode: StatusCodes.Status429TooManyRequests,
            title: "Too many distributed runs in flight",
            detail: $"{limit} distributed run(s) are already waiting for or following their agents, the most Agents:MaxRunsInFlight allows " +
                $"(they take none of the Runs:MaxRunsInFlight slots of runs made here). Wait for one to finish (retry after {RunCoordinator.RetryAfterSeconds} s) " +
                "or cancel one with POST /api/runs/{id}/cancel.");
    }

    /// <summary>A run that did not complete: the service's problem (unreachable, failing, too slow), or it was stopped.</summary>
    public static ProblemHttpResult RunDidNotComplete(Uri serverUri, RunRecord run)
    {
        var stats = run.Stats;
        if (run.Error?.StartsWith(RunCoordinator.GatewayFailed, StringComparison.Ordinal) == true)
        {
            return TypedResults.Problem(
                statusCode: StatusCodes.Status503ServiceUnavailable,
                title: "The gateway failed during the run",
                detail: $"The {run.Plan.Strategy} run failed inside the gateway, not in the performance service: {run.Error} " +
                    $"It is stored as {run.State}: GET /api/runs/{run.Id} shows it.",
                extensions: new Dictionary<string, object?> { ["runId"] = run.Id, ["state"] = run.State.ToString() });
        }

        var mostCommonError = stats?.StatusCounts.Where(pair => pair.Key != nameof(StatusCode.OK)).OrderByDescending(pair => pair.Value).Select(pair => pair.Key).FirstOrDefault();
        return TypedResults.Problem(
            statusCode: StatusCodes.Status503ServiceUnavailable,
            title: run.State == RunState.Cancelled ? "The run was stopped" : "The performance service did not answer",
            detail: $"The {run.Plan.Strategy} run against the performance service at {serverUri} did not complete: {run.Error} " +
                $"{stats?.Succeeded ?? 0} of {run.Plan.Count?.ToString(CultureInfo.InvariantCulture) ?? "the"} calls had succeeded. Check that PerformanceService is running at the configured ServerUrl.",
            extensions: new Dictionary<string, object?>
            {
                ["runId"] = run.Id,
                ["serverUrl"] = serverUri.ToString(),
                ["state"] = run.State.ToString(),
                ["grpcStatus"] = mostCommonError,
                ["completedCalls"] = stats?.Succeeded ?? 0,
                ["count"] = run.Plan.Count,
                ["statusCounts"] = stats?.StatusCounts,
                ["statusDetails"] = stats?.StatusDetails,
            });
    }

    /// <summary>A run cut short because the gateway is shutting down (SIGTERM): stored as cancelled, worth starting again later.</summary>
    public static ProblemHttpResult GatewayStopping(RunRecord run) =>
        TypedResults.Problem(
            statusCode: StatusCodes.Status503ServiceUnavailable,
            title: "The gateway is stopping",
            detail: $"The gateway is shutting down, so the {run.Plan.Strategy} run was stopped after {run.Stats?.Succeeded ?? 0} successful calls and stored as cancelled " +
                $"(GET /api/runs/{run.Id} once the gateway is back). Start it again when the gateway has restarted.",
            extensions: new Dictionary<string, object?> { ["runId"] = run.Id, ["state"] = run.State.ToString() });

    /// <summary>What a run answers when the service cannot be reached, for the OpenAPI document.</summary>
    public static ProblemHttpResult RunDidNotCompleteExample(string strategy) => RunDidNotComplete(
        ExampleServerUri,
        new RunRecord(ExampleId, new RunPlan { Strategy = strategy, Count = 1000 }, RunState.Failed, DateTimeOffset.UnixEpoch, DateTimeOffset.UnixEpoch, null,
            "The service is unreachable: Error connecting to subchannel.", null));

    /// <summary>What a lesson answers when the service cannot be reached, for the OpenAPI document.</summary>
    public static ProblemHttpResult LessonFailedExample(string lesson) =>
        TypedResults.Problem(UnexpectedProblemHandler.LessonFailed(new LessonFailedException(
            lesson, ExampleServerUri, 1, 0, new RpcException(new Status(StatusCode.Unavailable, "Error connecting to subchannel.")), LoadEngine.Targets.TargetText.None)));

    /// <summary>405's sentence: the method, the path, and the methods the path answers (the Allow header ASP.NET Core sets).</summary>
    public static string MethodNotAllowed(string method, string path, string allowed) =>
        $"{method} is not allowed at '{Excerpt.Of(path)}'; it answers {(string.IsNullOrEmpty(allowed) ? "other methods" : allowed)} only.";

    /// <summary>415's sentence: routing refuses a body whose Content-Type the route does not accept (its Accepts metadata).</summary>
    public static string UnsupportedMediaType(string? contentType, string path) =>
        $"The body was sent {(string.IsNullOrEmpty(contentType) ? "with no Content-Type" : $"as '{Excerpt.Of(contentType)}'")}; {path} reads a JSON object: send it with Content-Type: application/json.";

    /// <summary>
    /// 404's sentence for /api/{runs|suites|comparisons|checkups}/{id}… and /api/lessons/{lesson}/experiments/{id}… whose id is not a
    /// GUID (their routes take only GUIDs, so routing finds nothing): what an id looks like and where the ids are listed.
    /// </summary>
    public static string? NotAnId(string? path)
    {
        var segments = (path ?? "").Split('/');
        var (list, id) = segments switch
        {
            ["", "api", "runs" or "suites" or "comparisons" or "checkups", var value, ..] when value != "compare" => ($"/api/{segments[2]}", value),
            ["", "api", "lessons", _, "experiments", var value, ..] => ($"/api/lessons/{segments[3]}/experiments", value),
            _ => (null, null),
        };
        return list is null || id is null or "" || Guid.TryParse(id, out _)
            ? null
            : $"'{Excerpt.Of(id)}' is not an id: the ids in {list}/{{id}} are GUIDs such as {ExampleId}; GET {list} lists them.";
    }

    /// <summary>The longest sentence a problem carries: sentences quote excerpts of the request, and this catches any that does not.</summary>
    public const int MaxDetailLength = 2000;

    /// <summary>A sentence within <see cref="MaxDetailLength"/>: its start and its end (which says what is allowed), the middle marked as cut.</summary>
    public static string Bounded(string detail) =>
        detail.Length <= MaxDetailLength
            ? detail
            : $"{detail[..(MaxDetailLength * 2 / 3)]} … (cut: {(detail.Length - MaxDetailLength).ToString("#,0", CultureInfo.InvariantCulture)} characters left out) … {detail[^(MaxDetailLength / 4)..]}";

    public static IServiceCollection AddProblemResponses(this IServiceCollection services)
    {
        services.AddExceptionHandler<UnexpectedProblemHandler>();
        services.AddProblemDetails(options => options.CustomizeProblemDetails = context =>
        {
            var problem = context.ProblemDetails;
            if (problem.Detail is not null)
            {
                problem.Detail = Bounded(problem.Detail);
                return;
            }

            var request = context.HttpContext.Request;
            problem.Detail = problem.Status switch
            {
                StatusCodes.Status404NotFound => NotAnId(request.Path) ?? $"Nothing is at '{Excerpt.Of(request.Path)}'. {RoutesHint}",
                StatusCodes.Status405MethodNotAllowed => MethodNotAllowed(request.Method, request.Path, context.HttpContext.Response.Headers.Allow.ToString()),
                StatusCodes.Status415UnsupportedMediaType => UnsupportedMediaType(request.ContentType, request.Path),
                StatusCodes.Status500InternalServerError => "The gateway failed unexpectedly; the log has the details.",
                _ => null,
            };
        });
        return services;
    }
}

/// <summary>
/// Maps what only an exception can report to problem responses: a lesson's failed call, a history that cannot be
/// written, a request Kestrel refused while the handler read it (a body over its size limit is 413, not 500).
/// </summary>
public sealed class UnexpectedProblemHandler(IProblemDetailsService problems, RunStore history, IOptions<RunLimitsOptions> limits) : IExceptionHandler
{
    public async ValueTask<bool> TryHandleAsync(HttpContext httpContext, Exception exception, CancellationToken cancellationToken)
    {
        var problem = exception switch
        {
            LessonFailedException lesson => LessonFailed(lesson),
            HistoryWriteException notWritten => new ProblemDetails
            {
                Status = StatusCodes.Status503ServiceUnavailable,
                Title = "The run history could not be written",
                Detail = $"{notWritten.Message} {history.WriteRemedy}",
            },
            // A read or delete that met a locked or broken history file, or a database server that is down or refuses: the
            // store's trouble, not the request's. SQLite's and Npgsql's exceptions are both DbExceptions.
            DbException store => new ProblemDetails
            {
                Status = StatusCodes.Status503ServiceUnavailable,
                Title = "The run history could not be read or written",
                Detail = $"The run history {history.Location} answered: {HistorySetup.OneLine(store)}. Nothing was changed; GET /health says what is wrong with " +
                    "the history. Try again once it is healthy.",
            },
            BadHttpRequestException { StatusCode: StatusCodes.Status413PayloadTooLarge } tooLarge => BodyTooLarge(tooLarge.Message),
            // A body not sent as JSON: routing's Accepts check lets one with no Content-Type through, and a page on another site can send one without asking.
            // Its sentence is the one every 415 gets (AddProblemResponses).
            BadHttpRequestException { StatusCode: StatusCodes.Status415UnsupportedMediaType } => new ProblemDetails { Status = StatusCodes.Status415UnsupportedMediaType, Title = "Unsupported Media Type" },
            // A plan's body that did not bind: the sentence names the field, what it held and what is allowed.
            // The handler runs with the endpoint cleared; the feature keeps the one that threw.
            BadHttpRequestException bad when RunRequestReader.ShapeOf(httpContext.Features.Get<IExceptionHandlerFeature>()?.Endpoint) is { } shape && RunRequestReader.Refusal(bad, shape, limits.Value.PlanLimits()) is { } sentence =>
                ProblemResponses.InvalidParameters(sentence).ProblemDetails,
            // A chapter route's count or query value that did not bind: the same sentence its body value gets.
            BadHttpRequestException bad when ChapterQuery.QueryRefusal(bad, limits.Value.PlanLimits()) is { } sentence => ProblemResponses.InvalidParameters(sentence).ProblemDetails,
            BadHttpRequestException bad => new ProblemDetails { Status = bad.StatusCode, Title = "The request could not be read", Detail = bad.Message },
            // Kestrel reports some malformed framing (a chunk size that overflows) as a plain IOException while the client is still there.
            IOException unreadable when !httpContext.RequestAborted.IsCancellationRequested => ProblemResponses.InvalidParameters(
                $"The body could not be read as HTTP/1.1 framed it ({unreadable.Message.TrimEnd('.')}): send it with a Content-Length, or in chunks whose size line is a " +
                "hexadecimal number that fits in 31 bits.").ProblemDetails,
            _ => null,
        };
        if (problem is null)
        {
            return false;
        }

        httpContext.Response.StatusCode = problem.Status!.Value;
        return await problems.TryWriteAsync(new ProblemDetailsContext { HttpContext = httpContext, Exception = exception, ProblemDetails = problem });
    }

    public static ProblemDetails LessonFailed(LessonFailedException lesson) => new()
    {
        Status = StatusCodes.Status503ServiceUnavailable,
        Title = "The performance service did not answer",
        Detail = $"The {lesson.Lesson} lesson against the performance service at {lesson.ServerUri} stopped: a call failed with " +
            $"{lesson.Error.StatusCode} ({lesson.Detail}). {lesson.Completed} of {lesson.Calls} calls had completed. " +
            "Check that PerformanceService is running at the configured ServerUrl.",
        Extensions =
        {
            ["serverUrl"] = lesson.ServerUri.ToString(),
            ["grpcStatus"] = lesson.Error.StatusCode.ToString(),
            ["completedCalls"] = lesson.Completed,
            ["count"] = lesson.Calls,
        },
    };

    /// <summary>413: Kestrel's own sentence (it names the limit), and what a body here is meant to hold.</summary>
    public static ProblemDetails BodyTooLarge(string reason) => new()
    {
        Status = StatusCodes.Status413PayloadTooLarge,
        Title = "The request body is too large",
        Detail = $"{reason} A run's, suite's or comparison's settings are a small JSON object, such as {{\"strategy\": \"client-wrapper\", \"count\": 1000}} " +
            "(Kestrel:Limits:MaxRequestBodySize sets the limit).",
    };
}
