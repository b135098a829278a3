using System.Runtime.CompilerServices;
using Google.Protobuf;
using Grpc.Core;
using Grpc.Net.Client;
using ProtoBuf.Grpc;
using ProtoBuf.Grpc.Client;
using Workloads;
using Cf = Workloads.ContractFirst;
using M = Workloads.Model;

namespace LoadEngine.Protocols;

/// <summary>The generated stubs of Protos/workloads.proto (service workloads.Workloads) on one channel.</summary>
public sealed class ContractFirstApi(GrpcChannel channel) : IWorkloadApi
{
    private readonly Cf.Workloads.WorkloadsClient _client = new(channel);

    public Task<ulong> FetchAsync(Fetch fetch, int key, CallOptions options) => fetch.ContractFirstAsync(_client, key, options);

    public async Task<Receipt> WriteLogAsync(int id, CallOptions options) =>
        Receipt.Of(await _client.WriteLogAsync(WorkloadSamples.LogRecordContracts[id], options));

    public async Task<Receipt> UploadAsync(long length, CallOptions options)
    {
        using var call = _client.Upload(options);
        try
        {
            foreach (var chunk in WorkloadData.FileChunks(length))
            {
                // WriteAsync has serialized the message once it completes, so wrapping the buffer without a copy is safe.
                await call.RequestStream.WriteAsync(new Cf.FileChunk { Data = UnsafeByteOperations.UnsafeWrap(chunk) });
            }

            await call.RequestStream.CompleteAsync();
        }
        catch (RpcException)
        {
            // A write fails once the service has ended the call; its own status (RESOURCE_EXHAUSTED, say) is the answer's.
            await call.ResponseAsync;
            throw;
        }

        return Receipt.Of(await call.ResponseAsync);
    }

    public async IAsyncEnumerable<ulong> StreamUsersAsync(int count, CallOptions options)
    {
        using var call = _client.StreamUsers(new Cf.PageRequest { Page = 0, Size = count }, options);
        while (await call.ResponseStream.MoveNext(options.CancellationToken))
        {
            yield return WorkloadChecksum.Of(call.ResponseStream.Current);
        }
    }

    public void Dispose() => channel.Dispose();
}

/// <summary>protobuf-net.Grpc's client for <see cref="ICodeFirstWorkloads"/> (service workloads.CodeFirstWorkloads) on one channel.</summary>
public sealed class CodeFirstApi(GrpcChannel channel) : IWorkloadApi
{
    private readonly ICodeFirstWorkloads _service = channel.CreateGrpcService<ICodeFirstWorkloads>();

    public Task<ulong> FetchAsync(Fetch fetch, int key, CallOptions options) => fetch.CodeFirstAsync(_service, key, options);

    public async Task<Receipt> WriteLogAsync(int id, CallOptions options) =>
        Receipt.Of(await _service.WriteLogAsync(WorkloadSamples.LogRecords[id], new CallContext(options)));

    // Without IgnoreStreamTermination a write after the service ended the call throws protobuf-net's own exception, not
    // an RpcException; with it the sending stops and the call's real status comes from the answer.
    public async Task<Receipt> UploadAsync(long length, CallOptions options) =>
        Receipt.Of(await _service.UploadAsync(Chunks(length, options.CancellationToken), new CallContext(options, CallContextFlags.IgnoreStreamTermination)));

    public IAsyncEnumerable<ulong> StreamUsersAsync(int count, CallOptions options) =>
        _service.StreamUsersAsync(new M.PageRequest { Page = 0, Size = count }, new CallContext(options)).Select(WorkloadChecksum.Of);

    public void Dispose() => channel.Dispose();

    // protobuf-net.Grpc awaits each write before it asks for the next chunk, so one buffer serves them all.
    private static async IAsyncEnumerable<M.FileChunk> Chunks(long length, [EnumeratorCancellation] CancellationToken cancellation)
    {
        foreach (var chunk in WorkloadData.FileChunks(length))
        {
            cancellation.ThrowIfCancellationRequested();
            yield return new M.FileChunk { Data = chunk };
        }
    }
}
