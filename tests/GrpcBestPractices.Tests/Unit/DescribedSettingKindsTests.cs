using System.CommandLine;
using System.ComponentModel;
using System.ComponentModel.DataAnnotations;
using System.Text.Json;
using ApiGateway.Endpoints;
using ApiGateway.OpenApi;
using LoadEngine.Protocols;
using LoadEngine.Strategies;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.AspNetCore.Hosting;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>
/// A setting <see cref="DescribedSettings"/> declares is one of four kinds by its type, and each surface takes it by its
/// kind: the body, a chapter route's query (bound by ASP.NET Core), its documentation, the CLI's option and the rules'
/// sentences. Main declares whole numbers only; these settings are of the other three kinds, declared as a setting would be.
/// </summary>
public sealed class DescribedSettingKindsTests
{
    private static readonly PlanLimits Limits = PlanLimits.Defaults;

    private static PlanSetting Setting(string name) => PlanSetting.Of(typeof(Kinds).GetProperty(name)!, Limits)!;

    [Fact]
    public void EachKindIsReadFromItsTypeWithItsRangeDefaultAndMeaning()
    {
        var (seconds, named, labels) = (Setting(nameof(Kinds.StartAfter)), Setting(nameof(Kinds.Shape)), Setting(nameof(Kinds.Tags)));

        Assert.Equal(("startAfter", SettingKind.Seconds, 0.1, (double)Limits.MaxRunSeconds), (seconds.Name, seconds.Kind, seconds.Min, seconds.Max));
        Assert.Equal(("shape", SettingKind.Named, "closed", typeof(LoadKind)), (named.Name, named.Kind, named.Default, named.EnumType));
        Assert.Equal(("tags", SettingKind.Labels, 3.0, "Labels kept with the run."), (labels.Name, labels.Kind, labels.Max, labels.Description));
        // A field of no kind with neither a range nor a meaning is no setting: its own sentences are elsewhere.
        Assert.Null(PlanSetting.Find("rate", Limits));
        Assert.Equal(SettingKind.Whole, PlanSetting.Find("warmup", Limits)!.Kind);
    }

    [Fact]
    public void EachKindSaysWhatWasWrongAndWhatIsAllowed()
    {
        Assert.Equal("startAfter was 'soon'; it must be a number of seconds from 0.1 to 600.", Setting(nameof(Kinds.StartAfter)).Refused("soon"));
        Assert.Equal("startAfter was '601'; it must be a number of seconds from 0.1 to 600.", Setting(nameof(Kinds.StartAfter)).Check(601.0));
        Assert.Null(Setting(nameof(Kinds.StartAfter)).Check(600.0));
        Assert.Equal("shape was 'Closed!'; it must be sequential, closed, open or ramping.", Setting(nameof(Kinds.Shape)).Refused("Closed!"));
        Assert.Equal("tags holds 4 items; at most 3 are allowed.", Setting(nameof(Kinds.Tags)).Check(new[] { "a", "b", "c", "d" }));
        Assert.StartsWith("tags[1] is 65 characters long; at most 64 are allowed.", Setting(nameof(Kinds.Tags)).Check(new[] { "a", new string('x', 65) }));
        Assert.Null(Setting(nameof(Kinds.Tags)).Check(new[] { "team=payments" }));
        Assert.Equal("warmup was '-1'; it must be a whole number from 0 to 10000.", PlanSetting.Find("warmup", Limits)!.Check(-1));
    }

    [Fact]
    public void AnEnumSettingIsTakenByItsWireNameInAnyCaseNeverByItsNumber()
    {
        Assert.True(WireName<LoadKind>.TryParse("OPEN", null, out var open));
        Assert.Equal(LoadKind.Open, open.Value);
        Assert.False(WireName<LoadKind>.TryParse("2", null, out _));
        Assert.Equal(new WireName<LoadKind>(LoadKind.Ramping), WireName.Read(typeof(LoadKind), "ramping"));
        Assert.Null(WireName.Read(typeof(LoadKind), "1"));
        Assert.Equal("closed", new WireName<LoadKind>(LoadKind.Closed).ToString());
    }

    [Fact]
    public async Task AChapterRoutesQueryBindsEachKindThroughTheFramework()
    {
        Kinds? bound = null;
        var handler = RequestDelegateFactory.Create(([AsParameters] Kinds query) => bound = query,
            new RequestDelegateFactoryOptions { ServiceProvider = new ServiceCollection().BuildServiceProvider(), ThrowOnBadRequest = true, DisableInferBodyFromParameters = true }).RequestDelegate;

        await handler(Request("?startAfter=1.5&shape=OPEN&tags=a&tags=team%3Dpayments"));
        Assert.Equal((1.5, LoadKind.Open), (bound!.StartAfter, bound.Shape!.Value.Value));
        Assert.Equal(["a", "team=payments"], bound.Tags!);

        var refused = await Assert.ThrowsAsync<BadHttpRequestException>(() => handler(Request("?shape=2")));
        Assert.Contains("Shape\" from \"2\"", refused.Message);
    }

