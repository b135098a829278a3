using System.Text.Json;
using ApiGateway.Endpoints;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>Each load's facts are stated once, beside the enum, and the page's facts answer carries exactly them.</summary>
public sealed class LoadFactTests
{
    [Fact]
    public void EveryLoadHasOneFactWhoseNameIsItsJsonName()
    {
        Assert.Equal(Enum.GetValues<LoadKind>(), LoadFact.All.Select(fact => fact.Kind));
        Assert.All(LoadFact.All, fact => Assert.Equal($"\"{fact.Name}\"", JsonSerializer.Serialize(fact.Kind, RunJson.Options)));
        Assert.All(LoadFact.All, fact => Assert.Equal(fact.Name, RunPlanRules.Name(fact.Kind)));
    }

    [Fact]
    public void TheArrivalRateLoadsAreOpenAndRampingAndOnlyTheyReadARate()
    {
        Assert.Equal([LoadKind.Open, LoadKind.Ramping], Enum.GetValues<LoadKind>().Where(load => LoadFact.Of(load).ArrivalRate));
        Assert.All(LoadFact.All, fact => Assert.Equal(fact.ArrivalRate, fact.Settings.Contains("rate")));
        Assert.Equal([LoadKind.Closed, LoadKind.Open, LoadKind.Ramping], RunPlanRules.ConcurrencyLoads);
        Assert.True(new RunPlan { Strategy = "streaming", Load = LoadKind.Ramping }.IsOpen);
        Assert.False(new RunPlan { Strategy = "streaming", Load = LoadKind.Closed }.IsOpen);
    }

    [Fact]
    public void ThePlanFactsAnswerCarriesTheLoadsThePayloadDefaultAndThePalette()
    {
        var json = JsonDocument.Parse(JsonSerializer.Serialize(PlanFacts.For(new ApiGateway.Configuration.RunLimitsOptions()), RunJson.Options)).RootElement;

        var loads = json.GetProperty("loads").EnumerateArray().ToList();
        Assert.Equal(["sequential", "closed", "open", "ramping"], loads.Select(load => load.GetProperty("name").GetString()));
        Assert.Equal("open: a constant arrival rate", loads[2].GetProperty("words").GetString());
        Assert.Equal(["rate", "stages", "concurrency"], loads[3].GetProperty("settings").EnumerateArray().Select(setting => setting.GetString()));
        Assert.False(loads[0].TryGetProperty("kind", out _));
        Assert.Equal(100, json.GetProperty("defaultPayloadBytes").GetInt32());
        Assert.Equal(new BuiltInCall().PayloadBytes, json.GetProperty("defaultPayloadBytes").GetInt32());
        Assert.Equal(RunPlanRules.MaxPayloadBytes, json.GetProperty("maxPayloadBytes").GetInt32());
        Assert.Equal(8, json.GetProperty("palette").GetArrayLength());
    }
}
