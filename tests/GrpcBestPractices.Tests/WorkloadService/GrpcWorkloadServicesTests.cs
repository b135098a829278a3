using System.Buffers;
using Google.Protobuf;
using Grpc.Core;
using GrpcBestPractices.Tests.Fakes;
using Microsoft.Extensions.Options;
using PerformanceService.Workloads;
using Workloads;
using Cf = Workloads.ContractFirst;
using M = Workloads.Model;

namespace GrpcBestPractices.Tests.WorkloadService;

/// <summary>Both gRPC services called directly (a test ServerCallContext, no socket): the data, the limits and the uploads.</summary>
public sealed class GrpcWorkloadServicesTests
{
    private const int SmallMax = 100_000;
    private readonly ContractFirstWorkloadsService _contractFirst = new(Options.Create(new WorkloadOptions { MaxFileBytes = SmallMax }));
    private readonly CodeFirstWorkloadsService _codeFirst = new(Options.Create(new WorkloadOptions { MaxFileBytes = SmallMax }));

    [Fact]
    public async Task ContractFirstAnswersCarryExactlyTheDataOfWorkloadData()
    {
        var context = TestServerCallContext.Create();
        var item = new Cf.ItemRequest { Id = 7 };

        Assert.Equal(WorkloadChecksum.Of(WorkloadData.SmallInts(7)), WorkloadChecksum.Of(await _contractFirst.GetSmallInts(item, context)));
        Assert.Equal(WorkloadChecksum.Of(WorkloadData.Book(7)), WorkloadChecksum.Of(await _contractFirst.GetBook(item, context)));
        Assert.Equal(WorkloadChecksum.Of(WorkloadData.Books()), WorkloadChecksum.Of(await _contractFirst.GetBooks(item, context)));
        Assert.Equal(WorkloadChecksum.Of(WorkloadData.BigDto(7)), WorkloadChecksum.Of(await _contractFirst.GetBigDto(item, context)));
        Assert.Equal(WorkloadChecksum.Of(WorkloadData.BigDtos(0, WorkloadData.CollectionSize)), WorkloadChecksum.Of(await _contractFirst.GetBigDtos(new() { Page = 0, Size = WorkloadData.CollectionSize }, context)));
        Assert.Equal(WorkloadChecksum.Of(WorkloadData.BigDtos(3, WorkloadData.PageSize)), WorkloadChecksum.Of(await _contractFirst.GetBigDtos(new() { Page = 3, Size = WorkloadData.PageSize }, context)));
        Assert.Equal(WorkloadChecksum.Of(WorkloadData.Users(999, 1000)), WorkloadChecksum.Of(await _contractFirst.GetUsers(new() { Page = 999, Size = 1000 }, context)));
        var record = WorkloadData.LogRecord(3).ToContract();
        Assert.Equal(WorkloadChecksum.Of(WorkloadData.LogRecord(3)), (await _contractFirst.WriteLog(record, context)).Checksum);
    }

    [Fact]
    public async Task CodeFirstAnswersCarryExactlyTheDataOfWorkloadData()
    {
        var item = new M.ItemRequest { Id = 7 };

        Assert.Equal(WorkloadChecksum.Of(WorkloadData.SmallInts(7)), WorkloadChecksum.Of(await _codeFirst.GetSmallIntsAsync(item)));
        Assert.Equal(WorkloadChecksum.Of(WorkloadData.Book(7)), WorkloadChecksum.Of(await _codeFirst.GetBookAsync(item)));
        Assert.Equal(WorkloadChecksum.Of(WorkloadData.Books()), WorkloadChecksum.Of(await _codeFirst.GetBooksAsync(item)));
        Assert.Equal(WorkloadChecksum.Of(WorkloadData.BigDto(7)), WorkloadChecksum.Of(await _codeFirst.GetBigDtoAsync(item)));
        Assert.Equal(WorkloadChecksum.Of(WorkloadData.BigDtos(0, WorkloadData.CollectionSize)), WorkloadChecksum.Of(await _codeFirst.GetBigDtosAsync(new() { Page = 0, Size = WorkloadData.CollectionSize })));
        Assert.Equal(WorkloadChecksum.Of(WorkloadData.BigDtos(3, WorkloadData.PageSize)), WorkloadChecksum.Of(await _codeFirst.GetBigDtosAsync(new() { Page = 3, Size = WorkloadData.PageSize })));
        Assert.Equal(WorkloadChecksum.Of(WorkloadData.Users(999, 1000)), WorkloadChecksum.Of(await _codeFirst.GetUsersAsync(new() { Page = 999, Size = 1000 })));
        Assert.Equal(WorkloadChecksum.Of(WorkloadData.LogRecord(3)), (await _codeFirst.WriteLogAsync(WorkloadData.LogRecord(3))).Checksum);
    }

