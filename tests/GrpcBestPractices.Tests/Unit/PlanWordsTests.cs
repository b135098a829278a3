using System.Net.ServerSentEvents;
using System.Text.Json;
using ApiGateway.Endpoints;
using GrpcBestPractices.Tests.Fakes;
using LoadEngine.Protocols;
using LoadEngine.Reports;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Json;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>One plan wording: the phrase the CLI and the page show, the facts the page groups and compares by, sent with every run (and the failures' lines).</summary>
public sealed class PlanWordsTests
{
    [Fact]
    public void BuiltInPlanReadsCountLoadWarmupDelayAndPayload()
    {
        var plan = SampleRuns.Plan("client-wrapper") with { Warmup = 20, Called = new BuiltInCall(DelayMs: 1) };

        Assert.Equal("1,000 calls, closed, 16 in flight, 20 warm-up calls, delay 1 ms, payload 100 B", PlanWords.Phrase(plan));
    }

    [Fact]
    public void DescribedCallReadsTargetCallAndDataButNoDelayOrPayload()
    {
        var plan = (SampleRuns.Plan("client-wrapper", LoadKind.Open) with { Rate = 2.5, Agents = 2, Warmup = 0 }).Calling("shop.Orders/Get", "{\n  \"id\": 7\n}", "shop");

        Assert.Equal("on shop, shop.Orders/Get, request { \"id\": 7 }, 2.5 s, open, at most 16 in flight, 3 calls/s, 2 agents", PlanWords.Phrase(plan));
    }

    [Fact]
    public void WorkloadPlanNamesItsWorkloadAndContenderFirst()
    {
        var plan = SampleRuns.Plan("rest-newtonsoft-h1-cleartext", LoadKind.Sequential) with
        {
            Called = new WorkloadContender("small-mixed", new Contender(ApiProtocol.Rest, PayloadSerializer.Newtonsoft, WireVersion.Http11, WireSecurity.Cleartext), null, null, 8, null, null),
            Count = 50,
            Duration = null,
        };

        Assert.StartsWith("workload small-mixed, protocol rest, serializer newtonsoft, httpVersion 1.1, security cleartext, clients 8, 50 calls, sequential, ", PlanWords.Phrase(plan));
    }

    [Fact]
    public void UnsetFactsAreComparedAsNone()
    {
        var facts = PlanWords.Facts(SampleRuns.Plan("client-wrapper")).ToDictionary(fact => fact.Name);

        Assert.Equal(("none", null), (facts["duration"].Value, facts["duration"].Words));
        Assert.Equal(("—", null), (facts["agents"].Value, facts["agents"].Words));
        Assert.Equal(("1,000", "1,000 calls"), (facts["count"].Value, facts["count"].Words));
    }

    [Fact]
    public void GatewayAnswersCarryThePlanFactsAndStatusLinesAndTheHistoryDoesNot()
    {
        var options = new ServiceCollection().AddRunViews().BuildServiceProvider().GetRequiredService<IOptions<JsonOptions>>().Value.SerializerOptions;
        var completed = SampleRuns.Completed("client-wrapper");
        var run = completed with { Stats = completed.Stats! with { StatusDetails = [new("Unavailable", 3, [new("busy", 2)], 1)] } };

        var answer = JsonDocument.Parse(JsonSerializer.Serialize<object>(run, options)).RootElement;
        var stored = JsonDocument.Parse(JsonSerializer.Serialize(run, RunJson.Options)).RootElement;

        Assert.Equal("1,000 calls", answer.GetProperty("planFacts")[0].GetProperty("words").GetString());
        Assert.Equal("count", answer.GetProperty("planFacts")[0].GetProperty("name").GetString());
        Assert.Equal(["2 × Unavailable: 'busy'", "1 × Unavailable: other messages (only the first 5 distinct ones are kept)"],
            answer.GetProperty("stats").GetProperty("statusLines").EnumerateArray().Select(line => line.GetString()));
        Assert.False(stored.TryGetProperty("planFacts", out _));
        Assert.False(stored.GetProperty("stats").TryGetProperty("statusLines", out _));
    }

    [Fact]
    public async Task EventStreamsCarryThePlanFactsToo()
    {
        var http = new DefaultHttpContext { RequestServices = new ServiceCollection().AddLogging().AddRunViews().BuildServiceProvider() };
        http.Response.Body = new MemoryStream();

        await TypedResults.ServerSentEvents(Final(SampleRuns.Completed("client-wrapper"))).ExecuteAsync(http);

        http.Response.Body.Position = 0;
        Assert.Contains("\"planFacts\":[{\"name\":\"count\",\"value\":\"1,000\",\"words\":\"1,000 calls\"}", new StreamReader(http.Response.Body).ReadToEnd());
    }

    private static async IAsyncEnumerable<SseItem<object>> Final(RunRecord run)
    {
        await Task.Yield();
        yield return new SseItem<object>(run, "final");
    }
}
