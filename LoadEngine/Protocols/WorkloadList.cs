using System.Globalization;
using Grpc.Core;
using LoadEngine.Runs;
using Workloads;

namespace LoadEngine.Protocols;

/// <summary>One call of a workload on one API: it throws an RpcException when the call fails or its answer is not what was sent (DataLoss).</summary>
public delegate Task WorkloadCall(IWorkloadApi api, long index, CallOptions options);

/// <summary>
/// A workload made ready for one run's plan: its expected answers computed (before anything is timed), its call, how
/// many service calls one of its calls makes (a bulk read's deadline is that many call timeouts), and what it does, in words.
/// </summary>
public sealed record PreparedWorkload(WorkloadCall Call, int ServiceCallsPerCall, string Describe);

/// <summary>A setting some workloads take: its run-request name, what it does, what is allowed, and its default.</summary>
public sealed record WorkloadParameter(string Name, string What, string Allowed, string Default);

/// <summary>
/// One workload of the published benchmarks: its id, what one call does, the study it comes from, its defaults, the
/// settings it takes, and how a plan prepares it. Every contender of <see cref="ContenderList"/> runs it (bulk-read's
/// stream variant: the gRPC ones).
/// </summary>
public sealed record WorkloadInfo(
    string Id,
    string Title,
    string What,
    string Source,
    int DefaultCount,
    LoadKind DefaultLoad,
    IReadOnlyList<WorkloadParameter> Parameters,
    Func<RunPlan, PreparedWorkload> Prepare)
{
    public bool Takes(WorkloadParameter parameter) => Parameters.Contains(parameter);
}

/// <summary>The settings workloads take, each described once.</summary>
public static class WorkloadParameters
{
    public const long MinFileBytes = 1024;

    /// <summary>The service's default Workloads:MaxFileBytes (100 MiB): the largest file of the 2023 study.</summary>
    public const long MaxFileBytes = 100 * 1024 * 1024;

    public const long DefaultFileBytes = 1024 * 1024;

    public const int MaxClients = 64;

    /// <summary>Workers reading bulk-read's pages at once, as in the 2023 study.</summary>
    public const int BulkReadWorkers = 16;

    public static WorkloadParameter FileBytes { get; } = new(
        "fileBytes", "Size of the uploaded file in bytes (the study's: 1 KiB = 1024, 1 MiB = 1048576, 10 MiB = 10485760, 100 MiB = 104857600).",
        $"{MinFileBytes} to {MaxFileBytes}", DefaultFileBytes.ToString(CultureInfo.InvariantCulture));

    public static WorkloadParameter Connection { get; } = new(
        "connection", "kept: one channel or HttpClient for the whole run; new-per-call: a new one for every call (a new connection, and a TLS handshake under TLS), disposed after it.",
        WireNames<ConnectionUse>.Listed, WireNames<ConnectionUse>.Name(ConnectionUse.Kept));

    public static WorkloadParameter Clients { get; } = new(
        "clients", "Calls are spread round-robin over this many channels or HttpClients, each with connections of its own (with concurrency, the study's parallel runs).",
        $"1 to {MaxClients}", "1");

    public static WorkloadParameter Variant { get; } = new(
        "variant", $"pages: the users read as pages of {WorkloadData.UserPageSize} by {BulkReadWorkers} workers; stream: one gRPC server stream of them all (gRPC only).",
        WireNames<BulkReadVariant>.Listed, WireNames<BulkReadVariant>.Name(BulkReadVariant.Pages));

    public static WorkloadParameter Users { get; } = new(
        "users", $"Users one read covers (the study's: {WorkloadData.UserCount}); fewer make a quicker run.",
        $"{WorkloadData.UserPageSize} to {WorkloadData.UserCount}, a multiple of {WorkloadData.UserPageSize}", WorkloadData.UserCount.ToString(CultureInfo.InvariantCulture));

    public static IReadOnlyList<WorkloadParameter> All { get; } = [FileBytes, Connection, Clients, Variant, Users];
}

