using System.Runtime.CompilerServices;
using Microsoft.Extensions.Options;
using ProtoBuf.Grpc;
using Workloads;
using M = Workloads.Model;

namespace PerformanceService.Workloads;

/// <summary>
/// workloads.CodeFirstWorkloads (protobuf-net.Grpc): the interface and plain classes, no .proto; the same answers as every
/// other path, kept as the plain classes the JSON paths serve too.
/// </summary>
public sealed class CodeFirstWorkloadsService(IOptions<WorkloadOptions> options) : ICodeFirstWorkloads
{
    public ValueTask<M.SmallInts> GetSmallIntsAsync(M.ItemRequest request, CallContext context = default) =>
        new(WorkloadAnswers.Item(WorkloadData.SmallInts, GrpcFailures.ValidId(request.Id)));

    public ValueTask<M.Book> GetBookAsync(M.ItemRequest request, CallContext context = default) =>
        new(WorkloadAnswers.Item(WorkloadData.Book, GrpcFailures.ValidId(request.Id)));

    public ValueTask<M.BookList> GetBooksAsync(M.ItemRequest request, CallContext context = default) =>
        new(WorkloadAnswers.One(WorkloadData.Books));

    public ValueTask<M.BigDto> GetBigDtoAsync(M.ItemRequest request, CallContext context = default) =>
        new(WorkloadAnswers.Item(WorkloadData.BigDto, GrpcFailures.ValidId(request.Id)));

    public ValueTask<M.BigDtoList> GetBigDtosAsync(M.PageRequest request, CallContext context = default)
    {
        GrpcFailures.ThrowIfInvalid(WorkloadRules.Page(request.Page, request.Size, WorkloadRules.MaxBigDtoPageSize));
        return new(WorkloadAnswers.BigDtos(request.Page, request.Size));
    }

    public ValueTask<M.WriteAck> WriteLogAsync(M.LogRecord record, CallContext context = default) =>
        new(new M.WriteAck { Checksum = WorkloadChecksum.Of(record), Length = 1 });

    public async ValueTask<M.WriteAck> UploadAsync(IAsyncEnumerable<M.FileChunk> chunks, CallContext context = default)
    {
        var upload = await FileUpload.ReceiveAsync(chunks.Select(static chunk => chunk.Data), options.Value.MaxFileBytes, context.CancellationToken);
        return new M.WriteAck { Checksum = upload.Checksum, Length = upload.Length };
    }

    public ValueTask<M.UserList> GetUsersAsync(M.PageRequest request, CallContext context = default)
    {
        GrpcFailures.ThrowIfInvalid(WorkloadRules.Page(request.Page, request.Size, WorkloadRules.MaxUserPageSize));
        return new(WorkloadData.Users(request.Page, request.Size));
    }

    /// <summary>
    /// Each user made as protobuf-net.Grpc asks for the next, which it does once the last write got through HTTP/2 flow
    /// control: the range is never in memory. Checked before the first user, so a bad range fails the call at once.
    /// </summary>
    public IAsyncEnumerable<M.User> StreamUsersAsync(M.PageRequest request, CallContext context = default)
    {
        GrpcFailures.ThrowIfInvalid(WorkloadRules.Page(request.Page, request.Size, WorkloadRules.MaxUserStreamSize));
        return Users(WorkloadData.UserIds(request.Page, request.Size), context.CancellationToken);
    }

    // protobuf-net.Grpc writes without the call's token; stopping here once the client left keeps a write after that
    // from failing as "the request is complete" instead of ending as a cancellation.
    private static async IAsyncEnumerable<M.User> Users(IEnumerable<int> ids, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        foreach (var id in ids)
        {
            cancellationToken.ThrowIfCancellationRequested();
            yield return WorkloadData.User(id);
        }
    }
}
