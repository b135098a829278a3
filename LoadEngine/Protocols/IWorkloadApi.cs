using Grpc.Core;
using ProtoBuf.Grpc;
using Workloads;
using Cf = Workloads.ContractFirst;
using M = Workloads.Model;

namespace LoadEngine.Protocols;

/// <summary>What the service acknowledged for a write: the checksum and length of what it received.</summary>
public readonly record struct Receipt(ulong Checksum, long Length)
{
    public static Receipt Of(Cf.WriteAck ack) => new(ack.Checksum, ack.Length);

    public static Receipt Of(M.WriteAck ack) => new(ack.Checksum, ack.Length);
}

/// <summary>
/// One of the service's four APIs over one channel or HttpClient: the transport of each kind of call, returning the
/// checksum of the answer after it was fully deserialized (or the service's receipt for a write). Failures are the
/// RpcException a gRPC client throws; REST failures are a Calls.CallFailedException under the status grpc-dotnet would give them.
/// </summary>
public interface IWorkloadApi : IDisposable
{
    /// <summary>Answer <paramref name="key"/> of <paramref name="fetch"/>, asked for the way this API asks for it.</summary>
    Task<ulong> FetchAsync(Fetch fetch, int key, CallOptions options);

    /// <summary>Sends log record <c>id</c> of <see cref="WorkloadSamples.LogRecords"/>.</summary>
    Task<Receipt> WriteLogAsync(int id, CallOptions options);

    /// <summary>Uploads the first <paramref name="length"/> bytes of the shared file, a chunk (<see cref="WorkloadData.FileChunkBytes"/>) at a time, never all of it in memory.</summary>
    Task<Receipt> UploadAsync(long length, CallOptions options);

    /// <summary>The first <paramref name="count"/> users as one server stream: each user's checksum as it arrives (gRPC only).</summary>
    IAsyncEnumerable<ulong> StreamUsersAsync(int count, CallOptions options);
}

/// <summary>
/// One read of the service's, as each API asks for it: the generated client's call (contract-first), protobuf-net.Grpc's
/// (code-first), and the REST route whose JSON binds to the code-first answer's class. Its answers are numbered 0 to
/// <see cref="Keys"/> − 1 (an id, a page); each is <see cref="WorkloadData"/>'s, and its checksum is what the client expects.
/// </summary>
public sealed class Fetch(int keys, Func<int, string> route, Func<int, ulong> expected)
{
    public int Keys => keys;

    /// <summary>The REST route of answer <c>key</c>, under the serializer's root.</summary>
    public Func<int, string> Route => route;

    /// <summary>The checksum of each answer, computed once (before anything is timed) and kept.</summary>
    public Checksums Expected { get; } = new(expected);

    public required Func<Cf.Workloads.WorkloadsClient, int, CallOptions, Task<ulong>> ContractFirstAsync { get; init; }

    public required Func<ICodeFirstWorkloads, int, CallOptions, Task<ulong>> CodeFirstAsync { get; init; }

    /// <summary>The answer at the address given, read as the code-first answer's class.</summary>
    public required Func<RestWorkloadApi, Uri, CallOptions, Task<ulong>> RestAsync { get; init; }

    public static Fetch Of<TContract, TModel>(
        Func<Cf.Workloads.WorkloadsClient, int, CallOptions, AsyncUnaryCall<TContract>> contractFirst,
        Func<ICodeFirstWorkloads, int, CallContext, ValueTask<TModel>> codeFirst,
        Func<int, string> route,
        Func<int, TModel> answer,
        int keys)
        where TContract : class, IWorkloadValue
        where TModel : class, IWorkloadValue => new(keys, route, key => WorkloadChecksum.Of(answer(key)))
    {
        ContractFirstAsync = async (client, key, options) => WorkloadChecksum.Of(await contractFirst(client, key, options)),
        CodeFirstAsync = async (service, key, options) => WorkloadChecksum.Of(await codeFirst(service, key, new CallContext(options))),
        RestAsync = static (api, uri, options) => api.GetAsync<TModel>(uri, options),
    };
}

/// <summary>Checksums of items 0, 1, 2, … computed once and kept, extended when a run needs more of them.</summary>
public sealed class Checksums(Func<int, ulong> of)
{
    private readonly Lock _gate = new();
    private ulong[] _ready = [];

    public ulong[] First(int count)
    {
        lock (_gate)
        {
            if (_ready.Length < count)
            {
                _ready = [.. _ready, .. Enumerable.Range(_ready.Length, count - _ready.Length).Select(of)];
            }

            return _ready;
        }
    }
}