/// <summary>
/// Every workload, in the order of the studies. This one list drives validation, GET /api/workloads, the OpenAPI text and
/// the CLI's help: adding a workload is one entry here (and its operation in <see cref="IWorkloadApi"/>).
/// </summary>
public static class WorkloadList
{
    private const string Study2019 = "2019, \"gRPC performance benchmark in ASP.NET Core 3\"";
    private const string Study2020 = "2020, \"Rest vs gRPC performance benchmark in .NET Core 3.1\"";
    private const string Study2023 = "2023, \".NET 7 Web API through HTTP/1.1, HTTP/2 and gRPC\"";

    public static IReadOnlyList<WorkloadInfo> All { get; } =
    [
        new("small-ints", "Three integers", "Each call fetches three int32 by id (protobuf ≈ 10 B, JSON ≈ 89 B).", Study2019, 1000, LoadKind.Sequential, [],
            _ => Ready(WorkloadSamples.SmallInts, static async (api, index, options) =>
                Expect(await api.SmallIntsAsync(WorkloadSamples.IdOf(index), options), WorkloadSamples.SmallInts[WorkloadSamples.IdOf(index)], "the small-ints answer"))),
        new("small-mixed", "One book", "Each call fetches a book by id: two short strings, an int, an author with two names (≈ 63 B protobuf, 133 B JSON).", Study2019, 1000, LoadKind.Sequential, [],
            _ => Ready(WorkloadSamples.Books, static async (api, index, options) =>
                Expect(await api.BookAsync(WorkloadSamples.IdOf(index), options), WorkloadSamples.Books[WorkloadSamples.IdOf(index)], "the book"))),
        new("big-list", "1000 books", "Each call fetches a list of 1000 books (≈ 65 kB protobuf, 134 kB JSON).", Study2019, 1000, LoadKind.Sequential, [],
            _ => Ready(WorkloadSamples.BookList, static async (api, _, options) => Expect(await api.BooksAsync(options), WorkloadSamples.BookList, "the list of 1000 books"))),
        new("big-dto", "One big record", "Each call fetches a ≈ 2.4 kB record of many types (Guid, text, DateTime, int, float, decimal, double, long, a nested record with 256 bytes, three paragraphs) by id.",
            Study2020, 100, LoadKind.Sequential, [WorkloadParameters.Connection],
            _ => Ready(WorkloadSamples.BigDtos, static async (api, index, options) =>
                Expect(await api.BigDtoAsync(WorkloadSamples.IdOf(index), options), WorkloadSamples.BigDtos[WorkloadSamples.IdOf(index)], "the big record"))),
        new("collection", "500 big records", $"Each call fetches the whole collection of {WorkloadData.CollectionSize} big records (≈ 1.1 MB protobuf, 1.2 MB JSON).", Study2020, 100, LoadKind.Sequential, [],
            _ => Ready(WorkloadSamples.Collection, static async (api, _, options) =>
                Expect(await api.BigDtosAsync(0, WorkloadData.CollectionSize, options), WorkloadSamples.Collection, "the collection"))),
        new("page", "A page of 20 big records", $"Each call fetches a page of {WorkloadData.PageSize} big records, cycling through the {WorkloadSamples.BigDtoPages} pages of the collection.",
            Study2020, 100, LoadKind.Sequential, [],
            _ => Ready(WorkloadSamples.Pages, static async (api, index, options) =>
            {
                var page = (int)(index % WorkloadSamples.BigDtoPages);
                Expect(await api.BigDtosAsync(page, WorkloadData.PageSize, options), WorkloadSamples.Pages[page], $"page {page}");
            })),
        new("log-write", "Log records written", "Each call sends one log record {timestamp, text, level, category}; the service answers the checksum of what it received.",
            Study2023, 1000, LoadKind.Sequential, [WorkloadParameters.Clients],
            _ => Ready(WorkloadSamples.LogRecordAcks, static async (api, index, options) =>
            {
                var id = WorkloadSamples.IdOf(index);
                Expect(await api.WriteLogAsync(id, options), new Receipt(WorkloadSamples.LogRecordAcks[id], 1), "the log record");
            })),
        new("file-upload", "A file uploaded", $"Each call uploads a file in {WorkloadData.FileChunkBytes / 1024} KiB pieces (gRPC: a client stream of chunks; REST: a streamed request body); the service hashes it as it arrives and keeps none of it.",
            Study2023, 10, LoadKind.Sequential, [WorkloadParameters.FileBytes, WorkloadParameters.Clients], PrepareUpload),
        new("bulk-read", "A million users read", $"One call reads every user of the range: as pages of {WorkloadData.UserPageSize} by {WorkloadParameters.BulkReadWorkers} workers, or as one gRPC server stream.",
            Study2023, 1, LoadKind.Sequential, [WorkloadParameters.Variant, WorkloadParameters.Users], PrepareBulkRead),
    ];