    [Fact]
    public async Task IdsPastTheKeptRangeAreTakenModuloItSoWhatIsKeptStaysBounded()
    {
        var contract = await _contractFirst.GetBook(new Cf.ItemRequest { Id = WorkloadRules.ItemRange + 7 }, TestServerCallContext.Create());
        var code = await _codeFirst.GetBigDtosAsync(new M.PageRequest { Page = 50, Size = WorkloadData.PageSize });

        Assert.Equal(WorkloadChecksum.Of(WorkloadData.Book(7)), WorkloadChecksum.Of(contract));
        Assert.Equal(WorkloadChecksum.Of(WorkloadData.BigDtos(0, WorkloadData.PageSize)), WorkloadChecksum.Of(code));
    }

    [Theory]
    [InlineData(-1, 20, "page was -1; it must be 0 or more.")]
    [InlineData(0, 0, "size was 0; it must be between 1 and 500.")]
    [InlineData(0, 501, "size was 501; it must be between 1 and 500.")]
    public async Task ABadPageOfBigDtosIsInvalidArgumentSayingWhatIsAllowed(int page, int size, string detail)
    {
        var contract = await Assert.ThrowsAsync<RpcException>(() => _contractFirst.GetBigDtos(new() { Page = page, Size = size }, TestServerCallContext.Create()));
        var code = await Assert.ThrowsAsync<RpcException>(async () => await _codeFirst.GetBigDtosAsync(new() { Page = page, Size = size }));

        Assert.All([contract, code], error => Assert.Equal(new Status(StatusCode.InvalidArgument, detail), error.Status));
    }

    [Fact]
    public async Task ABadIdOrUserPageIsInvalidArgumentSayingWhatIsAllowed()
    {
        var id = await Assert.ThrowsAsync<RpcException>(() => _contractFirst.GetSmallInts(new() { Id = -5 }, TestServerCallContext.Create()));
        var users = await Assert.ThrowsAsync<RpcException>(async () => await _codeFirst.GetUsersAsync(new() { Page = 0, Size = 1001 }));
        var stream = Assert.Throws<RpcException>(() => _codeFirst.StreamUsersAsync(new() { Page = 0, Size = WorkloadData.UserCount + 1 }));

        Assert.Equal("id was -5; it must be 0 or more (ids are taken modulo 1000).", id.Status.Detail);
        Assert.Equal("size was 1001; it must be between 1 and 1000.", users.Status.Detail);
        Assert.Equal("size was 1000001; it must be between 1 and 1000000.", stream.Status.Detail);
        Assert.All([id, users, stream], error => Assert.Equal(StatusCode.InvalidArgument, error.StatusCode));
    }

    [Theory]
    [InlineData(1024, 1024)]
    [InlineData(SmallMax, 7_000)]
    [InlineData(SmallMax - 1, 65_536)]
    public async Task AnUploadIsAcknowledgedWithTheChecksumAndLengthOfTheFileHoweverItIsChunked(int length, int chunkSize)
    {
        var reader = new TestAsyncStreamReader<Cf.FileChunk>();
        foreach (var chunk in Chunks(length, chunkSize))
        {
            reader.Add(new Cf.FileChunk { Data = ByteString.CopyFrom(chunk) });
        }

        reader.Complete();
        var contract = await _contractFirst.Upload(reader, TestServerCallContext.Create());
        var code = await _codeFirst.UploadAsync(Chunks(length, chunkSize).Select(chunk => new M.FileChunk { Data = chunk }).ToAsyncEnumerable());

        Assert.Equal((WorkloadChecksum.OfFile(length), (long)length), (contract.Checksum, contract.Length));
        Assert.Equal((WorkloadChecksum.OfFile(length), (long)length), (code.Checksum, code.Length));
    }

