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
public sealed record PreparedWorkload(WorkloadCall Call, int ServiceCallsPerCall = 1, string Describe = "");

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
/// the CLI's help: adding a workload is one entry here, whose <see cref="Fetch"/> says how each API asks for its answer.
/// </summary>
public static class WorkloadList
{
    private const string Study2019 = "2019, \"gRPC performance benchmark in ASP.NET Core 3\"";
    private const string Study2020 = "2020, \"Rest vs gRPC performance benchmark in .NET Core 3.1\"";
    private const string Study2023 = "2023, \".NET 7 Web API through HTTP/1.1, HTTP/2 and gRPC\"";

    /// <summary>bulk-read's pages of <see cref="WorkloadData.UserPageSize"/> users.</summary>
    private static readonly Fetch UserPages = Fetch.Of(
        (c, page, o) => c.GetUsersAsync(new() { Page = page, Size = WorkloadData.UserPageSize }, o), (s, page, c) => s.GetUsersAsync(new() { Page = page, Size = WorkloadData.UserPageSize }, c),
        page => $"users?page={page}&size={WorkloadData.UserPageSize}", page => WorkloadData.Users(page, WorkloadData.UserPageSize), WorkloadData.UserCount / WorkloadData.UserPageSize);

    public static IReadOnlyList<WorkloadInfo> All { get; } =
    [
        new("small-ints", "Three integers", "Each call fetches three int32 by id (protobuf ≈ 10 B, JSON ≈ 89 B).", Study2019, 1000, LoadKind.Sequential, [],
            Fetching("the small-ints answer", Fetch.Of((c, id, o) => c.GetSmallIntsAsync(new() { Id = id }, o), (s, id, c) => s.GetSmallIntsAsync(new() { Id = id }, c),
                id => $"small-ints/{id}", WorkloadData.SmallInts, WorkloadSamples.DistinctIds))),
        new("small-mixed", "One book", "Each call fetches a book by id: two short strings, an int, an author with two names (≈ 63 B protobuf, 133 B JSON).", Study2019, 1000, LoadKind.Sequential, [],
            Fetching("the book", Fetch.Of((c, id, o) => c.GetBookAsync(new() { Id = id }, o), (s, id, c) => s.GetBookAsync(new() { Id = id }, c),
                id => $"books/{id}", WorkloadData.Book, WorkloadSamples.DistinctIds))),
        new("big-list", "1000 books", "Each call fetches a list of 1000 books (≈ 65 kB protobuf, 134 kB JSON).", Study2019, 1000, LoadKind.Sequential, [],
            Fetching("the list of 1000 books", Fetch.Of((c, _, o) => c.GetBooksAsync(new(), o), (s, _, c) => s.GetBooksAsync(new(), c), _ => "books", _ => WorkloadData.Books(), 1))),
        new("big-dto", "One big record", "Each call fetches a ≈ 2.4 kB record of many types (Guid, text, DateTime, int, float, decimal, double, long, a nested record with 256 bytes, three paragraphs) by id.",
            Study2020, 100, LoadKind.Sequential, [WorkloadParameters.Connection],
            Fetching("the big record", Fetch.Of((c, id, o) => c.GetBigDtoAsync(new() { Id = id }, o), (s, id, c) => s.GetBigDtoAsync(new() { Id = id }, c),
                id => $"big-dtos/{id}", WorkloadData.BigDto, WorkloadSamples.DistinctIds))),
        new("collection", "500 big records", $"Each call fetches the whole collection of {WorkloadData.CollectionSize} big records (≈ 1.1 MB protobuf, 1.2 MB JSON).", Study2020, 100, LoadKind.Sequential, [],
            Fetching("the collection", BigDtoPages(WorkloadData.CollectionSize, 1))),
        new("page", "A page of 20 big records", $"Each call fetches a page of {WorkloadData.PageSize} big records, cycling through the {WorkloadSamples.BigDtoPages} pages of the collection.",
            Study2020, 100, LoadKind.Sequential, [], Fetching("page {0}", BigDtoPages(WorkloadData.PageSize, WorkloadSamples.BigDtoPages))),
        new("log-write", "Log records written", "Each call sends one log record {timestamp, text, level, category}; the service answers the checksum of what it received.",
            Study2023, 1000, LoadKind.Sequential, [WorkloadParameters.Clients],
            PrepareLogWrite),
        new("file-upload", "A file uploaded", $"Each call uploads a file in {WorkloadData.FileChunkBytes / 1024} KiB pieces (gRPC: a client stream of chunks; REST: a streamed request body); the service hashes it as it arrives and keeps none of it.",
            Study2023, 10, LoadKind.Sequential, [WorkloadParameters.FileBytes, WorkloadParameters.Clients], PrepareUpload),
        new("bulk-read", "A million users read", $"One call reads every user of the range: as pages of {WorkloadData.UserPageSize} by {WorkloadParameters.BulkReadWorkers} workers, or as one gRPC server stream.",
            Study2023, 1, LoadKind.Sequential, [WorkloadParameters.Variant, WorkloadParameters.Users], PrepareBulkRead),
    ];

