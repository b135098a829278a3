using System.Globalization;
using ApiGateway.Runs;
using Grpc.Core;
using LoadEngine.Lessons;
using LoadEngine.Strategies;
using Microsoft.AspNetCore.Diagnostics;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.AspNetCore.Mvc;

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

    public static ProblemHttpResult InvalidParameters(string detail) =>
        TypedResults.Problem(statusCode: StatusCodes.Status400BadRequest, title: "Invalid run parameters", detail: detail);

    /// <summary>429 with Retry-After: <paramref name="limit"/> runs are already going.</summary>
    public static ProblemHttpResult TooManyRuns(HttpContext http, int limit)
    {
        http.Response.Headers.RetryAfter = RunCoordinator.RetryAfterSeconds.ToString(CultureInfo.InvariantCulture);
        return TypedResults.Problem(
            statusCode: StatusCodes.Status429TooManyRequests,
            title: "Too many runs in flight",
            detail: $"{limit} run(s) are already in flight, the most Runs:MaxRunsInFlight allows. Wait for one to finish " +
                $"(retry after {RunCoordinator.RetryAfterSeconds} s) or cancel one with POST /api/runs/{{id}}/cancel.");
    }

    /// <summary>A run that did not complete: the service's problem (unreachable, failing, too slow), or it was stopped.</summary>
    public static ProblemHttpResult RunDidNotComplete(Uri serverUri, RunRecord run)
    {
        var stats = run.Stats;
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
            });
    }

    public static IServiceCollection AddProblemResponses(this IServiceCollection services)
    {
        services.AddExceptionHandler<UnexpectedProblemHandler>();
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
                StatusCodes.Status500InternalServerError => "The gateway failed unexpectedly; the log has the details.",
                _ => null,
            };
        });
        return services;
    }
}

/// <summary>Maps what only an exception can report to problem responses: a lesson's failed call, a history that cannot be written.</summary>
public sealed class UnexpectedProblemHandler(IProblemDetailsService problems) : IExceptionHandler
{
    public async ValueTask<bool> TryHandleAsync(HttpContext httpContext, Exception exception, CancellationToken cancellationToken)
    {
        var problem = exception switch
        {
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
}
