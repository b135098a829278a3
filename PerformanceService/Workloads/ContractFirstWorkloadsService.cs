using Grpc.Core;
using Microsoft.Extensions.Options;
using Workloads;
using Cf = Workloads.ContractFirst;

namespace PerformanceService.Workloads;

/// <summary>
/// workloads.Workloads, contract-first (the classes generated from Protos/workloads.proto): the same answers as every
/// other path, kept as messages so a call costs only its serialization.
/// </summary>
public sealed class ContractFirstWorkloadsService(IOptions<WorkloadOptions> options) : Cf.Workloads.WorkloadsBase
{
    public override Task<Cf.SmallInts> GetSmallInts(Cf.ItemRequest request, ServerCallContext context) =>
        Task.FromResult(WorkloadAnswers.Item(static id => WorkloadData.SmallInts(id).ToContract(), GrpcFailures.ValidId(request.Id)));

    public override Task<Cf.Book> GetBook(Cf.ItemRequest request, ServerCallContext context) =>
        Task.FromResult(WorkloadAnswers.Item(static id => WorkloadData.Book(id).ToContract(), GrpcFailures.ValidId(request.Id)));

    public override Task<Cf.BookList> GetBooks(Cf.ItemRequest request, ServerCallContext context) =>
        Task.FromResult(WorkloadAnswers.One(static () => WorkloadData.Books().ToContract()));

    public override Task<Cf.BigDto> GetBigDto(Cf.ItemRequest request, ServerCallContext context) =>
        Task.FromResult(WorkloadAnswers.Item(static id => WorkloadData.BigDto(id).ToContract(), GrpcFailures.ValidId(request.Id)));

    public override Task<Cf.BigDtoList> GetBigDtos(Cf.PageRequest request, ServerCallContext context)
    {
        GrpcFailures.ThrowIfInvalid(WorkloadRules.Page(request.Page, request.Size, WorkloadRules.MaxBigDtoPageSize));
        return Task.FromResult(WorkloadAnswers.BigDtoMessages(request.Page, request.Size));
    }

    public override Task<Cf.WriteAck> WriteLog(Cf.LogRecord request, ServerCallContext context) =>
        Task.FromResult(new Cf.WriteAck { Checksum = WorkloadChecksum.Of(request), Length = 1 });

    public override async Task<Cf.WriteAck> Upload(IAsyncStreamReader<Cf.FileChunk> requestStream, ServerCallContext context)
    {
        var upload = await FileUpload.ReceiveAsync(requestStream.ReadAllAsync(context.CancellationToken).Select(static chunk => chunk.Data.Memory), options.Value.MaxFileBytes, context.CancellationToken);
        return new Cf.WriteAck { Checksum = upload.Checksum, Length = upload.Length };
    }

    public override Task<Cf.UserList> GetUsers(Cf.PageRequest request, ServerCallContext context)
    {
        GrpcFailures.ThrowIfInvalid(WorkloadRules.Page(request.Page, request.Size, WorkloadRules.MaxUserPageSize));
        return Task.FromResult(WorkloadAnswers.UserMessages(request.Page, request.Size));
    }

    /// <summary>Each user made as it is sent, each write waiting for HTTP/2 flow control: the range is never in memory.</summary>
    public override async Task StreamUsers(Cf.PageRequest request, IServerStreamWriter<Cf.User> responseStream, ServerCallContext context)
    {
        GrpcFailures.ThrowIfInvalid(WorkloadRules.Page(request.Page, request.Size, WorkloadRules.MaxUserStreamSize));
        foreach (var id in WorkloadData.UserIds(request.Page, request.Size))
        {
            // The call's token, so a write after the client left ends as a cancellation, not as "the request is complete".
            await responseStream.WriteAsync(WorkloadData.User(id).ToContract(), context.CancellationToken);
        }
    }
}
