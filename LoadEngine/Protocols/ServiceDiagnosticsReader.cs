using System.Net;
using System.Net.Http.Json;
using LoadEngine.Clients;
using LoadEngine.Runs;

namespace LoadEngine.Protocols;

/// <summary>The service's request counter for one API, HTTP version and TLS version (GET /diagnostics, "protocols").</summary>
public sealed record ProtocolCount(string Api, string HttpVersion, string Tls, long Requests);

/// <summary>The service's own counters at one moment: what its process has allocated, and the workload requests it has seen.</summary>
public sealed record ServiceSnapshot(long AllocatedBytes, IReadOnlyList<ProtocolCount>? Protocols)
{
    /// <summary>The HTTP and TLS versions that carried most of <paramref name="api"/>'s requests between the two snapshots, or null if it saw none.</summary>
    public static ServerSaw? Saw(ServiceSnapshot before, ServiceSnapshot after, string api)
    {
        var earlier = (before.Protocols ?? []).Where(count => count.Api == api).ToDictionary(count => (count.HttpVersion, count.Tls), count => count.Requests);
        return (after.Protocols ?? [])
            .Where(count => count.Api == api)
            .Select(count => count with { Requests = count.Requests - earlier.GetValueOrDefault((count.HttpVersion, count.Tls)) })
            .Where(count => count.Requests > 0)
            .OrderByDescending(count => count.Requests)
            .Select(count => new ServerSaw(count.Api, count.HttpVersion, count.Tls, count.Requests))
            .FirstOrDefault();
    }
}

/// <summary>
/// Reads GET /diagnostics on the service's h2c listener (the engine's ServerUri) before and after a workload run's measured
/// phase. The figures are extras: a service that cannot say leaves them out, and never fails the run.
/// </summary>
public sealed class ServiceDiagnosticsReader(ChannelFactory channels) : IDisposable
{
    private readonly HttpClient _http = new(channels.CreateHandler(), disposeHandler: true)
    {
        BaseAddress = channels.ServerUri,
        // The h2c listener speaks HTTP/2 only, by prior knowledge.
        DefaultRequestVersion = HttpVersion.Version20,
        DefaultVersionPolicy = HttpVersionPolicy.RequestVersionExact,
        Timeout = TimeSpan.FromSeconds(5),
    };

    public async Task<ServiceSnapshot?> ReadAsync(CancellationToken cancellation)
    {
        try
        {
            return await _http.GetFromJsonAsync<ServiceSnapshot>("/diagnostics", RunJson.Options, cancellation);
        }
        catch (Exception unreadable) when (unreadable is HttpRequestException or OperationCanceledException or System.Text.Json.JsonException or NotSupportedException)
        {
            return null;
        }
    }

    public void Dispose() => _http.Dispose();
}
