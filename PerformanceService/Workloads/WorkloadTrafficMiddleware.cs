using System.Reflection;
using System.Security.Authentication;
using Microsoft.AspNetCore.Connections.Features;
using PerformanceService.Metrics;
using ProtoBuf.Grpc.Configuration;
using Workloads;
using Cf = Workloads.ContractFirst;

namespace PerformanceService.Workloads;

/// <summary>
/// In front of every workload request: counts it by what carried it (see <see cref="ProtocolCounter"/>), and treats a
/// REST client that leaves mid-request as the normal traffic it is: a line at Debug, never an error or a stack trace.
/// (grpc-dotnet does the same for gRPC calls on its own.) Other requests pass straight through.
/// </summary>
public sealed partial class WorkloadTrafficMiddleware(RequestDelegate next, ProtocolCounter counter, ILogger<WorkloadTrafficMiddleware> logger)
{
    private static readonly PathString ContractFirst = "/" + Cf.Workloads.Descriptor.FullName;
    private static readonly PathString CodeFirst = "/" + typeof(ICodeFirstWorkloads).GetCustomAttribute<ServiceAttribute>()!.Name;
    private static readonly PathString Stj = StjWorkloadApi.Prefix;
    private static readonly PathString Newtonsoft = "/" + NewtonsoftWorkloadsController.Prefix;

    public static WorkloadApi ApiOf(PathString path) =>
        path.StartsWithSegments(ContractFirst) ? WorkloadApi.Grpc
        : path.StartsWithSegments(CodeFirst) ? WorkloadApi.GrpcCodeFirst
        : path.StartsWithSegments(Stj) ? WorkloadApi.RestStj
        : path.StartsWithSegments(Newtonsoft) ? WorkloadApi.RestNewtonsoft
        : WorkloadApi.None;

    public Task InvokeAsync(HttpContext context)
    {
        var api = ApiOf(context.Request.Path);
        if (api == WorkloadApi.None)
        {
            return next(context);
        }

        counter.Count(api, context.Request.Protocol, context.Features.Get<ITlsHandshakeFeature>()?.Protocol ?? SslProtocols.None);
        return api is WorkloadApi.RestStj or WorkloadApi.RestNewtonsoft ? QuietWhenTheClientLeavesAsync(context) : next(context);
    }

    private async Task QuietWhenTheClientLeavesAsync(HttpContext context)
    {
        try
        {
            await next(context);
        }
        // Kestrel reports a chunk size that overflows as an IOException too, while the client is still there waiting for an answer.
        catch (IOException unreadable) when (unreadable.InnerException is OverflowException && !context.Response.HasStarted)
        {
            await Results.Problem(RestProblems.Create(StatusCodes.Status400BadRequest, RestProblems.BadFraming(unreadable.Message))).ExecuteAsync(context);
        }
        catch (Exception left) when (left is OperationCanceledException or IOException)
        {
            // The REST handlers read the request and write the answer and touch no other I/O, so an I/O failure or a
            // cancellation here is the connection's. RequestAborted is not a reliable witness: Kestrel signals it from
            // the thread pool, so on a busy machine the reset reaches the handler first.
            ClientLeft(logger, context.Request.Method, context.Request.Path, left.Message);
            if (!context.Response.HasStarted)
            {
                context.Response.StatusCode = StatusCodes.Status499ClientClosedRequest;
            }
        }
        catch (BadHttpRequestException broken) when (!context.Response.HasStarted)
        {
            // A request body that ended early (the client closed its connection mid-upload): the client's failure, not ours.
            ClientLeft(logger, context.Request.Method, context.Request.Path, broken.Message);
            context.Response.StatusCode = broken.StatusCode;
        }
    }

    [LoggerMessage(Level = LogLevel.Debug, Message = "The client left {Method} {Path} before its answer: {Reason}")]
    private static partial void ClientLeft(ILogger logger, string method, string path, string reason);
}
