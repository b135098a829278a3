using System.Net;
using System.Net.Http.Json;
using Google.Protobuf;
using Grpc.Core;
using Grpc.Net.Client;
using ProtoBuf.Grpc.Client;
using Workloads;
using Cf = Workloads.ContractFirst;
using M = Workloads.Model;

namespace GrpcBestPractices.Tests.WorkloadService;

/// <summary>
/// Plain clients of the four APIs, just enough to prove what arrives: each call answers the checksum of what it received
/// (fully deserialized), so a test compares it with the checksum of <see cref="WorkloadData"/>. REST failures throw
/// <see cref="HttpRequestException"/> with the status; gRPC ones <see cref="RpcException"/>.
/// </summary>
public abstract class WorkloadClient
{
    public const int ChunkBytes = WorkloadData.FileChunkBytes;

    public abstract Task<ulong> SmallIntsAsync(int id);

    public abstract Task<ulong> BookAsync(int id);

    public abstract Task<ulong> BooksAsync();

    public abstract Task<ulong> BigDtoAsync(int id);

    public abstract Task<ulong> BigDtosAsync(int page, int size);

    public abstract Task<ulong> UsersAsync(int page, int size);

    public abstract Task<(ulong Checksum, long Length)> WriteLogAsync(M.LogRecord record);

    /// <summary>Sends the first <paramref name="length"/> bytes of the workload file, 64 KiB at a time, never whole.</summary>
    public abstract Task<(ulong Checksum, long Length)> UploadAsync(long length, CancellationToken cancellationToken = default);

    /// <summary>
    /// A client that leaves mid-upload: sends <paramref name="sent"/> bytes of a larger file, completes <paramref name="stalled"/>,
    /// then waits until <paramref name="cancellationToken"/> cancels the call (and fails with how the cancellation surfaced).
    /// </summary>
    public abstract Task LeaveMidUploadAsync(long sent, TaskCompletionSource stalled, CancellationToken cancellationToken);
}

public sealed class ContractFirstClient(GrpcChannel channel) : WorkloadClient
{
    private readonly Cf.Workloads.WorkloadsClient _client = new(channel);

    public override async Task<ulong> SmallIntsAsync(int id) => WorkloadChecksum.Of(await _client.GetSmallIntsAsync(new Cf.ItemRequest { Id = id }));

    public override async Task<ulong> BookAsync(int id) => WorkloadChecksum.Of(await _client.GetBookAsync(new Cf.ItemRequest { Id = id }));

    public override async Task<ulong> BooksAsync() => WorkloadChecksum.Of(await _client.GetBooksAsync(new Cf.ItemRequest()));

    public override async Task<ulong> BigDtoAsync(int id) => WorkloadChecksum.Of(await _client.GetBigDtoAsync(new Cf.ItemRequest { Id = id }));

    public override async Task<ulong> BigDtosAsync(int page, int size) => WorkloadChecksum.Of(await _client.GetBigDtosAsync(new Cf.PageRequest { Page = page, Size = size }));

    public override async Task<ulong> UsersAsync(int page, int size) => WorkloadChecksum.Of(await _client.GetUsersAsync(new Cf.PageRequest { Page = page, Size = size }));

    public override async Task<(ulong Checksum, long Length)> WriteLogAsync(M.LogRecord record)
    {
        var ack = await _client.WriteLogAsync(record.ToContract());
        return (ack.Checksum, ack.Length);
    }

    public override async Task<(ulong Checksum, long Length)> UploadAsync(long length, CancellationToken cancellationToken = default)
    {
        using var call = _client.Upload(cancellationToken: cancellationToken);
        foreach (var chunk in WorkloadData.FileChunks(length))
        {
            await call.RequestStream.WriteAsync(new Cf.FileChunk { Data = ByteString.CopyFrom(chunk.Span) }, cancellationToken);
        }

        await call.RequestStream.CompleteAsync();
        var ack = await call;
        return (ack.Checksum, ack.Length);
    }

    public override async Task LeaveMidUploadAsync(long sent, TaskCompletionSource stalled, CancellationToken cancellationToken)
    {
        using var call = _client.Upload(cancellationToken: cancellationToken);
        foreach (var chunk in WorkloadData.FileChunks(sent))
        {
            await call.RequestStream.WriteAsync(new Cf.FileChunk { Data = ByteString.CopyFrom(chunk.Span) }, cancellationToken);
        }

        stalled.TrySetResult();
        await call;
    }