    public static IReadOnlyList<string> Ids { get; } = [.. All.Select(workload => workload.Id)];

    public static WorkloadInfo? Find(string? id) => All.FirstOrDefault(workload => workload.Id == id);

    /// <summary>The answer is what was sent, or the call failed: a wrong answer is never a success.</summary>
    public static void Expect(ulong actual, ulong expected, string what)
    {
        if (actual != expected)
        {
            throw DataLoss($"{what} arrived with checksum {actual:x16}; {expected:x16} was sent");
        }
    }

    public static void Expect(Receipt actual, Receipt expected, string what)
    {
        if (actual != expected)
        {
            throw DataLoss($"the service received {what} as {actual.Length} item(s) or bytes with checksum {actual.Checksum:x16}; " +
                $"{expected.Length} with checksum {expected.Checksum:x16} were sent");
        }
    }

    private static Calls.CallFailedException DataLoss(string detail) => new(StatusCode.DataLoss, char.ToUpperInvariant(detail[0]) + detail[1..] + ".");

    // The expected values are passed in only to compute them now, before the run's clock starts.
    private static PreparedWorkload Ready<T>(T expected, WorkloadCall call) => new(call, 1, "");

    private static PreparedWorkload PrepareUpload(RunPlan plan)
    {
        var length = plan.FileBytes ?? WorkloadParameters.DefaultFileBytes;
        var expected = new Receipt(WorkloadSamples.File(length), length);
        return new PreparedWorkload(
            async (api, _, options) => Expect(await api.UploadAsync(length, options), expected, "the file"),
            1,
            $"A file of {length.ToString("#,0", CultureInfo.InvariantCulture)} bytes per call. ");
    }

    private static PreparedWorkload PrepareBulkRead(RunPlan plan)
    {
        var users = plan.Users ?? WorkloadData.UserCount;
        var pages = users / WorkloadData.UserPageSize;
        if (plan.Variant == BulkReadVariant.Stream)
        {
            var each = WorkloadSamples.Users(users);
            return new PreparedWorkload(
                async (api, _, options) =>
                {
                    var received = 0;
                    await foreach (var checksum in api.StreamUsersAsync(users, options))
                    {
                        if (received == users)
                        {
                            throw DataLoss($"The stream sent more than the {users} users asked for");
                        }

                        Expect(checksum, each[received], $"user {received}");
                        received++;
                    }

                    if (received != users)
                    {
                        throw DataLoss($"The stream ended after {received} of {users} users");
                    }
                },
                pages,
                $"{users.ToString("#,0", CultureInfo.InvariantCulture)} users as one server stream, each message checked as it arrives. ");
        }

        var expected = WorkloadSamples.UserPages(pages);
        return new PreparedWorkload(
            (api, _, options) => ReadPagesAsync(api, pages, expected, options),
            pages,
            $"{users.ToString("#,0", CultureInfo.InvariantCulture)} users as {pages} pages of {WorkloadData.UserPageSize}, read by {WorkloadParameters.BulkReadWorkers} workers at once on the same channel or HttpClient. ");
    }

    private static async Task ReadPagesAsync(IWorkloadApi api, int pages, ulong[] expected, CallOptions options)
    {
        var next = -1;
        var workers = new Task[Math.Min(WorkloadParameters.BulkReadWorkers, pages)];
        for (var worker = 0; worker < workers.Length; worker++)
        {
            workers[worker] = WorkAsync();
        }

        await Task.WhenAll(workers);

        async Task WorkAsync()
        {
            for (var page = Interlocked.Increment(ref next); page < pages; page = Interlocked.Increment(ref next))
            {
                Expect(await api.UsersAsync(page, WorkloadData.UserPageSize, options), expected[page], $"page {page} of the users");
            }
        }
    }
}
