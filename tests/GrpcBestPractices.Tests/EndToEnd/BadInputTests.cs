using System.Net;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.EndToEnd;

[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class BadInputTests(SystemFixture system)
{
    [Theory]
    [InlineData("/Performance/factory-client/0", "count was '0'")]
    [InlineData("/Performance/client-wrapper/-5", "count was '-5'")]
    [InlineData("/Performance/initialized-client/abc", "count was 'abc'")]
    [InlineData("/Performance/streaming-call/1.5", "count was '1.5'")]
    [InlineData("/Concurrency/single-connection/100001", "count was '100001'")]
    [InlineData("/Concurrency/multiple-connections/99999999999", "count was '99999999999'")]
    public async Task CountOutsideOneToTheConfiguredMaximumIsRejectedWithWhatIsAllowed(string route, string what)
    {
        using var response = await system.Http.GetAsync(route);

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        var problem = await SystemFixture.ReadProblemAsync(response);
        var detail = problem.GetProperty("detail").GetString();
        Assert.Contains(what, detail);
        Assert.Contains("from 1 to 100000", detail);
    }

    [Theory]
    [InlineData("x")]
    [InlineData("-1")]
    [InlineData("60001")]
    public async Task DelayOutsideItsRangeIsRejected(string delay)
    {
        using var response = await system.Http.GetAsync($"/Performance/client-wrapper/1?delayMs={delay}");

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        Assert.Contains("from 0 to 60000", (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString());
    }

    /// <summary>A chapter route's query binds to typed values; one that does not read gets the sentence its body value would.</summary>
    [Theory]
    [InlineData("load=1", "load was '1'; it must be one of: sequential, closed, open, ramping.")]
    [InlineData("load=closed&concurrency=lots", "concurrency was 'lots'; it must be a whole number from 1 to")]
    [InlineData("load=open&rate=fast", "rate was 'fast'; it must be a number of calls per second")]
    [InlineData("includeStatuses=maybe", "includeStatuses was 'maybe'; it must be true or false.")]
    [InlineData("load=ramping&stages=10:5000,x", "stages was '10:5000,x'; 'x' is not a stage.")]
    [InlineData("percentiles=50,,99", "percentiles was '50,,99'; '' is not a percentile.")]
    public async Task AQueryValueThatDoesNotReadAsItsTypeIsRefusedAsItsBodyValueIs(string query, string expected)
    {
        using var response = await system.Http.GetAsync($"/Performance/client-wrapper/1?{query}");

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        Assert.StartsWith(expected, (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString());
    }

    [Fact]
    public async Task AQueryLoadIsReadByItsWireNameInAnyCaseAndThresholdsMayRepeat()
    {
        using var response = await system.Http.GetAsync("/Performance/client-wrapper/5?load=CLOSED&concurrency=2&thresholds=p99%20%3C%2010s&thresholds=errorRate%20%3C%20100%25&includeStatuses=false");

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        using var answer = System.Text.Json.JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        Assert.Equal("closed", answer.RootElement.GetProperty("plan").GetProperty("load").GetString());
        Assert.Equal(2, answer.RootElement.GetProperty("plan").GetProperty("thresholds").GetArrayLength());
    }

    [Fact]
    public async Task UnknownRouteIsA404ThatListsTheRoutes()
    {
        using var response = await system.Http.GetAsync("/Performance/no-such-strategy/10");

        Assert.Equal(HttpStatusCode.NotFound, response.StatusCode);
        Assert.Contains("/Concurrency/{single-connection|multiple-connections}/{count}", (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString());
    }

    [Fact]
    public async Task WrongMethodIsA405ProblemNotAnEmptyPage()
    {
        using var response = await system.Http.PostAsync("/Performance/client-wrapper/1", null);

        Assert.Equal(HttpStatusCode.MethodNotAllowed, response.StatusCode);
        Assert.Equal("POST is not allowed at '/Performance/client-wrapper/1'; it answers GET only.", (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString());
    }

    [Fact]
    public async Task A405NamesTheMethodsThePathAnswers()
    {
        using var response = await system.Http.DeleteAsync("/api/runs");

        Assert.Equal(HttpStatusCode.MethodNotAllowed, response.StatusCode);
        Assert.Equal("DELETE is not allowed at '/api/runs'; it answers GET, POST only.", (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString());
    }

    [Theory]
    [MemberData(nameof(SequentialRoutes))]
    public async Task ConcurrencyOnARouteThatRunsSequentiallyIsRefusedNotIgnored(string route)
    {
        using var response = await system.Http.GetAsync($"{route}/5?concurrency=4");

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        Assert.StartsWith("concurrency applies only with load=closed|open|ramping", (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString());
    }

    [Fact]
    public async Task ConcurrencyOnARouteThatRunsSequentiallyWorksWithALoadThatUsesIt()
    {
        var run = await system.GetRunAsync("/Performance/client-wrapper/8?load=closed&concurrency=4&includeStatuses=false");

        Assert.Equal("closed", run.GetProperty("plan").GetProperty("load").GetString());
        Assert.Equal(4, run.GetProperty("plan").GetProperty("concurrency").GetInt32());
    }

    [Fact]
    public async Task ABackgroundRunAskingForStatusesIsRefusedNotIgnored()
    {
        using var response = await system.Http.PostJsonAsync("/api/runs", """{"strategy": "client-wrapper", "count": 5, "includeStatuses": true}""");

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        Assert.StartsWith("includeStatuses was 'true'; a background run keeps no per-call statuses.", (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString());
    }

    [Fact]
    public async Task ABodyOverKestrelsLimitIsA413ProblemNotA500()
    {
        // Expect: 100-continue, so the client waits for the answer instead of writing the body into a connection the gateway closes.
        using var request = new HttpRequestMessage(HttpMethod.Post, "/api/runs")
        {
            Content = new ByteArrayContent(new byte[1_048_577]) { Headers = { ContentType = new("application/json") } },
            Headers = { ExpectContinue = true },
        };
        using var response = await system.Http.SendAsync(request);

        Assert.Equal(HttpStatusCode.RequestEntityTooLarge, response.StatusCode);
        Assert.StartsWith("Request body too large. The max request body size is 1048576 bytes.", (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString());
    }

    [Fact]
    public async Task ABodyNotSentAsJsonIsA415ThatSaysWhatToSend()
    {
        using var response = await system.Http.PostAsync("/api/runs", new StringContent("""{"strategy": "client-wrapper", "count": 5}"""));

        Assert.Equal(HttpStatusCode.UnsupportedMediaType, response.StatusCode);
        Assert.Equal("The body was sent as 'text/plain; charset=utf-8'; /api/runs reads a JSON object: send it with Content-Type: application/json.",
            (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString());
    }

    /// <summary>The chapter routes whose own load is sequential, from the strategy list.</summary>
    public static TheoryData<string> SequentialRoutes => new(
        LoadEngine.Strategies.StrategyList.All.Where(strategy => strategy.Info.DefaultLoad == LoadEngine.Runs.LoadKind.Sequential)
            .Select(strategy => strategy.Info.Route.Replace("/{count}", "", StringComparison.Ordinal)));
}
