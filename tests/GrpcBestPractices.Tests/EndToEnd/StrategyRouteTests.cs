using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.EndToEnd;

[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class StrategyRouteTests(SystemFixture system)
{
    public static readonly string[] RouteNames =
    [
        "/Performance/factory-client",
        "/Performance/client-wrapper",
        "/Performance/initialized-client",
        "/Performance/streaming-call",
        "/Concurrency/single-connection",
        "/Concurrency/multiple-connections",
    ];

    public static TheoryData<string> Routes => new(RouteNames);

    [Theory]
    [MemberData(nameof(Routes))]
    public async Task EveryRouteReturnsCountStatusesWithHundredBytesInEachDataField(string route)
    {
        const int count = 150;

        var run = await system.GetRunAsync($"{route}/{count}");

        var statuses = run.GetProperty("performanceStatuses").EnumerateArray().ToList();
        Assert.Equal(count, statuses.Count);
        Assert.Equal(count, run.GetProperty("count").GetInt32());
        Assert.All(statuses, status =>
        {
            Assert.Equal(100, status.GetProperty("dataLoad1").GetBytesFromBase64().Length);
            Assert.Equal(100, status.GetProperty("dataLoad2").GetBytesFromBase64().Length);
            Assert.True(status.GetProperty("memoryUsage").GetDouble() > 1, "memoryUsage should be the service's working set in MiB");
            Assert.True(status.GetProperty("processesRunning").GetInt32() > 1, "processesRunning should be the service's thread count");
            Assert.True(status.GetProperty("activeConnections").GetInt32() >= 1, "the connection carrying the call is open");
        });
        // Random bytes: two answers with the same payload would mean the service reuses a buffer.
        Assert.Equal(count, statuses.Select(s => s.GetProperty("dataLoad1").GetString()).Distinct().Count());
        Assert.True(run.GetProperty("requestProcessingTime").GetDouble() > 0);
        Assert.False(string.IsNullOrWhiteSpace(run.GetProperty("measured").GetString()));
    }

    [Fact]
    public async Task TheAnswerGivesItsFiguresFirstThenTheSeriesThenThePerCallStatuses()
    {
        var text = await system.Http.GetStringAsync("/Performance/client-wrapper/50?thresholds=p99%20%3C%2010s");

        using var answer = JsonDocument.Parse(text);
        var order = answer.RootElement.EnumerateObject().Select(property => property.Name).ToList();
        Assert.Equal(["runId", "strategy", "count", "delayMs", "requestProcessingTime", "connectionsUsed", "measured", "note", "plan", "stats", "verdict", "series", "performanceStatuses"], order);
        // As written on the wire: a reader of the raw text meets the figures before 50 statuses' worth of base64.
        var statuses = text.IndexOf("\"performanceStatuses\":", StringComparison.Ordinal);
        Assert.True(text.IndexOf("\"stats\":", StringComparison.Ordinal) < statuses && text.IndexOf("\"requestProcessingTime\":", StringComparison.Ordinal) < statuses);
        Assert.True(text.IndexOf("\"verdict\":", StringComparison.Ordinal) < text.IndexOf("\"series\":", StringComparison.Ordinal));
    }

    [Fact]
    public async Task RequestProcessingTimeHasSubMillisecondResolution()
    {
        var times = new List<double>();
        for (var i = 0; i < 5; i++)
        {
            times.Add((await system.GetRunAsync("/Performance/client-wrapper/3")).GetProperty("requestProcessingTime").GetDouble());
        }

        Assert.Contains(times, time => time != Math.Floor(time));
    }

    [Fact]
    public async Task SingleConnectionUsesExactlyOneConnectionEvenPastTheStreamLimit()
    {
        var run = await system.GetRunAsync("/Concurrency/single-connection/400?delayMs=20");

        Assert.Equal(1, run.GetProperty("connectionsUsed").GetInt32());
        Assert.Equal(400, run.GetProperty("performanceStatuses").GetArrayLength());
    }

    [Fact]
    public async Task MultipleConnectionsOpensMoreThanOneWhenMoreThanAHundredCallsOverlap()
    {
        var run = await system.GetRunAsync("/Concurrency/multiple-connections/400?delayMs=50");

        Assert.True(run.GetProperty("connectionsUsed").GetInt32() > 1, $"connectionsUsed was {run.GetProperty("connectionsUsed")}");
    }

    [Fact]
    public async Task OneConnectionQueuesPastTheStreamLimitWhileMultipleConnectionsSpreadTheCalls()
    {
        // 400 calls held 100 ms each: one connection serves ~100 at a time, so it needs at least four waves;
        // a channel allowed more connections opens enough of them not to queue. Wall times are the benchmark's job.
        var single = await system.GetRunAsync("/Concurrency/single-connection/400?delayMs=100&includeStatuses=false");
        var multiple = await system.GetRunAsync("/Concurrency/multiple-connections/400?delayMs=100&includeStatuses=false");

        Assert.True(single.GetProperty("requestProcessingTime").GetDouble() >= 400, $"single-connection took {single.GetProperty("requestProcessingTime")} ms; four waves of 100 ms cannot take less than 400 ms");
        Assert.Equal(1, single.GetProperty("connectionsUsed").GetInt32());
        Assert.True(multiple.GetProperty("connectionsUsed").GetInt32() >= 4, $"multiple-connections used {multiple.GetProperty("connectionsUsed")} connections for 400 calls in flight");
    }

    [Fact]
    public async Task InitializedClientOpensOneConnectionPerCall()
    {
        var run = await system.GetRunAsync("/Performance/initialized-client/25");

        Assert.Equal(25, run.GetProperty("connectionsUsed").GetInt32());
    }

    [Theory]
    [InlineData("/Performance/client-wrapper/30")]
    [InlineData("/Performance/factory-client/30")]
    [InlineData("/Performance/streaming-call/30")]
    public async Task ReusedChannelsCarryEverySequentialCallOnOneConnection(string route)
    {
        var run = await system.GetRunAsync(route);

        Assert.Equal(1, run.GetProperty("connectionsUsed").GetInt32());
    }

    [Fact]
    public async Task FactoryClientSaysWhetherItsLoggingHandlersWereMeasured()
    {
        var run = await system.GetRunAsync("/Performance/factory-client/1");

        Assert.Contains("start and end lines are filtered here", run.GetProperty("measured").GetString());
    }

    [Fact]
    public async Task SwaggerDescribesEveryRouteWithItsLesson()
    {
        using var document = JsonDocument.Parse(await system.Http.GetStringAsync("/swagger/v1/swagger.json"));
        var paths = document.RootElement.GetProperty("paths");

        foreach (var route in RouteNames)
        {
            var operation = paths.GetProperty(route + "/{count}").GetProperty("get");
            Assert.StartsWith("Lesson:", operation.GetProperty("description").GetString());
        }

        Assert.Equal(System.Net.HttpStatusCode.OK, (await system.Http.GetAsync("/swagger/index.html")).StatusCode);
    }
}
