using System.Collections.Concurrent;
using Workloads;
using Cf = Workloads.ContractFirst;
using M = Workloads.Model;

namespace LoadEngine.Protocols;

/// <summary>
/// The client's half of the shared data that is not a <see cref="Fetch"/>'s: the records it sends, and the checksums of
/// what the writes and the stream answer, computed from <see cref="WorkloadData"/> once per process when a workload is
/// prepared (before any run measures), then reused.
/// </summary>
public static class WorkloadSamples
{
    /// <summary>Calls cycle through this many item ids (call i asks for id i % 1000), within the range the service keeps ready.</summary>
    public const int DistinctIds = 1000;

    /// <summary>Pages of <see cref="WorkloadData.PageSize"/> within the collection: the page workload cycles through them.</summary>
    public const int BigDtoPages = WorkloadData.CollectionSize / WorkloadData.PageSize;

    private static readonly Lazy<M.LogRecord[]> LogRecordModels = new(() => [.. Enumerable.Range(0, DistinctIds).Select(WorkloadData.LogRecord)]);
    private static readonly Lazy<Cf.LogRecord[]> LogRecordMessages = new(() => [.. LogRecordModels.Value.Select(record => record.ToContract())]);
    private static readonly Lazy<ulong[]> LogRecordChecksums = new(() => [.. LogRecordModels.Value.Select(WorkloadChecksum.Of)]);
    private static readonly ConcurrentDictionary<long, Lazy<ulong>> FileChecksums = new();

    public static M.LogRecord[] LogRecords => LogRecordModels.Value;

    public static Cf.LogRecord[] LogRecordContracts => LogRecordMessages.Value;

    /// <summary>What the service acknowledges for log record <c>id</c>: the checksum of the record as sent.</summary>
    public static ulong[] LogRecordAcks => LogRecordChecksums.Value;

    /// <summary>The checksum of each user, as a server stream checks each message: a million of them take a second or two.</summary>
    public static Checksums Users { get; } = new(id => WorkloadChecksum.Of(WorkloadData.User(id)));

    /// <summary>The checksum of the upload file's first <paramref name="length"/> bytes (hashed once per length).</summary>
    public static ulong File(long length) => FileChecksums.GetOrAdd(length, static bytes => new Lazy<ulong>(() => WorkloadChecksum.OfFile(bytes))).Value;
}
