using System.Diagnostics;
using System.Net;

namespace GrpcBestPractices.Tests.Infrastructure;

public static class StoppedService
{
    /// <summary>Starts a gateway whose ServerUrl nobody listens on and proves a GET of the route fails fast and says where it looked.</summary>
    public static async Task AssertAnswers503NamingTheAddressWithinSecondsAsync(string route)
    {
        var deadAddress = $"http://127.0.0.1:{Ports.Unused()}";
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", deadAddress]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(30) };

        var clock = Stopwatch.StartNew();
        using var response = await http.GetAsync(route);

        Assert.Equal(HttpStatusCode.ServiceUnavailable, response.StatusCode);
        // A refused call fails at once; this guards against a run that waits out its calls' deadlines (50 × 10 s).
        // The bound leaves a busy machine room for a cold gateway's first request.
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(30), $"the 503 took {clock.Elapsed}");
        var problem = await SystemFixture.ReadProblemAsync(response);
        Assert.Contains(deadAddress, problem.GetProperty("detail").GetString());
        Assert.Equal("Unavailable", problem.GetProperty("grpcStatus").GetString());
    }
}