    public IAsyncEnumerable<Cf.User> StreamUsers(int page, int size) =>
        _client.StreamUsers(new Cf.PageRequest { Page = page, Size = size }).ResponseStream.ReadAllAsync();
}

public sealed class CodeFirstClient(GrpcChannel channel) : WorkloadClient
{
    private readonly ICodeFirstWorkloads _client = channel.CreateGrpcService<ICodeFirstWorkloads>();

    public override async Task<ulong> SmallIntsAsync(int id) => WorkloadChecksum.Of(await _client.GetSmallIntsAsync(new M.ItemRequest { Id = id }));

    public override async Task<ulong> BookAsync(int id) => WorkloadChecksum.Of(await _client.GetBookAsync(new M.ItemRequest { Id = id }));

    public override async Task<ulong> BooksAsync() => WorkloadChecksum.Of(await _client.GetBooksAsync(new M.ItemRequest()));

    public override async Task<ulong> BigDtoAsync(int id) => WorkloadChecksum.Of(await _client.GetBigDtoAsync(new M.ItemRequest { Id = id }));

    public override async Task<ulong> BigDtosAsync(int page, int size) => WorkloadChecksum.Of(await _client.GetBigDtosAsync(new M.PageRequest { Page = page, Size = size }));

    public override async Task<ulong> UsersAsync(int page, int size) => WorkloadChecksum.Of(await _client.GetUsersAsync(new M.PageRequest { Page = page, Size = size }));

    public override async Task<(ulong Checksum, long Length)> WriteLogAsync(M.LogRecord record)
    {
        var ack = await _client.WriteLogAsync(record);
        return (ack.Checksum, ack.Length);
    }

    public override async Task<(ulong Checksum, long Length)> UploadAsync(long length, CancellationToken cancellationToken = default)
    {
        var ack = await _client.UploadAsync(Chunks(length, cancellationToken), new ProtoBuf.Grpc.CallContext(new CallOptions(cancellationToken: cancellationToken)));
        return (ack.Checksum, ack.Length);
    }

    public override async Task LeaveMidUploadAsync(long sent, TaskCompletionSource stalled, CancellationToken cancellationToken) =>
        await _client.UploadAsync(Chunks(sent, cancellationToken, stalled), new ProtoBuf.Grpc.CallContext(new CallOptions(cancellationToken: cancellationToken)));

    public IAsyncEnumerable<M.User> StreamUsers(int page, int size) => _client.StreamUsersAsync(new M.PageRequest { Page = page, Size = size });

    private static async IAsyncEnumerable<M.FileChunk> Chunks(
        long length, [System.Runtime.CompilerServices.EnumeratorCancellation] CancellationToken cancellationToken = default, TaskCompletionSource? thenStall = null)
    {
        foreach (var chunk in WorkloadData.FileChunks(length))
        {
            cancellationToken.ThrowIfCancellationRequested();
            // A copy: the chunks share one buffer, and protobuf-net may still hold the previous chunk.
            yield return new M.FileChunk { Data = chunk.ToArray() };
        }

        if (thenStall is not null)
        {
            thenStall.TrySetResult();
            await Task.Delay(Timeout.Infinite, cancellationToken);
        }
    }
}

/// <summary>REST under /rest/stj or /rest/newtonsoft; each answer read with the serializer of its own path.</summary>
public abstract class RestClient(HttpClient http, string prefix) : WorkloadClient
{
    public HttpClient Http => http;

    public string Prefix => prefix;

    public override Task<ulong> SmallIntsAsync(int id) => GetAsync<M.SmallInts>($"small-ints/{id}", WorkloadChecksum.Of);

    public override Task<ulong> BookAsync(int id) => GetAsync<M.Book>($"books/{id}", WorkloadChecksum.Of);

    public override Task<ulong> BooksAsync() => GetAsync<M.BookList>("books", WorkloadChecksum.Of);

    public override Task<ulong> BigDtoAsync(int id) => GetAsync<M.BigDto>($"big-dtos/{id}", WorkloadChecksum.Of);

    public override Task<ulong> BigDtosAsync(int page, int size) => GetAsync<M.BigDtoList>($"big-dtos?page={page}&size={size}", WorkloadChecksum.Of);

    public override Task<ulong> UsersAsync(int page, int size) => GetAsync<M.UserList>($"users?page={page}&size={size}", WorkloadChecksum.Of);

