using System.Diagnostics;
using System.Net;
using System.Net.Http.Headers;
using Grpc.Net.Client;
using Performance;

namespace GrpcBestPractices.Benchmarks;

/// <summary>
/// Where a unary call's client time and bytes go, layer by layer, in this process: the same request body sent by
/// HttpClient alone, then Grpc.Net.Client on an HttpClient (which skips its load-balancing handler), then
/// Grpc.Net.Client on a SocketsHttpHandler as the gateway's strategies use it, then the same with a deadline per call.
/// </summary>
public static class ClientLayers
{
    private const int InFlight = 100;

    public static async Task RunAsync(string address, int count)
    {
        var body = await InProcess.CaptureRequestBodyAsync(InProcess.Request);
        var method = new Uri(new Uri(address), "/" + Monitor.Descriptor.FullName + "/GetPerformance");
        using var raw = new HttpMessageInvoker(GatewayHandler());
        using var overHttpClient = GrpcChannel.ForAddress(address, new GrpcChannelOptions { HttpClient = new HttpClient(GatewayHandler()), DisposeHttpClient = true });
        using var overHandler = GrpcChannel.ForAddress(address, new GrpcChannelOptions { HttpHandler = GatewayHandler() });
        var viaHttpClient = new Monitor.MonitorClient(overHttpClient);
        var viaHandler = new Monitor.MonitorClient(overHandler);
        var layers = new (string Name, Func<Task> Call)[]
        {
            ("HttpClient alone: same request body, response drained, trailers read", () => PostAsync(raw, method, body)),
            ("Grpc.Net.Client on an HttpClient (no load-balancing handler)", () => viaHttpClient.GetPerformanceAsync(InProcess.Request).ResponseAsync),
            ("Grpc.Net.Client on a SocketsHttpHandler (the gateway's strategies)", () => viaHandler.GetPerformanceAsync(InProcess.Request).ResponseAsync),
            ("the same with a 10 s deadline per call (the run engine)", () => viaHandler.GetPerformanceAsync(InProcess.Request, deadline: DateTime.UtcNow.AddSeconds(10)).ResponseAsync),
        };

        Console.WriteLine($"| client layer | sequential p50 µs | B per call | {InFlight} in flight, calls/s | B per call |");
        Console.WriteLine("|---|---:|---:|---:|---:|");
        foreach (var (name, call) in layers)
        {
            await SequentialAsync(call, count / 4);
            var (p50, sequentialBytes) = await SequentialAsync(call, count);
            var (rate, concurrentBytes) = await ConcurrentAsync(call, count * 3);
            Console.WriteLine($"| {name} | {p50 * 1000:0} | {sequentialBytes:0} | {rate:0} | {concurrentBytes:0} |");
        }
    }

    // The settings the gateway's ChannelFactory gives every handler.
    private static SocketsHttpHandler GatewayHandler() => new()
    {
        EnableMultipleHttp2Connections = true,
        PooledConnectionIdleTimeout = Timeout.InfiniteTimeSpan,
        UseProxy = false,
        UseCookies = false,
        AllowAutoRedirect = false,
    };

    private static async Task PostAsync(HttpMessageInvoker invoker, Uri method, byte[] body)
    {
        using var request = new HttpRequestMessage(HttpMethod.Post, method)
        {
            Version = HttpVersion.Version20,
            VersionPolicy = HttpVersionPolicy.RequestVersionExact,
            Content = new ByteArrayContent(body),
        };
        request.Content.Headers.ContentType = new MediaTypeHeaderValue("application/grpc");
        request.Headers.TE.Add(new TransferCodingWithQualityHeaderValue("trailers"));
        using var response = await invoker.SendAsync(request, CancellationToken.None);
        await using var stream = await response.Content.ReadAsStreamAsync();
        await stream.CopyToAsync(Stream.Null);
        if (!response.TrailingHeaders.TryGetValues("grpc-status", out var status) || status.First() != "0")
        {
            throw new InvalidOperationException("The service did not answer OK.");
        }
    }

    private static async Task<(double P50Ms, double BytesPerCall)> SequentialAsync(Func<Task> call, int count)
    {
        var latencies = new double[count];
        var before = GC.GetTotalAllocatedBytes(precise: true);
        for (var i = 0; i < count; i++)
        {
            var start = Stopwatch.GetTimestamp();
            await call();
            latencies[i] = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
        }

        var bytes = (double)(GC.GetTotalAllocatedBytes(precise: true) - before) / count;
        return (Statistics.Percentile(latencies, 50), bytes);
    }

    private static async Task<(double CallsPerSecond, double BytesPerCall)> ConcurrentAsync(Func<Task> call, int count)
    {
        var next = -1;
        var before = GC.GetTotalAllocatedBytes(precise: true);
        var start = Stopwatch.GetTimestamp();
        await Task.WhenAll(Enumerable.Range(0, InFlight).Select(async _ =>
        {
            while (Interlocked.Increment(ref next) < count)
            {
                await call();
            }
        }));
        var elapsed = Stopwatch.GetElapsedTime(start);
        return (count / elapsed.TotalSeconds, (double)(GC.GetTotalAllocatedBytes(precise: true) - before) / count);
    }
}