    [Fact]
    public async Task AnUploadPastTheMaximumIsResourceExhaustedSayingWhatIsAllowed()
    {
        var reader = new TestAsyncStreamReader<Cf.FileChunk>();
        foreach (var chunk in Chunks(SmallMax + 1, 10_000))
        {
            reader.Add(new Cf.FileChunk { Data = ByteString.CopyFrom(chunk) });
        }

        reader.Complete();
        var contract = await Assert.ThrowsAsync<RpcException>(() => _contractFirst.Upload(reader, TestServerCallContext.Create()));
        var code = await Assert.ThrowsAsync<RpcException>(async () =>
            await _codeFirst.UploadAsync(Chunks(SmallMax + 1, 10_000).Select(chunk => new M.FileChunk { Data = chunk }).ToAsyncEnumerable()));

        var expected = new Status(StatusCode.ResourceExhausted, "The file is larger than 100000 bytes, the most this service accepts (Workloads:MaxFileBytes); send at most 100000 bytes.");
        Assert.All([contract, code], error => Assert.Equal(expected, error.Status));
    }

    [Fact]
    public async Task AStreamOfUsersSendsTheRangeInOrderAndStopsAtTheLastUser()
    {
        var writer = new TestServerStreamWriter<Cf.User>();
        var page = WorkloadData.UserCount / 2500 - 1;

        await _contractFirst.StreamUsers(new() { Page = page, Size = 2500 }, writer, TestServerCallContext.Create());
        var contract = await writer.Written.ReadAllAsync().Take(2500).ToListAsync();
        var code = await _codeFirst.StreamUsersAsync(new() { Page = page, Size = 2500 }).ToListAsync();
        var pastTheEnd = await _codeFirst.StreamUsersAsync(new() { Page = 1, Size = WorkloadData.UserCount }).ToListAsync();

        var expected = WorkloadData.Users(page, 2500);
        Assert.Equal(expected.Users.Select(WorkloadChecksum.Of), contract.Select(WorkloadChecksum.Of));
        Assert.Equal(expected.Users.Select(WorkloadChecksum.Of), code.Select(WorkloadChecksum.Of));
        Assert.Empty(pastTheEnd);
    }

    [Fact]
    public async Task ACodeFirstStreamStopsAtTheNextUserOnceTheClientLeft()
    {
        using var left = new CancellationTokenSource();
        var users = _codeFirst.StreamUsersAsync(new() { Page = 0, Size = WorkloadData.UserCount }).WithCancellation(left.Token).GetAsyncEnumerator();

        Assert.True(await users.MoveNextAsync());
        await left.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await users.MoveNextAsync());
    }

    [Fact]
    public void AFileUploadHashesSegmentsAndSpansAlikeAndTakesNothingPastItsMaximum()
    {
        var bytes = Chunks(5000, 5000).Single();
        var bySpans = new FileUpload(5000);
        var bySequence = new FileUpload(5000);

        Assert.True(bySpans.TryAppend(bytes.AsSpan(0, 1234)) && bySpans.TryAppend(bytes.AsSpan(1234)));
        Assert.True(bySequence.TryAppend(new ReadOnlySequence<byte>(bytes)));
        Assert.False(bySpans.TryAppend([1]));
        Assert.False(bySequence.TryAppend(new ReadOnlySequence<byte>(new byte[1])));

        Assert.Equal((WorkloadChecksum.OfFile(5000), 5000L), (bySpans.Checksum, bySpans.Length));
        Assert.Equal((bySpans.Checksum, bySpans.Length), (bySequence.Checksum, bySequence.Length));
    }

    private static IEnumerable<byte[]> Chunks(long length, int chunkSize)
    {
        for (long offset = 0; offset < length; offset += chunkSize)
        {
            var chunk = new byte[(int)Math.Min(chunkSize, length - offset)];
            WorkloadData.FileBytes(offset, chunk);
            yield return chunk;
        }
    }
}
