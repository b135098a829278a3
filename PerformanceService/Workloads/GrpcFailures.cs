using Grpc.Core;

namespace PerformanceService.Workloads;

/// <summary>How both gRPC services fail a request: a status and the rule's sentence.</summary>
public static class GrpcFailures
{
    /// <summary>Throws INVALID_ARGUMENT with <paramref name="problem"/> unless it is null (the request is fine).</summary>
    public static void ThrowIfInvalid(string? problem)
    {
        if (problem is not null)
        {
            throw new RpcException(new Status(StatusCode.InvalidArgument, problem));
        }
    }

    /// <summary>The id, once it is known to be one every path accepts.</summary>
    public static int ValidId(int id)
    {
        ThrowIfInvalid(WorkloadRules.Item(id));
        return id;
    }

    public static RpcException FileTooLarge(long maxBytes) => new(new Status(StatusCode.ResourceExhausted, WorkloadRules.FileTooLarge(maxBytes)));
}
