using System.Collections.Concurrent;
using System.Net;
using System.Net.Http.Headers;
using System.Net.Http.Json;
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

    public Task<Receipt> WriteLogAsync(int id, CallOptions options) =>
        SendAsync<M.WriteAck, Receipt>(HttpMethod.Post, routes.Logs, json.Content(WorkloadSamples.LogRecords[id]), Receipt.Of, options);

    public Task<Receipt> UploadAsync(long length, CallOptions options) =>
        SendAsync<M.WriteAck, Receipt>(HttpMethod.Post, routes.Files, new FileContent(length), Receipt.Of, options);

    public IAsyncEnumerable<ulong> StreamUsersAsync(int count, CallOptions options) =>
        throw new CallFailedException(StatusCode.Unimplemented, "REST has no server stream here; bulk-read's stream variant is gRPC's.");

    public void Dispose() => http.Dispose();

    public Task<ulong> GetAsync<T>(Uri uri, CallOptions options)
        where T : class, IWorkloadValue => SendAsync(HttpMethod.Get, uri, null, static (T answer) => WorkloadChecksum.Of(answer), options);

    /// <summary>One call under the deadline and cancellation its options carry, failing as <see cref="RestFailures"/> names it.</summary>
    private async Task<TResult> SendAsync<T, TResult>(HttpMethod method, Uri uri, HttpContent? content, Func<T, TResult> result, CallOptions options)
        where T : class
    {
        using var call = RestFailures.Deadline(options);
        // The version and policy HttpClient's own GetAsync and PostAsync would give the request.
        using var request = new HttpRequestMessage(method, uri) { Content = content, Version = http.DefaultRequestVersion, VersionPolicy = http.DefaultVersionPolicy };
        try
        {
            using var response = await http.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, call.Token);
            await RestFailures.ThrowIfFailedAsync(response, call.Token);
            return result(await json.ReadAsync<T>(response.Content, call.Token) ?? throw new CallFailedException(StatusCode.Internal, $"The answer from {uri} had no JSON value."));
        }
        catch (Exception error) when (error is not CallFailedException)
        {
            throw RestFailures.Of(error, options, call);
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
/// <param name="segment">The service's route segment for this serializer.</param>
public abstract class JsonCodec(string segment)
{
    public static JsonCodec For(PayloadSerializer serializer) => serializer == PayloadSerializer.Newtonsoft ? NewtonsoftCodec.Instance : SystemTextJsonCodec.Instance;

    public string Segment => segment;

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
public sealed class SystemTextJsonCodec() : JsonCodec("stj")
{
    public static readonly SystemTextJsonCodec Instance = new();

    public override async ValueTask<T?> ReadAsync<T>(HttpContent content, CancellationToken cancellation) where T : default =>
        await content.ReadFromJsonAsync(TypeInfo<T>.Value, cancellation);

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
public sealed class NewtonsoftCodec() : JsonCodec("newtonsoft")
{
    public static readonly NewtonsoftCodec Instance = new();

    private static readonly Newtonsoft.Json.JsonSerializer Serializer = Newtonsoft.Json.JsonSerializer.Create(WorkloadNewtonsoft.Settings);

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