    [Fact]
    public void ABodyReadsEachKindAndRefusesWhatDoesNotReadWithTheSettingsSentence()
    {
        var options = RunPlanText.Bind(new JsonSerializerOptions(JsonSerializerDefaults.Web), new Dictionary<Type, IReadOnlyList<string>>());

        var body = JsonSerializer.Deserialize<KindsBody>("""{"strategy": "client-wrapper", "startAfter": "2", "shape": "Ramping", "tags": "team=payments"}""", options)!;
        Assert.Equal((2.0, LoadKind.Ramping), (body.StartAfter, body.Shape!.Value.Value));
        Assert.Equal(["team=payments"], body.Tags!);
        Assert.Equal(["a", "b"], JsonSerializer.Deserialize<KindsBody>("""{"tags": ["a", "b"]}""", options)!.Tags!);

        var number = Assert.ThrowsAny<JsonException>(() => JsonSerializer.Deserialize<KindsBody>("""{"shape": 2}""", options));
        Assert.Equal("shape was '2'; it must be sequential, closed, open or ramping.", RunPlanText.Refusal(number, Limits));
        Assert.ThrowsAny<JsonException>(() => JsonSerializer.Deserialize<KindsBody>("""{"tags": [1]}""", options));
    }

    [Fact]
    public void TheRouteDocumentsAndTheCommandLineOffersEachKind()
    {
        var (seconds, named, labels) = (RunParameters.Setting(Setting(nameof(Kinds.StartAfter))), RunParameters.Setting(Setting(nameof(Kinds.Shape))),
            RunParameters.Setting(Setting(nameof(Kinds.Tags))));
        Assert.Equal((typeof(double), 0.1, 600.0), (seconds.Type, seconds.Minimum, seconds.Maximum));
        Assert.Equal(["sequential", "closed", "open", "ramping"], named.Allowed!);
        Assert.Equal("closed", named.Default);
        Assert.Equal((true, 3, 64), (labels.Repeatable, labels.MaxItems, labels.MaxLength));

        var command = new RootCommand { LoadTest.LoadTestCommand.Setting(Setting(nameof(Kinds.StartAfter))), LoadTest.LoadTestCommand.Setting(Setting(nameof(Kinds.Shape))),
            LoadTest.LoadTestCommand.Setting(Setting(nameof(Kinds.Tags))) };
        var parsed = command.Parse(["--start-after", "1m30s", "--shape", "Open", "--tag", "a", "--tag", "b"]);
        Assert.Empty(parsed.Errors);
        Assert.Equal(TimeSpan.FromSeconds(90), parsed.GetValue<TimeSpan?>("--start-after"));
        Assert.Equal(new WireName<LoadKind>(LoadKind.Open), parsed.GetValue<object?>("--shape"));
        Assert.Equal(["a", "b"], parsed.GetValue<string[]>("--tag")!);
        Assert.Equal("shape was '1'; it must be sequential, closed, open or ramping.", Assert.Single(command.Parse(["--shape", "1"]).Errors).Message);
        Assert.Contains("from 0.1 s to 600 s", Assert.Single(command.Parse(["--start-after", "soon"]).Errors).Message);
    }

    [Fact]
    public async Task TheDocumentDescribesAnEnumSettingAsItsWireNames()
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.WebHost.UseUrls("http://127.0.0.1:0");
        builder.Services.AddSwaggerDocs();
        await using var app = builder.Build();
        app.MapPost("/kinds", (KindsBody body) => body.Shape?.ToString());
        app.UseSwaggerDocs();
        await app.StartAsync();
        using var http = new HttpClient { BaseAddress = new Uri(app.Urls.First()) };

        var schemas = JsonDocument.Parse(await http.GetStringAsync("/swagger/v1/swagger.json")).RootElement.GetProperty("components").GetProperty("schemas");
        var shape = schemas.GetProperty(nameof(KindsBody)).GetProperty("properties").GetProperty("shape");
        while (shape.TryGetProperty("$ref", out var reference) || shape.TryGetProperty("oneOf", out _) && (reference = shape.GetProperty("oneOf")[0].GetProperty("$ref")).ValueKind != JsonValueKind.Undefined)
        {
            shape = schemas.GetProperty(reference.GetString()!.Split('/')[^1]);
        }

        Assert.Equal("string", shape.GetProperty("type").GetString());
        Assert.Equal(["sequential", "closed", "open", "ramping"], shape.GetProperty("enum").EnumerateArray().Select(name => name.GetString()));
        Assert.False(shape.TryGetProperty("properties", out _));
    }

    private static DefaultHttpContext Request(string query) => new() { Request = { QueryString = new QueryString(query) } };

    /// <summary>A setting of each kind but the whole number, declared as <see cref="DescribedSettings"/> declares its own.</summary>
    public record Kinds
    {
        [PlanLimit(RunPlanRules.MinDurationSeconds, nameof(PlanLimits.MaxRunSeconds)), Description("Seconds the run waits before its first call.")]
        public double? StartAfter { get; init; }

        [DefaultValue("closed"), Description("How calls are started.")]
        public WireName<LoadKind>? Shape { get; init; }

        [MaxLength(3), Description("Labels kept with the run.")]
        public string[]? Tags { get; init; }
    }

    /// <summary>A body of a run with those settings, read as <see cref="RunPlanText"/> reads a plan.</summary>
    public sealed record KindsBody() : RunPlanInput(null, null)
    {
        public double? StartAfter { get; init; }

        public WireName<LoadKind>? Shape { get; init; }

        public string[]? Tags { get; init; }
    }
}
