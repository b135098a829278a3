using ApiGateway.Runs;
using Microsoft.AspNetCore.Diagnostics;

namespace ApiGateway.Errors;

/// <summary>Every error reaches HTTP users as application/problem+json with a sentence that says what was wrong.</summary>
public static class ProblemResponses
{
    public const string RoutesHint =
        "The strategy routes are GET /Performance/{factory-client|client-wrapper|initialized-client|streaming-call}/{count} " +
        "and GET /Concurrency/{single-connection|multiple-connections}/{count}; /swagger lists them.";

    public static IServiceCollection AddProblemResponses(this IServiceCollection services)
    {
        services.AddExceptionHandler<RunFailedExceptionHandler>();
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

/// <summary>A failed call to the service is the service's problem, not the gateway's: 503, naming the address and the gRPC status.</summary>
public sealed partial class RunFailedExceptionHandler(IProblemDetailsService problems, ILogger<RunFailedExceptionHandler> logger) : IExceptionHandler
{
    public async ValueTask<bool> TryHandleAsync(HttpContext httpContext, Exception exception, CancellationToken cancellationToken)
    {
        if (exception is not RunFailedException failure)
        {
            return false;
        }

        LogRunFailed(logger, failure.Strategy, failure.ServerUri, failure.GrpcStatus, failure.GrpcDetail, failure.Completed, failure.Count);
        httpContext.Response.StatusCode = StatusCodes.Status503ServiceUnavailable;
        return await problems.TryWriteAsync(new ProblemDetailsContext
        {
            HttpContext = httpContext,
            Exception = exception,
            ProblemDetails =
            {
                Status = StatusCodes.Status503ServiceUnavailable,
                Title = "The performance service did not answer",
                Detail = $"The {failure.Strategy} run against the performance service at {failure.ServerUri} stopped: a call failed with " +
                    $"{failure.GrpcStatus} ({failure.GrpcDetail}). {failure.Completed} of {failure.Count} calls had completed. " +
                    "Check that PerformanceService is running at the configured ServerUrl.",
                Extensions =
                {
                    ["serverUrl"] = failure.ServerUri.ToString(),
                    ["grpcStatus"] = failure.GrpcStatus.ToString(),
                    ["completedCalls"] = failure.Completed,
                    ["count"] = failure.Count,
                },
            },
        });
    }

    [LoggerMessage(Level = LogLevel.Warning, Message = "Run {Strategy} against {ServerUri} failed with {GrpcStatus} ({GrpcDetail}) after {Completed} of {Count} calls")]
    private static partial void LogRunFailed(ILogger logger, string strategy, Uri serverUri, GrpcDependencies.Grpc.StatusCode grpcStatus, string grpcDetail, int completed, int count);
}
