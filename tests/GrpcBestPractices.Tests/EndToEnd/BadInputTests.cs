using System.Net;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.EndToEnd;

[Collection(SystemCollection.Name)]
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
        Assert.Contains("answer GET", (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString());
    }
}
