using System.Diagnostics;
using System.Net;
using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.Hostile;

/// <summary>
/// The gateway with a hostile server configured as a target per case of issue 28 (<see cref="HostileGatewayFixture"/>):
/// it describes them all from its start and stays up; GET /api/targets lists each with its sentence beside the built-in
/// service; a refresh (POST /api/targets/{name}/refresh) answers that target's view; a run on one is a problem with a
/// sentence, never a 500; none of the servers' code runs, and the secret a target echoes is written nowhere.
/// </summary>
[Trait("Category", "Process")]
public sealed class HostileGatewayTests(HostileGatewayFixture gateway, ITestOutputHelper output) : IClassFixture<HostileGatewayFixture>
{
    private static readonly TimeSpan Bound = HostileTool.CliBound;

    public static TheoryData<string> Cases => HostileCases.Names;

    [Fact]
    public async Task TheGatewayOutlivesItsStartAndListsEveryHostileTargetWithItsSentenceBesideTheBuiltInService()
    {
        // The first look waits for the describes the gateway started by itself.
        using var response = await gateway.Http.GetAsync("/api/targets");
        var body = await response.Content.ReadAsStringAsync();

        Assert.True(response.StatusCode == HttpStatusCode.OK, $"GET /api/targets answered {(int)response.StatusCode}: {body}");
        var targets = JsonDocument.Parse(body).RootElement.EnumerateArray().ToDictionary(target => target.GetProperty("name").GetString()!);
        Assert.True(targets["performance"].GetProperty("reachable").GetBoolean(), targets["performance"].ToString());
        Assert.Equal(JsonValueKind.Null, targets["performance"].GetProperty("problem").ValueKind);
        foreach (var hostile in HostileCases.All)
        {
            output.WriteLine($"{hostile.Name}: {targets[hostile.Name].GetProperty("problem")}");
            AssertView(hostile, "GET /api/targets", targets[hostile.Name]);
        }

        await gateway.AssertUnharmedAsync("after its start and GET /api/targets");
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task ARefreshOfAHostileTargetAnswersItsViewWithItsSentence(string name)
    {
        var hostile = HostileCases.Named(name);
        var started = Stopwatch.GetTimestamp();

        using var response = await gateway.Http.PostAsync($"/api/targets/{name}/refresh", null);
        var took = Stopwatch.GetElapsedTime(started);
        var body = await response.Content.ReadAsStringAsync();
        output.WriteLine($"{name}: {(int)response.StatusCode} after {took.TotalSeconds:0.0} s: {body}");

        Assert.True(response.StatusCode == HttpStatusCode.OK, $"POST /api/targets/{name}/refresh answered {(int)response.StatusCode}: {body}");
        var view = JsonDocument.Parse(body).RootElement;
        Assert.Equal(name, view.GetProperty("name").GetString());
        AssertView(hostile, "a refresh", view);
        Assert.True(took < Bound, $"The refresh took {took}.");
        await gateway.AssertUnharmedAsync($"after a refresh of {name}");
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task ARunOnAHostileTargetIsAProblemWithASentenceNeverA500(string name)
    {
        var hostile = HostileCases.Named(name);

        using var response = await gateway.Http.PostJsonAsync("/api/runs",
            $$"""{"target": "{{name}}", "call": "{{HostileDescriptors.Call}}", "strategy": "client-wrapper", "count": 3}""");
        var body = await response.Content.ReadAsStringAsync();
        output.WriteLine($"{name}: {(int)response.StatusCode}: {body}");

        if (response.StatusCode == HttpStatusCode.Accepted)
        {
            Assert.True(hostile.Verdict != HostileVerdict.Refused, $"A run on {name} was started: {body}");
            var run = await gateway.Http.WaitUntilFinishedAsync($"/api/runs/{JsonDocument.Parse(body).RootElement.GetProperty("id").GetString()}", Bound);
            Assert.True(run.GetProperty("state").GetString() == "Completed", run.ToString());
        }
        else
        {
            Assert.True(response.StatusCode is HttpStatusCode.ServiceUnavailable or HttpStatusCode.BadRequest, $"POST /api/runs on {name} answered {(int)response.StatusCode}: {body}");
            var detail = (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString()!;
            Assert.True(hostile.Verdict != HostileVerdict.Works || HostileAssert.IsOverTheTimeBudget(detail), $"A run on {name} was refused: {body}");
            HostileAssert.IsTheSentence(hostile, "the run's problem", detail);
        }

        await gateway.AssertUnharmedAsync($"after a run on {name}");
    }

    [Fact]
    public async Task TheBuiltInServiceStillRunsBesideEveryHostileTarget()
    {
        var started = await gateway.Http.StartRunAsync("""{"strategy": "client-wrapper", "count": 3}""");
        var run = await gateway.Http.WaitUntilFinishedAsync($"/api/runs/{started.GetProperty("id").GetString()}", Bound);

        Assert.Equal("Completed", run.GetProperty("state").GetString());
        await gateway.AssertUnharmedAsync("after a run of the built-in service");
    }

    [Fact]
    public async Task TheAuthorizationATargetEchoesIsWrittenNowhereTheGatewayWrites()
    {
        var started = await gateway.Http.StartRunAsync(
            $$"""{"target": "{{HostileGatewayFixture.Echo}}", "call": "{{HostileDescriptors.Call}}", "strategy": "client-wrapper", "count": 3}""");
        var id = started.GetProperty("id").GetString()!;
        var run = await gateway.Http.WaitUntilFinishedAsync($"/api/runs/{id}", Bound);

        Assert.True(run.GetProperty("state").GetString() == "Completed", run.ToString());
        // The server did echo the header: the first answer names it, and masks its value.
        Assert.Contains("authorization", run.GetProperty("stats").GetProperty("firstAnswer").GetString());
        var secret = gateway.Secret["Bearer ".Length..];
        foreach (var route in new[] { $"/api/runs/{id}", "/api/runs", $"/api/runs/{id}/report", $"/api/runs/{id}/export", $"/api/runs/{id}/export?format=csv", $"/api/runs/{id}/events" })
        {
            using var response = await gateway.Http.GetAsync(route);
            var body = await response.Content.ReadAsStringAsync();
            Assert.True(response.IsSuccessStatusCode, $"GET {route} answered {(int)response.StatusCode}: {body}");
            Assert.False(body.Contains(secret, StringComparison.Ordinal), $"GET {route} shows the target's authorization: {body}");
        }

        // SQLite keeps text as UTF-8: the secret's bytes in the file or its write-ahead log mean it was stored.
        var history = gateway.Gateway.HistoryPath!;
        Assert.False(HostileAssert.AnyFileHolds(secret, [history, history + "-wal"]), "The history database holds the target's authorization.");
        Assert.DoesNotContain(secret, gateway.Gateway.Output, StringComparison.Ordinal);
        await gateway.AssertUnharmedAsync("after a run that echoed its authorization");
    }

    [Fact]
    public async Task ATemplateThatWouldAllocateGigabytesIsRefusedBeforeItRenders()
    {
        var started = Stopwatch.GetTimestamp();

        using var response = await gateway.Http.PostJsonAsync("/api/runs",
            $$$"""{"target": "{{{HostileGatewayFixture.Echo}}}", "call": "{{{HostileDescriptors.Call}}}", "data": {"text": "{{randomString 1000000000}}"}, "strategy": "client-wrapper", "count": 3}""");
        var body = await response.Content.ReadAsStringAsync();

        Assert.True(response.StatusCode == HttpStatusCode.BadRequest, $"POST /api/runs answered {(int)response.StatusCode} after {Stopwatch.GetElapsedTime(started)}: {body}");
        Assert.Contains("at most", (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString());
        Assert.True(Stopwatch.GetElapsedTime(started) < Bound);
        await gateway.AssertUnharmedAsync("after a template of a billion characters");
    }

    // Every view of a hostile target: listed; described (its method there) or not, with one sentence that says why.
    private static void AssertView(HostileCase hostile, string what, JsonElement view)
    {
        var problem = view.GetProperty("problem");
        var described = view.GetProperty("methods").EnumerateArray().Any(method => method.GetProperty("call").GetString() == HostileDescriptors.Call);
        Assert.True(hostile.Verdict switch
        {
            HostileVerdict.Works => (described && problem.ValueKind == JsonValueKind.Null)
                || (!described && problem.ValueKind == JsonValueKind.String && HostileAssert.IsOverTheTimeBudget(problem.GetString())),
            HostileVerdict.Refused => !described && problem.ValueKind == JsonValueKind.String,
            _ => described ^ (problem.ValueKind == JsonValueKind.String),
        }, $"{what} of {hostile.Name}: {view}");
        if (problem.ValueKind == JsonValueKind.String)
        {
            HostileAssert.IsTheSentence(hostile, $"{what} of {hostile.Name}", problem.GetString()!);
        }
    }
}
