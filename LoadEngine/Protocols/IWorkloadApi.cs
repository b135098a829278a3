using Grpc.Core;
using Workloads;
using Cf = Workloads.ContractFirst;

namespace LoadEngine.Protocols;

/// <summary>What the service acknowledged for a write: the checksum and length of what it received.</summary>
public readonly record struct Receipt(ulong Checksum, long Length);

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
public abstract class Fetch(int keys, Func<int, ulong> expected)
{
    private readonly Checksums _expected = new(expected);

    public int Keys => keys;

    public static Fetch<TContract, TModel> Of<TContract, TModel>(
        Func<Cf.Workloads.WorkloadsClient, int, CallOptions, AsyncUnaryCall<TContract>> contractFirst,
        Func<ICodeFirstWorkloads, int, ProtoBuf.Grpc.CallContext, ValueTask<TModel>> codeFirst,
        Func<int, string> route,
        Func<int, TModel> answer,
        int keys)
        where TContract : class, IWorkloadValue
        where TModel : class, IWorkloadValue => new(contractFirst, codeFirst, route, answer, keys);

    /// <summary>The checksum of each of the first <paramref name="count"/> answers, computed once (before anything is timed) and kept.</summary>
    public ulong[] Expected(int count) => _expected.First(count);

    /// <summary>The REST route of answer <paramref name="key"/>, under the serializer's root.</summary>
    public abstract string Route(int key);

    public abstract Task<ulong> ContractFirstAsync(Cf.Workloads.WorkloadsClient client, int key, CallOptions options);

    public abstract Task<ulong> CodeFirstAsync(ICodeFirstWorkloads service, int key, CallOptions options);

    public abstract Task<ulong> RestAsync(RestWorkloadApi api, int key, CallOptions options);
}

public sealed class Fetch<TContract, TModel>(
    Func<Cf.Workloads.WorkloadsClient, int, CallOptions, AsyncUnaryCall<TContract>> contractFirst,
    Func<ICodeFirstWorkloads, int, ProtoBuf.Grpc.CallContext, ValueTask<TModel>> codeFirst,
    Func<int, string> route,
    Func<int, TModel> answer,
    int keys) : Fetch(keys, key => WorkloadChecksum.Of(answer(key)))
    where TContract : class, IWorkloadValue
    where TModel : class, IWorkloadValue
{
    public override string Route(int key) => route(key);

    public override async Task<ulong> ContractFirstAsync(Cf.Workloads.WorkloadsClient client, int key, CallOptions options) =>
        WorkloadChecksum.Of(await contractFirst(client, key, options));

    public override async Task<ulong> CodeFirstAsync(ICodeFirstWorkloads service, int key, CallOptions options) =>
        WorkloadChecksum.Of(await codeFirst(service, key, new ProtoBuf.Grpc.CallContext(options)));

    public override Task<ulong> RestAsync(RestWorkloadApi api, int key, CallOptions options) => api.GetAsync<TModel>(this, key, options);
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
