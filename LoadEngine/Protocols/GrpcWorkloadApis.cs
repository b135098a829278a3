using System.Buffers;
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
        ToReceipt(await _client.WriteLogAsync(WorkloadSamples.LogRecordContracts[id], options));

    public async Task<Receipt> UploadAsync(long length, CallOptions options)
    {
        using var call = _client.Upload(options);
        var buffer = ArrayPool<byte>.Shared.Rent(WorkloadData.FileChunkBytes);
        try
        {
            for (long offset = 0; offset < length; offset += WorkloadData.FileChunkBytes)
            {
                var chunk = FileChunks.Fill(buffer, offset, length);
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
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }

        return ToReceipt(await call.ResponseAsync);
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

    private static Receipt ToReceipt(Cf.WriteAck ack) => new(ack.Checksum, ack.Length);
}

/// <summary>protobuf-net.Grpc's client for <see cref="ICodeFirstWorkloads"/> (service workloads.CodeFirstWorkloads) on one channel.</summary>
public sealed class CodeFirstApi(GrpcChannel channel) : IWorkloadApi
{
    private readonly ICodeFirstWorkloads _service = channel.CreateGrpcService<ICodeFirstWorkloads>();

    public Task<ulong> FetchAsync(Fetch fetch, int key, CallOptions options) => fetch.CodeFirstAsync(_service, key, options);

    public async Task<Receipt> WriteLogAsync(int id, CallOptions options) =>
        ToReceipt(await _service.WriteLogAsync(WorkloadSamples.LogRecords[id], new CallContext(options)));

    // Without IgnoreStreamTermination a write after the service ended the call throws protobuf-net's own exception, not
    // an RpcException; with it the sending stops and the call's real status comes from the answer.
    public async Task<Receipt> UploadAsync(long length, CallOptions options) =>
        ToReceipt(await _service.UploadAsync(Chunks(length, options.CancellationToken), new CallContext(options, CallContextFlags.IgnoreStreamTermination)));

    public async IAsyncEnumerable<ulong> StreamUsersAsync(int count, CallOptions options)
    {
        await foreach (var user in _service.StreamUsersAsync(new M.PageRequest { Page = 0, Size = count }, new CallContext(options)))
        {
            yield return WorkloadChecksum.Of(user);
        }
    }

    public void Dispose() => channel.Dispose();

    private static Receipt ToReceipt(M.WriteAck ack) => new(ack.Checksum, ack.Length);

    // protobuf-net.Grpc awaits each write before it asks for the next chunk, so one buffer serves them all.
    private static async IAsyncEnumerable<M.FileChunk> Chunks(long length, [EnumeratorCancellation] CancellationToken cancellation)
    {
        var buffer = ArrayPool<byte>.Shared.Rent(WorkloadData.FileChunkBytes);
        try
        {
            for (long offset = 0; offset < length; offset += WorkloadData.FileChunkBytes)
            {
                cancellation.ThrowIfCancellationRequested();
                yield return new M.FileChunk { Data = FileChunks.Fill(buffer, offset, length) };
            }
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }
}

/// <summary>The upload file read a chunk (<see cref="WorkloadData.FileChunkBytes"/>) at a time into one reused buffer.</summary>
public static class FileChunks
{
    /// <summary>Fills <paramref name="buffer"/> with the file's bytes from <paramref name="offset"/>, at most a chunk and never past <paramref name="length"/>.</summary>
    public static ReadOnlyMemory<byte> Fill(byte[] buffer, long offset, long length)
    {
        var count = (int)Math.Min(WorkloadData.FileChunkBytes, length - offset);
        WorkloadData.FileBytes(offset, buffer.AsSpan(0, count));
        return buffer.AsMemory(0, count);
    }
}
