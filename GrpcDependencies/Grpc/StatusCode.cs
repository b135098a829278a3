namespace GrpcDependencies.Grpc;

/// <summary>The gRPC status codes (https://grpc.github.io/grpc/core/md_doc_statuscodes.html).</summary>
public enum StatusCode
{
    OK = 0,
    Cancelled = 1,
    Unknown = 2,
    InvalidArgument = 3,
    DeadlineExceeded = 4,
    NotFound = 5,
    AlreadyExists = 6,
    PermissionDenied = 7,
    ResourceExhausted = 8,
    FailedPrecondition = 9,
    Aborted = 10,
    OutOfRange = 11,
    Unimplemented = 12,
    Internal = 13,
    Unavailable = 14,
    DataLoss = 15,
    Unauthenticated = 16,
}

/// <summary>A call ended with a status other than OK.</summary>
public sealed class RpcException(StatusCode statusCode, string detail, Exception? inner = null)
    : Exception($"Status(StatusCode=\"{statusCode}\", Detail=\"{detail}\")", inner)
{
    public StatusCode StatusCode { get; } = statusCode;

    public string Detail { get; } = detail;
}

/// <summary>Per-call settings: an absolute deadline and a token that cancels the call.</summary>
public readonly record struct CallOptions(DateTime? Deadline = null, CancellationToken CancellationToken = default);
