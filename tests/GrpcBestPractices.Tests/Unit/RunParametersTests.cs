using System.Globalization;
using System.Text;
using ApiGateway.Configuration;
using ApiGateway.Endpoints;
using LoadEngine.Strategies;
using Microsoft.AspNetCore.Http;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>
/// The run parameters' documented limits, held against the plan rules: each documented bound is accepted and the value
/// past it refused, read the way the gateway reads a request. The end-to-end test can only probe past the bounds (a run
/// at count = 100 000 or delayMs = 60 000 is too long for a test); this one proves the bounds are not wider than the rules.
/// </summary>
public sealed class RunParametersTests
{
    private static readonly RunLimitsOptions Limits = new();

    public static TheoryData<string> Bounded => new(RunParameters.ForBody(Limits).All.Where(parameter => parameter.Maximum is not null).Select(parameter => parameter.Name));

    [Theory]
    [MemberData(nameof(Bounded))]
    public async Task EachDocumentedBoundIsAcceptedAndTheValuePastItRefused(string name)
    {
        var parameter = RunParameters.ForBody(Limits).All.Single(parameter => parameter.Name == name);
        var step = parameter.Type == typeof(int) ? 1 : 0.001;

        Assert.Null(await RefusalAsync(name, parameter.Minimum!.Value));
        Assert.Null(await RefusalAsync(name, parameter.Maximum!.Value));
        Assert.Contains(name, await RefusalAsync(name, parameter.Minimum.Value - step));
        Assert.Contains(name, await RefusalAsync(name, parameter.Maximum.Value + step));
    }

    [Fact]
    public void EveryChapterRouteTakesEveryPlanSettingAndItsStatusesSwitch()
    {
        foreach (var strategy in StrategyList.All)
        {
            var route = RunParameters.ForRoute(strategy.Info, Limits);

            Assert.Equal(["count"], route.All.Where(parameter => parameter.InPath).Select(parameter => parameter.Name));
            Assert.Equal([.. RunParameters.ForBody(Limits).QueryNames.Where(name => name != "count"), "includeStatuses"], route.QueryNames);
        }
    }

    /// <summary>
    /// A whole-number setting is stated once, on RunPlanInput: the chapter routes' query, the page's facts, the command
    /// line's option and the sentence of a value that does not read take it from there, so adding one touches the model,
    /// the rules and the page's field, nothing more.
    /// </summary>
    [Fact]
    public void EachDescribedSettingIsARouteParameterAPageFactAndACommandLineOption()
    {
        var settings = DescribedSettings.All(Limits.PlanLimits()).ToList();
        var options = new LoadTest.LoadTestCommand().AllOptions.Select(option => option.Name).ToList();

        Assert.Equal(["warmup", "delayMs", "payloadBytes"], settings.Select(setting => setting.Name));
        Assert.Equal((0.0, (double)Limits.MaxWarmup, (object?)0), (settings[0].Min, settings[0].Max, settings[0].Default));
        Assert.All(settings, setting => Assert.Contains(setting.Name, RunParameters.ForBody(Limits).QueryNames));
        Assert.Equal(settings, PlanFacts.For(Limits).Settings);
        Assert.All(settings, setting => Assert.Contains("--" + string.Concat(setting.Name.Select(c => char.IsUpper(c) ? "-" + char.ToLowerInvariant(c) : c.ToString())), options));
        Assert.False(PlanText.TryBind(new Dictionary<string, string?> { ["delayMs"] = "soon" }, null, Limits.PlanLimits(), out _, out var error));
        Assert.Equal("delayMs was 'soon'; it must be a whole number from 0 to 60000.", error);
    }

    /// <summary>The plan rules' sentence for a single-connection run with <paramref name="name"/> set, under a load that uses it; null when accepted.</summary>
    private static async Task<string?> RefusalAsync(string name, double value)
    {
        var settings = new Dictionary<string, object>
        {
            ["strategy"] = "single-connection", ["count"] = 10, ["load"] = name switch { "rate" => "ramping", _ => "closed" },
        };
        if (name == "rate")
        {
            settings["stages"] = "1:10";
        }

        settings[name] = value;
        var (request, error) = await RunRequestReaderTests.ReadAsync(System.Text.Json.JsonSerializer.Serialize(settings));
        Assert.True(request is not null, error);
        return RunPlanRules.TryCreate(request.Input, Limits.PlanLimits(), StrategyList.Names, out _, out error) ? null : error;
    }
}
