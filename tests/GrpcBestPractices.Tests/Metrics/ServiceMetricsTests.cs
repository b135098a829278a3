using System.Net;
using System.Net.Http.Json;
using System.Text.Json;
using Grpc.Net.Client;
using GrpcBestPractices.Tests.Infrastructure;
using Performance;

namespace GrpcBestPractices.Tests.Metrics;

/// <summary>The service's /metrics and /health on its own HTTP/1.1 listener, scraped from a real process on loopback.</summary>
[Trait("Category", "Process")]
public sealed class ServiceMetricsTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task AScrapeOverHttp11ShowsGrpcDotnetsServerCountsTheRequestsByRouteAndTheProcesssCpuAndMemory()
    {
        const int Calls = 25;
        await using var service = await AppProcess.StartAsync("PerformanceService");
        var metrics = new Uri(await service.ListenerAsync("metrics"));
        using var http = new HttpClient();
        using (var channel = GrpcChannel.ForAddress(service.Url))
        {
            var client = new Monitor.MonitorClient(channel);
            for (var call = 0; call < Calls; call++)
            {
                await client.GetPerformanceAsync(new PerformanceStatusRequest { ClientName = "metrics test" });
            }
        }

        // grpc-dotnet's counters reach the meter once a second: wait until they show every call.
        var samples = await http.ScrapeUntilAsync(new Uri(metrics, "/metrics"), scraped => scraped.Single("grpc_server_calls_total") == Calls);

        Assert.Equal(Calls, samples.Single("grpc_server_messages_received_total"));
        Assert.Equal(Calls, samples.Single("grpc_server_messages_sent_total"));
        Assert.Equal(0, samples.Single("grpc_server_calls_failed_total"));
        Assert.Equal(0, samples.Single("grpc_server_calls_active"));
        Assert.Equal(Calls, samples.Single("http_server_request_duration_seconds_count", ("http_route", "/performance.Monitor/GetPerformance"), ("network_protocol_version", "2")));
        Assert.InRange(samples.Named("dotnet_process_cpu_time_seconds_total").Sum(sample => sample.Value), 0.01, 3600);
        Assert.InRange(samples.Single("dotnet_process_memory_working_set_bytes") ?? 0, 10e6, 100e9);
        Assert.Equal(1, samples.Single("target_info", ("service_name", "service")));
    }

    [Fact]
    public async Task MetricsAndHealthAreServedOnlyOnTheMetricsListenerAndScrapesAreNotCountedAsConnections()
    {
        await using var service = await AppProcess.StartAsync("PerformanceService");
        var metrics = new Uri(await service.ListenerAsync("metrics"));
        var rest = new Uri(await service.ListenerAsync("HTTP/1.1"));
        using var http1 = new HttpClient();
        using var h2c = new HttpClient { DefaultRequestVersion = HttpVersion.Version20, DefaultVersionPolicy = HttpVersionPolicy.RequestVersionExact };
        var acceptedBefore = await AcceptedConnectionsAsync(h2c, service.BaseAddress);

        using (var scrape = await http1.GetAsync(new Uri(metrics, "/metrics")))
        {
            Assert.Equal(HttpStatusCode.OK, scrape.StatusCode);
            Assert.Equal(HttpVersion.Version11, scrape.Version);
            Assert.StartsWith("text/plain", scrape.Content.Headers.ContentType?.ToString());
        }

        Assert.Equal("Healthy", await http1.GetStringAsync(new Uri(metrics, "/health")));
        Assert.Equal(HttpStatusCode.NotFound, (await http1.GetAsync(new Uri(metrics, "/"))).StatusCode);
        // A scrape is not load: the connections the service reports in every answer leave the metrics listener out.
        Assert.Equal(acceptedBefore, await AcceptedConnectionsAsync(h2c, service.BaseAddress));

        // The gRPC port (prior-knowledge HTTP/2) and the REST listener have neither route.
        foreach (var path in new[] { "/metrics", "/health" })
        {
            using var onH2c = await h2c.GetAsync(new Uri(service.BaseAddress, path));
            Assert.Equal((HttpStatusCode.NotFound, HttpVersion.Version20), (onH2c.StatusCode, onH2c.Version));
            Assert.Equal(HttpStatusCode.NotFound, (await http1.GetAsync(new Uri(rest, path))).StatusCode);
        }
    }

    [Fact]
    public async Task ABadMetricsUrlStopsTheServiceWithOneLineNamingTheKey()
    {
        await using var service = await AppProcess.RunToExitAsync(
            "PerformanceService", ["--urls", "http://127.0.0.1:0", "--Metrics:Url", "https://127.0.0.1:0"], Patience);

        Assert.Equal(2, service.ExitCode);
        var line = Assert.Single(service.Output.Split(Environment.NewLine), line => line.Contains("Metrics:Url"));
        Assert.StartsWith("Invalid configuration: ", line);
        Assert.Contains("Metrics:Url must start with http:// ('https://127.0.0.1:0' does not)", line);
    }

    // The h2c client keeps one connection: the first read opens it (and counts it), later reads add nothing.
    private static async Task<long> AcceptedConnectionsAsync(HttpClient h2c, Uri service) =>
        (await h2c.GetFromJsonAsync<JsonElement>(new Uri(service, "/diagnostics"))).GetProperty("acceptedConnections").GetInt64();
}
