using System.Collections.Concurrent;
using Workloads;
using Cf = Workloads.ContractFirst;
using M = Workloads.Model;

namespace LoadEngine.Protocols;

/// <summary>
/// The client's half of the shared data: the records it sends and the checksum of every answer it expects, computed
/// from <see cref="WorkloadData"/> once per process when a workload is prepared (before any run measures), then reused.
/// </summary>
public static class WorkloadSamples
{
    /// <summary>Calls cycle through this many item ids (call i asks for id i % 1000), within the range the service keeps ready.</summary>
    public const int DistinctIds = 1000;

    /// <summary>Pages of <see cref="WorkloadData.PageSize"/> within the collection: the page workload cycles through them.</summary>
    public const int BigDtoPages = WorkloadData.CollectionSize / WorkloadData.PageSize;

    private static readonly Lazy<ulong[]> SmallIntsChecksums = new(() => Each(DistinctIds, id => WorkloadChecksum.Of(WorkloadData.SmallInts(id))));
    private static readonly Lazy<ulong[]> BookChecksums = new(() => Each(DistinctIds, id => WorkloadChecksum.Of(WorkloadData.Book(id))));
    private static readonly Lazy<ulong> BooksChecksum = new(() => WorkloadChecksum.Of(WorkloadData.Books()));
    private static readonly Lazy<ulong[]> BigDtoChecksums = new(() => Each(DistinctIds, id => WorkloadChecksum.Of(WorkloadData.BigDto(id))));
    private static readonly Lazy<ulong[]> PageChecksums = new(() => Each(BigDtoPages, page => WorkloadChecksum.Of(WorkloadData.BigDtos(page, WorkloadData.PageSize))));
    private static readonly Lazy<ulong> CollectionChecksum = new(() => WorkloadChecksum.Of(WorkloadData.BigDtos(0, WorkloadData.CollectionSize)));
    private static readonly Lazy<M.LogRecord[]> LogRecordModels = new(() => [.. Enumerable.Range(0, DistinctIds).Select(WorkloadData.LogRecord)]);
    private static readonly Lazy<Cf.LogRecord[]> LogRecordMessages = new(() => [.. LogRecordModels.Value.Select(record => record.ToContract())]);
    private static readonly Lazy<ulong[]> LogRecordChecksums = new(() => [.. LogRecordModels.Value.Select(WorkloadChecksum.Of)]);
    private static readonly ConcurrentDictionary<long, Lazy<ulong>> FileChecksums = new();
    private static readonly object UserGate = new();
    private static readonly ulong[] UserPageChecksums = new ulong[WorkloadData.UserCount / WorkloadData.UserPageSize];
    private static ulong[]? _userChecksums;
    private static int _userPagesReady;

    public static int IdOf(long index) => (int)(index % DistinctIds);

    public static ulong[] SmallInts => SmallIntsChecksums.Value;

    public static ulong[] Books => BookChecksums.Value;

    public static ulong BookList => BooksChecksum.Value;

    public static ulong[] BigDtos => BigDtoChecksums.Value;

    public static ulong[] Pages => PageChecksums.Value;

    public static ulong Collection => CollectionChecksum.Value;

    public static M.LogRecord[] LogRecords => LogRecordModels.Value;

    public static Cf.LogRecord[] LogRecordContracts => LogRecordMessages.Value;

    /// <summary>What the service acknowledges for log record <c>id</c>: the checksum of the record as sent.</summary>
    public static ulong[] LogRecordAcks => LogRecordChecksums.Value;

    /// <summary>The checksum of the upload file's first <paramref name="length"/> bytes (hashed once per length).</summary>
    public static ulong File(long length) => FileChecksums.GetOrAdd(length, static bytes => new Lazy<ulong>(() => WorkloadChecksum.OfFile(bytes))).Value;

    /// <summary>The checksum of each page of <see cref="WorkloadData.UserPageSize"/> users, the first <paramref name="pages"/> of them ready.</summary>
    public static ulong[] UserPages(int pages)
    {
        EnsureUsers(pages);
        return UserPageChecksums;
    }

    /// <summary>The checksum of each user, the first <paramref name="count"/> of them ready (a server stream checks each message).</summary>
    public static ulong[] Users(int count)
    {
        EnsureUsers((count + WorkloadData.UserPageSize - 1) / WorkloadData.UserPageSize);
        return _userChecksums!;
    }

    // Both at once: generating users is the cost, and a million of them take a second or two.
    private static void EnsureUsers(int pages)
    {
        lock (UserGate)
        {
            _userChecksums ??= new ulong[WorkloadData.UserCount];
            for (var page = _userPagesReady; page < pages; page++)
            {
                var list = WorkloadData.Users(page, WorkloadData.UserPageSize);
                UserPageChecksums[page] = WorkloadChecksum.Of(list);
                for (var i = 0; i < list.Users.Count; i++)
                {
                    _userChecksums[page * WorkloadData.UserPageSize + i] = WorkloadChecksum.Of(list.Users[i]);
                }
            }

            _userPagesReady = Math.Max(_userPagesReady, pages);
        }
    }

    private static ulong[] Each(int count, Func<int, ulong> checksum) => [.. Enumerable.Range(0, count).Select(checksum)];
}
