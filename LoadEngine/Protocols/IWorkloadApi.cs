using Grpc.Core;

namespace LoadEngine.Protocols;

/// <summary>What the service acknowledged for a write: the checksum and length of what it received.</summary>
public readonly record struct Receipt(ulong Checksum, long Length);

/// <summary>
/// One of the service's four APIs over one channel or HttpClient: each workload operation, returning the checksum of the
/// answer after it was fully deserialized (or the service's receipt for a write). Failures are the RpcException a gRPC
/// client throws; REST failures are a Calls.CallFailedException under the status grpc-dotnet would give them.
/// </summary>
public interface IWorkloadApi : IDisposable
{
    Task<ulong> SmallIntsAsync(int id, CallOptions options);

    Task<ulong> BookAsync(int id, CallOptions options);

    Task<ulong> BooksAsync(CallOptions options);

    Task<ulong> BigDtoAsync(int id, CallOptions options);

    Task<ulong> BigDtosAsync(int page, int size, CallOptions options);

    /// <summary>Sends log record <c>id</c> of <see cref="WorkloadSamples.LogRecords"/>.</summary>
    Task<Receipt> WriteLogAsync(int id, CallOptions options);

    /// <summary>Uploads the first <paramref name="length"/> bytes of the shared file, a chunk (<see cref="Workloads.WorkloadData.FileChunkBytes"/>) at a time, never all of it in memory.</summary>
    Task<Receipt> UploadAsync(long length, CallOptions options);

    Task<ulong> UsersAsync(int page, int size, CallOptions options);

    /// <summary>The first <paramref name="count"/> users as one server stream: each user's checksum as it arrives (gRPC only).</summary>
    IAsyncEnumerable<ulong> StreamUsersAsync(int count, CallOptions options);
}
