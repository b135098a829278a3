using ApiGateway.Runs;
using Grpc.Core;
using Microsoft.AspNetCore.Diagnostics;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.AspNetCore.Mvc;

namespace ApiGateway.Errors;

/// <summary>Every error reaches HTTP users as application/problem+json with a sentence that says what was wrong.</summary>
public static class ProblemResponses
{
    public const string RoutesHint =
        "The strategy routes are GET /Performance/{factory-client|client-wrapper|initialized-client|streaming-call}/{count} " +
        "and GET /Concurrency/{single-connection|multiple-connections}/{count}; /swagger lists them.";

    public static ProblemHttpResult InvalidParameters(string detail) =>
        TypedResults.Problem(statusCode: StatusCodes.Status400BadRequest, title: "Invalid run parameters", detail: detail);

    public static IServiceCollection AddProblemResponses(this IServiceCollection services)
    {
        services.AddExceptionHandler<RunProblemHandler>();
        services.AddProblemDetails(options => options.CustomizeProblemDetails = context =>
        {
            var problem = context.ProblemDetails;
            if (problem.Detail is not null)
            {
                return;
            }

            problem.Detail = problem.Status switch
            {
                StatusCodes.Status404NotFound => $"Nothing is at '{context.HttpContext.Request.Path}'. {RoutesHint}",
                StatusCodes.Status405MethodNotAllowed => $"{context.HttpContext.Request.Method} is not allowed at '{context.HttpContext.Request.Path}'; the strategy routes answer GET.",
                StatusCodes.Status500InternalServerError => "The gateway failed unexpectedly; the log has the details. Nothing about the run was stored.",
                _ => null,
            };
        });
        return services;
    }
}

/// <summary>A run that did not complete: the service's problem (unreachable, failing, too slow), or it was stopped.</summary>
public sealed class RunFailedException(Uri serverUri, RunResult run)
    : Exception($"{run.Record.Plan.Strategy}: {run.Record.Error}")
{
    public Uri ServerUri { get; } = serverUri;

    public RunResult Run { get; } = run;
}

/// <summary>A lesson scenario's call to the service failed; lessons are not stored runs, so this carries the call itself.</summary>
public sealed class LessonFailedException(string lesson, Uri serverUri, int calls, int completed, RpcException error)
    : Exception($"{lesson}: a call to {serverUri} failed with {error.StatusCode}: {error.Status.Detail}", error)
{
    public string Lesson { get; } = lesson;

    public Uri ServerUri { get; } = serverUri;

    public int Calls { get; } = calls;

    public int Completed { get; } = completed;

    public RpcException Error { get; } = error;
}

/// <summary>Maps the run engine's failures to problem responses: 503 for the service or the history, 429 for too many runs.</summary>
public sealed partial class RunProblemHandler(IProblemDetailsService problems, ILogger<RunProblemHandler> logger) : IExceptionHandler
{
    public async ValueTask<bool> TryHandleAsync(HttpContext httpContext, Exception exception, CancellationToken cancellationToken)
    {
        var problem = exception switch
        {
            RunFailedException failed => Failed(failed),
            LessonFailedException lesson => new ProblemDetails
            {
                Status = StatusCodes.Status503ServiceUnavailable,
                Title = "The performance service did not answer",
                Detail = $"The {lesson.Lesson} lesson against the performance service at {lesson.ServerUri} stopped: a call failed with " +
                    $"{lesson.Error.StatusCode} ({lesson.Error.Status.Detail}). {lesson.Completed} of {lesson.Calls} calls had completed. " +
                    "Check that PerformanceService is running at the configured ServerUrl.",
                Extensions =
                {
                    ["serverUrl"] = lesson.ServerUri.ToString(),
                    ["grpcStatus"] = lesson.Error.StatusCode.ToString(),
                    ["completedCalls"] = lesson.Completed,
                    ["count"] = lesson.Calls,
                },
            },
            TooManyRunsException busy => Busy(httpContext, busy),
            HistoryWriteException history => new ProblemDetails
            {
                Status = StatusCodes.Status503ServiceUnavailable,
                Title = "The run history could not be written",
                Detail = $"{history.Message} Check that History:DatabasePath points at a writable file with free space.",
            },
            _ => null,
        };
        if (problem is null)
        {
            return false;
        }

        httpContext.Response.StatusCode = problem.Status!.Value;
        return await problems.TryWriteAsync(new ProblemDetailsContext { HttpContext = httpContext, Exception = exception, ProblemDetails = problem });
    }

    private ProblemDetails Failed(RunFailedException failure)
    {
        var record = failure.Run.Record;
        var stats = record.Stats;
        LogRunFailed(logger, record.Plan.Strategy, failure.ServerUri, record.State, record.Error);
        return new ProblemDetails
        {
            Status = StatusCodes.Status503ServiceUnavailable,
            Title = record.State == RunState.Cancelled ? "The run was stopped" : "The performance service did not answer",
            Detail = $"The {record.Plan.Strategy} run against the performance service at {failure.ServerUri} did not complete: {record.Error} " +
                $"{stats?.Succeeded ?? 0} of {record.Plan.Count} calls had succeeded. Check that PerformanceService is running at the configured ServerUrl.",
            Extensions =
            {
                ["runId"] = record.Id,
                ["serverUrl"] = failure.ServerUri.ToString(),
                ["state"] = record.State.ToString(),
                ["grpcStatus"] = failure.Run.MostCommonError?.ToString(),
                ["completedCalls"] = stats?.Succeeded ?? 0,
                ["count"] = record.Plan.Count,
                ["statusCounts"] = stats?.StatusCounts,
            },
        };
    }

    private static ProblemDetails Busy(HttpContext httpContext, TooManyRunsException busy)
    {
        httpContext.Response.Headers.RetryAfter = busy.RetryAfterSeconds.ToString(System.Globalization.CultureInfo.InvariantCulture);
        return new ProblemDetails
        {
            Status = StatusCodes.Status429TooManyRequests,
            Title = "Too many runs in flight",
            Detail = $"{busy.Message} Wait for one to finish (retry after {busy.RetryAfterSeconds} s) or cancel one with POST /api/runs/{{id}}/cancel.",
        };
    }

    [LoggerMessage(Level = LogLevel.Warning, Message = "Run {Strategy} against {ServerUri} ended {State}: {Error}")]
    private static partial void LogRunFailed(ILogger logger, string strategy, Uri serverUri, RunState state, string? error);
}
