using System.Collections.Concurrent;
using System.Runtime.CompilerServices;
using System.Security.Authentication;

namespace PerformanceService.Metrics;

/// <summary>The four ways the workloads are served.</summary>
public enum WorkloadApi : byte
{
    None,
    Grpc,
    GrpcCodeFirst,
    RestStj,
    RestNewtonsoft,
}

/// <summary>How many workload requests the service saw for one API over one HTTP version and TLS version ("none" in clear).</summary>
public sealed record ProtocolRequests(string Api, string HttpVersion, string Tls, long Requests);

/// <summary>
/// Counts every workload request by API, HTTP version and TLS version, so a run can report what really reached the
/// service (h2c or HTTP/2 over TLS, which TLS) rather than what the client asked for. One interlocked increment a request.
/// </summary>
public sealed class ProtocolCounter
{
    private readonly ConcurrentDictionary<Key, StrongBox<long>> _counts = new();

    public void Count(WorkloadApi api, string httpProtocol, SslProtocols tls)
    {
        var count = _counts.GetOrAdd(new Key(api, Version(httpProtocol), tls), static _ => new StrongBox<long>());
        Interlocked.Increment(ref count.Value);
    }

    public IReadOnlyList<ProtocolRequests> Snapshot() =>
    [
        .. _counts
            .OrderBy(count => count.Key.Api).ThenBy(count => count.Key.Version, StringComparer.Ordinal).ThenBy(count => count.Key.Tls)
            .Select(count => new ProtocolRequests(Name(count.Key.Api), count.Key.Version, count.Key.Tls == SslProtocols.None ? "none" : count.Key.Tls.ToString(), Interlocked.Read(ref count.Value.Value))),
    ];

    private static string Name(WorkloadApi api) => api switch
    {
        WorkloadApi.Grpc => "grpc",
        WorkloadApi.GrpcCodeFirst => "grpc-code-first",
        WorkloadApi.RestStj => "rest-stj",
        WorkloadApi.RestNewtonsoft => "rest-newtonsoft",
        _ => "none",
    };

    private static string Version(string protocol) =>
        HttpProtocol.IsHttp2(protocol) ? HttpProtocol.Http2
        : HttpProtocol.IsHttp11(protocol) ? HttpProtocol.Http11
        : HttpProtocol.IsHttp3(protocol) ? HttpProtocol.Http3
        : "other";

    private readonly record struct Key(WorkloadApi Api, string Version, SslProtocols Tls);
}
