using System.Net;
using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>What every run reports: the distribution, errors by status, warm-up apart, connections, load.</summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class RunStatisticsTests(SystemFixture system)
{
    [Fact]
    public async Task ChapterRouteReportsTheDistributionWithTheFirstCallAndWarmupApart()
    {
        var run = await system.GetRunAsync("/Performance/client-wrapper/200?warmup=20");

        var stats = run.GetProperty("stats");
        Assert.True(Guid.TryParse(run.GetProperty("runId").GetString(), out _));
        Assert.Equal(200, stats.GetProperty("calls").GetInt64());
        Assert.Equal(200, stats.GetProperty("succeeded").GetInt64());
        Assert.Equal(0, stats.GetProperty("failed").GetInt64());
        Assert.Equal(200, stats.GetProperty("statusCounts").GetProperty("OK").GetInt64());
        Assert.Equal(20, stats.GetProperty("warmupCalls").GetInt32());
        Assert.True(stats.GetProperty("warmupMs").GetDouble() > 0);
        Assert.True(stats.GetProperty("firstCallMs").GetDouble() > 0);
        // The first call is reported apart: the distribution holds the other 199.
        Assert.Equal(199, stats.GetProperty("histogram").EnumerateArray().Sum(bin => bin.GetProperty("count").GetInt64()));
        var latency = stats.GetProperty("latency");
        var ordered = new[] { "minMs", "p50Ms", "p90Ms", "p99Ms", "p999Ms", "maxMs" }.Select(name => latency.GetProperty(name).GetDouble()).ToArray();
        Assert.Equal(ordered.Order(), ordered);
        Assert.True(latency.GetProperty("stdDevMs").GetDouble() >= 0);
        Assert.True(stats.GetProperty("throughputPerSecond").GetDouble() > 0);
        Assert.True(stats.GetProperty("allocatedBytesPerCall").GetDouble() > 0);
        Assert.True(stats.GetProperty("service").GetProperty("samples").GetInt32() >= 1);
        Assert.Equal(stats.GetProperty("wallTimeMs").GetDouble(), run.GetProperty("requestProcessingTime").GetDouble());
    }

    [Fact]
    public async Task IncludeStatusesFalseDropsTheListButKeepsTheStatistics()
    {
        var run = await system.GetRunAsync("/Performance/streaming-call/500?includeStatuses=false");

        Assert.Equal(0, run.GetProperty("performanceStatuses").GetArrayLength());
        Assert.Equal(500, run.GetProperty("stats").GetProperty("succeeded").GetInt64());
    }

    [Theory]
    [InlineData("/Performance/client-wrapper")]
    [InlineData("/Performance/streaming-call")]
    [InlineData("/Concurrency/multiple-connections")]
    public async Task PayloadBytesSetsTheSizeOfEachDataField(string route)
    {
        var run = await system.GetRunAsync($"{route}/5?payloadBytes=4096");

        Assert.All(run.GetProperty("performanceStatuses").EnumerateArray(), status =>
        {
            Assert.Equal(4096, status.GetProperty("dataLoad1").GetBytesFromBase64().Length);
            Assert.Equal(4096, status.GetProperty("dataLoad2").GetBytesFromBase64().Length);
        });
    }

    [Fact]
    public async Task ConcurrencyCapsTheCallsInFlight()
    {
        // A gateway of its own: multiple-connections keeps one channel for the gateway's life, and on the shared gateway
        // the connections another test's 1 000 calls opened stay open for this run to spread over (2 were used once).
        await using var gateway = await AppProcess.StartAsync("ApiGateway", [.. await SystemFixture.GatewayArgumentsAsync(system.Service), "--Runs:WarmUpAtStart", "false"]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(120) };

        // 200 calls of 50 ms, 10 at a time, cannot finish in less than 20 waves × 50 ms.
        using var run = JsonDocument.Parse(await http.GetStringAsync("/Concurrency/multiple-connections/200?concurrency=10&delayMs=50&includeStatuses=false"));

        Assert.True(run.RootElement.GetProperty("requestProcessingTime").GetDouble() >= 1000, $"took {run.RootElement.GetProperty("requestProcessingTime")} ms");
        Assert.Equal(10, run.RootElement.GetProperty("plan").GetProperty("concurrency").GetInt32());
        Assert.Equal(1, run.RootElement.GetProperty("connectionsUsed").GetInt32());
    }

    [Fact]
    public async Task WithCallsHeldFiftyMillisecondsOneConnectionQueuesAndSeveralDoNot()
    {
        var single = await system.GetRunAsync("/Concurrency/single-connection/1000?delayMs=50&includeStatuses=false");
        var multiple = await system.GetRunAsync("/Concurrency/multiple-connections/1000?delayMs=50&includeStatuses=false");

        // 1000 calls through ~100 streams of 50 ms each need at least ten waves.
        Assert.True(single.GetProperty("requestProcessingTime").GetDouble() >= 500);
        Assert.Equal(1, single.GetProperty("connectionsUsed").GetInt32());
        Assert.True(multiple.GetProperty("connectionsUsed").GetInt32() >= 5, $"multiple-connections used {multiple.GetProperty("connectionsUsed")}");
    }

    [Fact]
    public async Task DeadlineHitsAreCountedByStatusNeverAsSuccesses()
    {
        await using var service = await AppProcess.StartAsync("PerformanceService");
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", service.Url, "--Runs:CallTimeoutSeconds", "0.3"]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(30) };

        using var response = await http.GetAsync("/Concurrency/single-connection/4?delayMs=2000");

        Assert.Equal(HttpStatusCode.ServiceUnavailable, response.StatusCode);
        var problem = await SystemFixture.ReadProblemAsync(response);
        Assert.Equal(4, problem.GetProperty("statusCounts").GetProperty("DeadlineExceeded").GetInt64());
        Assert.Equal(0, problem.GetProperty("completedCalls").GetInt64());
        var stored = await http.GetJsonAsync($"/api/runs/{problem.GetProperty("runId").GetString()}");
        Assert.Equal("Failed", stored.GetProperty("state").GetString());
        Assert.False(stored.GetProperty("stats").GetProperty("statusCounts").TryGetProperty("OK", out _));
    }

    [Theory]
    [InlineData("concurrency=0", "concurrency was '0'")]
    [InlineData("warmup=x", "warmup was 'x'")]
    [InlineData("payloadBytes=2000000", "payloadBytes was '2000000'")]
    [InlineData("includeStatuses=maybe", "includeStatuses was 'maybe'")]
    public async Task EveryOptionalParameterIsValidated(string query, string expected)
    {
        using var response = await system.Http.GetAsync($"/Concurrency/multiple-connections/10?{query}");

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        Assert.Contains(expected, (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString());
    }
}