    public override async Task<(ulong Checksum, long Length)> WriteLogAsync(M.LogRecord record)
    {
        using var response = await http.PostAsync($"{prefix}/logs", Body(record));
        var ack = await ReadAsync<M.WriteAck>(response);
        return (ack.Checksum, ack.Length);
    }

    public override async Task<(ulong Checksum, long Length)> UploadAsync(long length, CancellationToken cancellationToken = default)
    {
        using var response = await http.PostAsync($"{prefix}/files", new FileContent(length), cancellationToken);
        var ack = await ReadAsync<M.WriteAck>(response);
        return (ack.Checksum, ack.Length);
    }

    public override async Task LeaveMidUploadAsync(long sent, TaskCompletionSource stalled, CancellationToken cancellationToken)
    {
        var body = new FileContent(sent * 4, stallAfter: sent);
        _ = body.Stalled.ContinueWith(_ => stalled.TrySetResult(), TaskScheduler.Default);
        using var response = await http.PostAsync($"{prefix}/files", body, cancellationToken);
    }

    protected abstract HttpContent Body(M.LogRecord record);

    protected abstract Task<T> ReadAsync<T>(HttpResponseMessage response);

    private async Task<ulong> GetAsync<T>(string route, Func<T, ulong> checksum)
    {
        using var response = await http.GetAsync($"{prefix}/{route}");
        return checksum(await ReadAsync<T>(response));
    }

    protected static async Task EnsureSuccessAsync(HttpResponseMessage response)
    {
        if (!response.IsSuccessStatusCode)
        {
            throw new HttpRequestException($"{(int)response.StatusCode}: {await response.Content.ReadAsStringAsync()}", null, response.StatusCode);
        }
    }

    /// <summary>
    /// The workload file as a request body, written 64 KiB at a time as the request is sent; without a Content-Length
    /// when not announced (chunked on HTTP/1.1); and, to stand for a client that leaves mid-upload, stalled after some
    /// bytes until the request is cancelled.
    /// </summary>
    public sealed class FileContent : HttpContent
    {
        private readonly long _length;
        private readonly bool _announced;
        private readonly long? _stallAfter;
        private readonly TaskCompletionSource _stalled = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public FileContent(long length, bool announced = true, long? stallAfter = null)
        {
            _length = length;
            _announced = announced;
            _stallAfter = stallAfter;
            Headers.ContentType = new("application/octet-stream");
        }

        /// <summary>Completes once a stalled body has sent the bytes it sends.</summary>
        public Task Stalled => _stalled.Task;

        protected override Task SerializeToStreamAsync(Stream stream, TransportContext? context) => SerializeToStreamAsync(stream, context, default);

        protected override async Task SerializeToStreamAsync(Stream stream, TransportContext? context, CancellationToken cancellationToken)
        {
            foreach (var chunk in WorkloadData.FileChunks(_stallAfter ?? _length))
            {
                await stream.WriteAsync(chunk, cancellationToken);
            }

            if (_stallAfter is not null)
            {
                await stream.FlushAsync(cancellationToken);
                _stalled.TrySetResult();
                await Task.Delay(Timeout.Infinite, cancellationToken);
            }
        }

        protected override bool TryComputeLength(out long length)
        {
            length = _length;
            return _announced;
        }
    }
}

public sealed class StjClient(HttpClient http) : RestClient(http, "/rest/stj")
{
    protected override HttpContent Body(M.LogRecord record) => JsonContent.Create(record, WorkloadJsonContext.Default.LogRecord);

    protected override async Task<T> ReadAsync<T>(HttpResponseMessage response)
    {
        await EnsureSuccessAsync(response);
        Assert.Equal("application/json", response.Content.Headers.ContentType?.MediaType);
        return (T)(await response.Content.ReadFromJsonAsync(typeof(T), WorkloadJsonContext.Default))!;
    }
}

public sealed class NewtonsoftClient(HttpClient http) : RestClient(http, "/rest/newtonsoft")
{
    protected override HttpContent Body(M.LogRecord record) =>
        new StringContent(Newtonsoft.Json.JsonConvert.SerializeObject(record, WorkloadNewtonsoft.Settings), System.Text.Encoding.UTF8, "application/json");

    protected override async Task<T> ReadAsync<T>(HttpResponseMessage response)
    {
        await EnsureSuccessAsync(response);
        Assert.Equal("application/json", response.Content.Headers.ContentType?.MediaType);
        return Newtonsoft.Json.JsonConvert.DeserializeObject<T>(await response.Content.ReadAsStringAsync(), WorkloadNewtonsoft.Settings)!;
    }
}
