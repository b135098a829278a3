using ProtoBuf.Grpc;
using ProtoBuf.Grpc.Configuration;
using Workloads.Model;

namespace Workloads;

/// <summary>
/// The workloads' operations code-first (protobuf-net.Grpc): an interface and plain classes, no .proto file. The same
/// operations as Protos/workloads.proto, under a service name of their own so both can be served side by side.
/// </summary>
[Service("workloads.CodeFirstWorkloads")]
public interface ICodeFirstWorkloads
{
    ValueTask<SmallInts> GetSmallIntsAsync(ItemRequest request, CallContext context = default);

    ValueTask<Book> GetBookAsync(ItemRequest request, CallContext context = default);

    ValueTask<BookList> GetBooksAsync(ItemRequest request, CallContext context = default);

    ValueTask<BigDto> GetBigDtoAsync(ItemRequest request, CallContext context = default);

    ValueTask<BigDtoList> GetBigDtosAsync(PageRequest request, CallContext context = default);

    ValueTask<WriteAck> WriteLogAsync(LogRecord record, CallContext context = default);

    ValueTask<WriteAck> UploadAsync(IAsyncEnumerable<FileChunk> chunks, CallContext context = default);

    ValueTask<UserList> GetUsersAsync(PageRequest request, CallContext context = default);

    IAsyncEnumerable<User> StreamUsersAsync(PageRequest request, CallContext context = default);
}
