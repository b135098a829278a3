using System.Collections.Concurrent;
using System.Net;
using System.Net.Http.Headers;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization.Metadata;
using Grpc.Core;
using LoadEngine.Calls;
using Workloads;
using M = Workloads.Model;

namespace LoadEngine.Protocols;

/// <summary>
/// REST/JSON over one HttpClient: each answer read from the response stream as it arrives (ResponseHeadersRead) and
/// deserialized by the contender's serializer; uploads streamed from the shared file a chunk at a time.
/// </summary>
public sealed class RestWorkloadApi(HttpClient http, RestRoutes routes, JsonCodec json) : IWorkloadApi
{
    public Task<ulong> FetchAsync(Fetch fetch, int key, CallOptions options) => fetch.RestAsync(this, routes.For(fetch, key), options);

    public Task<Receipt> WriteLogAsync(int id, CallOptions options) => PostAsync(routes.Logs, json.Content(WorkloadSamples.LogRecords[id]), options);

    public Task<Receipt> UploadAsync(long length, CallOptions options) => PostAsync(routes.Files, new FileContent(length), options);

    public IAsyncEnumerable<ulong> StreamUsersAsync(int count, CallOptions options) =>
        throw new CallFailedException(StatusCode.Unimplemented, "REST has no server stream here; bulk-read's stream variant is gRPC's.");

    public void Dispose() => http.Dispose();

    public async Task<ulong> GetAsync<T>(Uri uri, CallOptions options)
        where T : class, IWorkloadValue
    {
        using var call = new RestCall(options);
        try
        {
            using var response = await http.GetAsync(uri, HttpCompletionOption.ResponseHeadersRead, call.Token);
            await RestFailures.ThrowIfFailedAsync(response, call.Token);
            return WorkloadChecksum.Of(await json.ReadAsync<T>(response.Content, call.Token) ?? throw RestFailures.EmptyBody(uri));
        }
        catch (Exception error) when (error is not CallFailedException)
        {
            throw call.Failure(error);
        }
    }

    private async Task<Receipt> PostAsync(Uri uri, HttpContent content, CallOptions options)
    {
        using var call = new RestCall(options);
        try
        {
            using (content)
            using (var response = await http.PostAsync(uri, content, call.Token))
            {
                await RestFailures.ThrowIfFailedAsync(response, call.Token);
                var ack = await json.ReadAsync<M.WriteAck>(response.Content, call.Token) ?? throw RestFailures.EmptyBody(uri);
                return new Receipt(ack.Checksum, ack.Length);
            }
        }
        catch (Exception error) when (error is not CallFailedException)
        {
            throw call.Failure(error);
        }
    }

    /// <summary>The upload body: the shared file's bytes written a chunk at a time from one pooled buffer, with its length known up front.</summary>
    private sealed class FileContent : HttpContent
    {
        private readonly long _length;

        public FileContent(long length)
        {
            _length = length;
            Headers.ContentType = new MediaTypeHeaderValue("application/octet-stream");
        }

        protected override Task SerializeToStreamAsync(Stream stream, TransportContext? context) => SerializeToStreamAsync(stream, context, CancellationToken.None);

        protected override async Task SerializeToStreamAsync(Stream stream, TransportContext? context, CancellationToken cancellationToken)
        {
            foreach (var chunk in WorkloadData.FileChunks(_length))
            {
                await stream.WriteAsync(chunk, cancellationToken);
            }
        }

        protected override bool TryComputeLength(out long length)
        {
            length = _length;
            return true;
        }
    }
}

/// <summary>
/// The service's REST routes for one serializer, as absolute addresses made once per run (not per call): each answer's
/// the first time the run asks for it, and the write routes.
/// </summary>
public sealed class RestRoutes
{
    private readonly string _root;
    private readonly ConcurrentDictionary<Fetch, Uri?[]> _fetches = new();

    /// <param name="address">The listener's address (no path).</param>
    /// <param name="serializer">Its segment: "stj" or "newtonsoft".</param>
    public RestRoutes(Uri address, string serializer)
    {
        _root = $"{address.GetLeftPart(UriPartial.Authority)}/rest/{serializer}/";
        Logs = new Uri(_root + "logs");
        Files = new Uri(_root + "files");
    }

    public Uri Logs { get; }

    public Uri Files { get; }

    public Uri For(Fetch fetch, int key) => _fetches.GetOrAdd(fetch, static fetch => new Uri?[fetch.Keys])[key] ??= new Uri(_root + fetch.Route(key));
}

/// <summary>How a REST contender turns JSON into objects and back.</summary>
public abstract class JsonCodec
{
    public static JsonCodec For(PayloadSerializer serializer) => serializer == PayloadSerializer.Newtonsoft ? NewtonsoftCodec.Instance : SystemTextJsonCodec.Instance;

    /// <summary>The service's route segment for this serializer.</summary>
    public abstract string Segment { get; }

    public abstract ValueTask<T?> ReadAsync<T>(HttpContent content, CancellationToken cancellation);

    /// <summary>A request body holding <paramref name="value"/>, serialized now, with its length known (no chunked encoding over HTTP/1.1).</summary>
    public abstract HttpContent Content<T>(T value);

    protected static HttpContent Json(byte[] body)
    {
        var content = new ByteArrayContent(body);
        content.Headers.ContentType = new MediaTypeHeaderValue("application/json") { CharSet = "utf-8" };
        return content;
    }
}

/// <summary>System.Text.Json with the shared source-generated context: read straight from the response stream, asynchronously.</summary>
public sealed class SystemTextJsonCodec : JsonCodec
{
    public static readonly SystemTextJsonCodec Instance = new();

    public override string Segment => "stj";

    public override async ValueTask<T?> ReadAsync<T>(HttpContent content, CancellationToken cancellation) where T : default
    {
        await using var stream = await content.ReadAsStreamAsync(cancellation);
        return await JsonSerializer.DeserializeAsync(stream, TypeInfo<T>.Value, cancellation);
    }

    public override HttpContent Content<T>(T value) => Json(JsonSerializer.SerializeToUtf8Bytes(value, TypeInfo<T>.Value));

    private static class TypeInfo<T>
    {
        public static readonly JsonTypeInfo<T> Value = (JsonTypeInfo<T>)WorkloadJsonContext.Default.GetTypeInfo(typeof(T))!;
    }
}

/// <summary>
/// Newtonsoft.Json with the shared settings. It reads only synchronously, and a synchronous read of a network stream
/// blocks a thread-pool thread per call in flight; so the body is first read asynchronously into HttpClient's buffer,
/// then deserialized from that stream with a JsonTextReader (never through one string of the whole body).
/// </summary>
public sealed class NewtonsoftCodec : JsonCodec
{
    public static readonly NewtonsoftCodec Instance = new();

    private static readonly Newtonsoft.Json.JsonSerializer Serializer = Newtonsoft.Json.JsonSerializer.Create(WorkloadNewtonsoft.Settings);

    public override string Segment => "newtonsoft";

    public override async ValueTask<T?> ReadAsync<T>(HttpContent content, CancellationToken cancellation) where T : default
    {
        await content.LoadIntoBufferAsync(cancellation);
        await using var stream = await content.ReadAsStreamAsync(cancellation);
        using var text = new StreamReader(stream, Encoding.UTF8);
        using var reader = new Newtonsoft.Json.JsonTextReader(text);
        return Serializer.Deserialize<T>(reader);
    }

    public override HttpContent Content<T>(T value) => Json(Encoding.UTF8.GetBytes(Newtonsoft.Json.JsonConvert.SerializeObject(value, WorkloadNewtonsoft.Settings)));
}
