using System.Net;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.Distributed;

/// <summary>Distributed runs wait for their agents under a limit of their own, never in the slots of runs the gateway makes.</summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class DistributedRunLimitTests
{
    private const string Distributed = """{"strategy": "initialized-client", "count": 20, "agents": 2}""";

    [Fact]
    public async Task RunsWaitingForAgentsLeaveTheLocalSlotsFreeAndTheOneOverTheirOwnLimitGetsA429NamingIt()
    {
        await using var service = await AppProcess.StartAsync("PerformanceService");
        // The agents never come, and the join timeout never ends the wait within the test.
        await using var gateway = await AppProcess.StartAsync("ApiGateway",
            ["--ServerUrl", service.Url, "--Agents:JoinTimeoutSeconds", "3600", "--Agents:MaxRunsInFlight", "2", "--Runs:MaxRunsInFlight", "2"]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(60) };
        string[] waiting = [(await http.StartRunAsync(Distributed)).GetProperty("id").GetString()!, (await http.StartRunAsync(Distributed)).GetProperty("id").GetString()!];

        using var third = await http.PostJsonAsync("/api/runs", Distributed);
        Assert.Equal(HttpStatusCode.TooManyRequests, third.StatusCode);
        Assert.NotNull(third.Headers.RetryAfter);
        Assert.Contains("2 distributed run(s) are already waiting for or following their agents, the most Agents:MaxRunsInFlight allows",
            (await SystemFixture.ReadProblemAsync(third)).GetProperty("detail").GetString());

        // Both of Runs:MaxRunsInFlight's slots are free: two local runs start at once, and complete, while the two wait.
        string[] locals =
        [
            (await http.StartRunAsync("""{"strategy": "client-wrapper", "count": 20, "delayMs": 50}""")).GetProperty("id").GetString()!,
            (await http.StartRunAsync("""{"strategy": "client-wrapper", "count": 20, "delayMs": 50}""")).GetProperty("id").GetString()!,
        ];
        foreach (var local in locals)
        {
            var ended = await http.WaitUntilFinishedAsync($"/api/runs/{local}");
            Assert.True(ended.GetProperty("state").GetString() == "Completed", ended.ToString());
        }

        foreach (var id in waiting)
        {
            Assert.Equal("Running", (await http.GetJsonAsync($"/api/runs/{id}")).GetProperty("state").GetString());
            using var cancel = await http.PostAsync($"/api/runs/{id}/cancel", null);
            Assert.Equal("Cancelled", (await http.WaitUntilFinishedAsync($"/api/runs/{id}")).GetProperty("state").GetString());
        }

        // Their slots are given back with them.
        var again = (await http.StartRunAsync(Distributed)).GetProperty("id").GetString();
        using var cancelAgain = await http.PostAsync($"/api/runs/{again}/cancel", null);
        Assert.Equal("Cancelled", (await http.WaitUntilFinishedAsync($"/api/runs/{again}")).GetProperty("state").GetString());
    }
}