    public static IReadOnlyList<string> Ids { get; } = [.. All.Select(workload => workload.Id)];

    public static WorkloadInfo? Find(string? id) => All.FirstOrDefault(workload => workload.Id == id);

    /// <summary>The answer is what was sent, or the call failed: a wrong answer is never a success. <paramref name="what"/> names it, with <paramref name="key"/> for {0}.</summary>
    public static void Expect(ulong actual, ulong expected, string what, int key = 0)
    {
        if (actual != expected)
        {
            throw DataLoss(string.Format(CultureInfo.InvariantCulture, what, key) + $" arrived with checksum {actual:x16}; {expected:x16} was sent");
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

    /// <summary>Calls cycle through the fetch's answers (call i asks for answer i % keys), each checked against its expected checksum, computed now, before the run's clock starts.</summary>
    private static Func<RunPlan, PreparedWorkload> Fetching(string what, Fetch fetch) => _ =>
    {
        var expected = fetch.Expected.First(fetch.Keys);
        return new PreparedWorkload(async (api, index, options) =>
        {
            var key = (int)(index % fetch.Keys);
            Expect(await api.FetchAsync(fetch, key, options), expected[key], what, key);
        });
    };

    private static Fetch BigDtoPages(int size, int pages) => Fetch.Of(
        (c, page, o) => c.GetBigDtosAsync(new() { Page = page, Size = size }, o), (s, page, c) => s.GetBigDtosAsync(new() { Page = page, Size = size }, c),
        page => $"big-dtos?page={page}&size={size}", page => WorkloadData.BigDtos(page, size), pages);

    private static PreparedWorkload PrepareLogWrite(RunPlan plan)
    {
        var acks = WorkloadSamples.LogRecordAcks;
        return new PreparedWorkload(async (api, index, options) =>
        {
            var id = (int)(index % WorkloadSamples.DistinctIds);
            Expect(await api.WriteLogAsync(id, options), new Receipt(acks[id], 1), "the log record");
        });
    }

    private static PreparedWorkload PrepareUpload(RunPlan plan)
    {
        var length = plan.Workload?.FileBytes ?? WorkloadParameters.DefaultFileBytes;
        var expected = new Receipt(WorkloadSamples.File(length), length);
        return new PreparedWorkload(
            async (api, _, options) => Expect(await api.UploadAsync(length, options), expected, "the file"),
            Describe: $"A file of {length.ToString("#,0", CultureInfo.InvariantCulture)} bytes per call. ");
    }

    private static PreparedWorkload PrepareBulkRead(RunPlan plan)
    {
        var users = plan.Workload?.Users ?? WorkloadData.UserCount;
        var pages = users / WorkloadData.UserPageSize;
        if (plan.Workload?.Variant == BulkReadVariant.Stream)
        {
            var each = WorkloadSamples.Users.First(users);
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

                        Expect(checksum, each[received], "user {0}", received);
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

        var expected = UserPages.Expected.First(pages);
        return new PreparedWorkload(
            (api, _, options) => ReadPagesAsync(api, pages, expected, options),
            pages,
            $"{users.ToString("#,0", CultureInfo.InvariantCulture)} users as {pages} pages of {WorkloadData.UserPageSize}, read by {WorkloadParameters.BulkReadWorkers} workers at once on the same channel or HttpClient. ");
    }

    // Parallel.ForAsync hands the pages out in order to at most BulkReadWorkers at once, and after a failed page starts no other.
    private static Task ReadPagesAsync(IWorkloadApi api, int pages, ulong[] expected, CallOptions options) =>
        Parallel.ForAsync(0, pages, new ParallelOptions { MaxDegreeOfParallelism = WorkloadParameters.BulkReadWorkers }, async (page, _) =>
            Expect(await api.FetchAsync(UserPages, page, options), expected[page], "page {0} of the users", page));
}
