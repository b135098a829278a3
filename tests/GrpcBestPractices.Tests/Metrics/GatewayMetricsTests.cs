using System.Net;
using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;
using LoadEngine.Metrics;

namespace GrpcBestPractices.Tests.Metrics;

/// <summary>The gateway's /metrics after real runs against a real service: the engine's calls and latencies, and runs by state.</summary>
[Trait("Category", "Process")]
public sealed class GatewayMetricsTests : IAsyncLifetime
{
    private const double CallTimeoutSeconds = 2;

    private AppProcess _service = null!;
    private AppProcess _gateway = null!;
    private HttpClient _http = null!;

    public async Task InitializeAsync()
    {
        _service = await AppProcess.StartAsync("PerformanceService");
        // A call that waits longer than this for its answer fails with DeadlineExceeded: a status other than ok to count.
        // Long enough that a busy machine's stalls do not time out ten calls in a row of the runs meant to complete.
        _gateway = await AppProcess.StartAsync("ApiGateway", [.. await SystemFixture.GatewayArgumentsAsync(_service), "--Runs:CallTimeoutSeconds", CallTimeoutSeconds.ToString(System.Globalization.CultureInfo.InvariantCulture)]);
        _http = new HttpClient { BaseAddress = _gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(60) };
    }

    public async Task DisposeAsync()
    {
        _http.Dispose();
        await _gateway.DisposeAsync();
        await _service.DisposeAsync();
    }

    [Fact]
    public async Task AScrapeCountsEachRunsCallsByStrategyAndStatusHistogramsTheirLatencyAndCountsRunsByState()
    {
        var unary = await RunAsync("""{"strategy": "client-wrapper", "count": 150, "warmup": 20}""");
        var stream = await RunAsync("""{"strategy": "streaming-call", "count": 300}""");
        var timedOut = await RunAsync("""{"strategy": "single-connection", "count": 3, "delayMs": 3000}""");
        Assert.Equal(["Completed", "Completed", "Failed"], new[] { unary, stream, timedOut }.Select(run => run.GetProperty("state").GetString()));

        // The coordinator counts a run as ended just after its end is served: wait for the scrape to say so.
        var samples = await _http.ScrapeUntilAsync(new Uri("/metrics", UriKind.Relative), scraped => scraped.Single("gateway_runs", ("state", "Running")) == 0);

        Assert.Equal(2, samples.Single("gateway_runs", ("state", "Completed")));
        Assert.Equal(1, samples.Single("gateway_runs", ("state", "Failed")));
        Assert.Equal(0, samples.Single("gateway_runs", ("state", "Cancelled")));
        foreach (var run in new[] { unary, stream, timedOut })
        {
            var strategy = run.GetProperty("plan").GetProperty("strategy").GetString()!;
            var stats = run.GetProperty("stats");
            // Warm-up calls are not the run's: the counts are exactly its measured calls, under each status it counted.
            var byStatus = stats.GetProperty("statusCounts").EnumerateObject().ToDictionary(status => status.Name == "OK" ? "ok" : status.Name, status => status.Value.GetInt64());
            var counted = samples.Named("loadengine_calls_total", ("strategy", strategy)).ToDictionary(sample => sample.Labels["status"], sample => (long)sample.Value);
            Assert.Equal(byStatus, counted);
            Assert.Equal(stats.GetProperty("calls").GetInt64(), counted.Values.Sum());
            AssertHistogramOfSucceeded(samples, strategy, stats.GetProperty("succeeded").GetInt64());
        }

        Assert.Equal(3, samples.Single("loadengine_calls_total", ("strategy", "single-connection"), ("status", "DeadlineExceeded")));
    }

    [Fact]
    public async Task MetricsAreAPlainGetThatTheOpenApiDocumentLeavesOutAndUnknownHostsStillMeet()
    {
        using var scrape = await _http.GetAsync("/metrics");
        Assert.Equal(HttpStatusCode.OK, scrape.StatusCode);
        Assert.Contains(PrometheusText.Parse(await scrape.Content.ReadAsStringAsync()), sample => sample.Name == "gateway_runs");

        var document = JsonDocument.Parse(await _http.GetStringAsync("/swagger/v1/swagger.json")).RootElement;
        Assert.DoesNotContain(document.GetProperty("paths").EnumerateObject(), path => path.Name is "/metrics" or "/health");

        using var foreign = new HttpRequestMessage(HttpMethod.Get, "/metrics") { Headers = { Host = "attacker.example" } };
        Assert.Equal(HttpStatusCode.BadRequest, (await _http.SendAsync(foreign)).StatusCode);
    }

    private static void AssertHistogramOfSucceeded(IReadOnlyList<PrometheusSample> samples, string strategy, long succeeded)
    {
        var buckets = samples.Named("loadengine_call_duration_seconds_bucket", ("strategy", strategy))
            .Select(sample => (Bound: sample.Labels["le"] == "+Inf" ? double.PositiveInfinity : double.Parse(sample.Labels["le"], System.Globalization.CultureInfo.InvariantCulture), Count: sample.Value))
            .OrderBy(bucket => bucket.Bound).ToList();
        // A strategy none of whose calls succeeded has no latency series at all.
        if (succeeded == 0)
        {
            Assert.Empty(buckets);
            return;
        }

        Assert.Equal([.. EngineMetrics.DurationBuckets, double.PositiveInfinity], buckets.Select(bucket => bucket.Bound));
        // Cumulative: never falling, and the last bucket holds every call, as the count does.
        Assert.True(buckets.Zip(buckets.Skip(1)).All(pair => pair.First.Count <= pair.Second.Count), string.Join(", ", buckets));
        Assert.Equal(succeeded, buckets[^1].Count);
        Assert.Equal(succeeded, samples.Single("loadengine_call_duration_seconds_count", ("strategy", strategy)));
        Assert.InRange(samples.Single("loadengine_call_duration_seconds_sum", ("strategy", strategy)) ?? 0, 1e-6 * succeeded, CallTimeoutSeconds * succeeded);
    }

    private async Task<JsonElement> RunAsync(string plan)
    {
        var started = await _http.StartRunAsync(plan);
        return await _http.WaitUntilFinishedAsync($"/api/runs/{started.GetProperty("id").GetString()}");
    }
}
