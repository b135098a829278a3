using System.Text.Json;
using ApiGateway.Endpoints;
using LoadEngine.Protocols;
using Microsoft.AspNetCore.Http;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>A JSON body binds to a typed plan with the gateway's JSON options; what does not bind is refused with the sentence its query-string text gets.</summary>
public sealed class RunRequestReaderTests
{
    [Fact]
    public async Task NumbersBindAsJsonNumbersOrStringsAndListsAsJsonOrAsTheQueryStringWritesThem()
    {
        var (request, error) = await ReadAsync("""
            {"strategy": "single-connection", "count": "100", "concurrency": 8, "load": "ramping", "rate": 2.5, "includeStatuses": "false",
             "stages": [{"duration": 10, "target": 5000}, "20:5000"], "percentiles": "p50,99.9", "thresholds": "p99 < 5ms"}
            """);

        Assert.True(request is not null, error);
        Assert.Equal(new RunPlanInput("single-connection", 100, 8, IncludeStatuses: false) { Load = LoadKind.Ramping, Rate = 2.5 }, request.Input with
        {
            Stages = null, Percentiles = null, Thresholds = null,
        });
        Assert.Equal([new RampStage(10, 5000), new RampStage(20, 5000)], request.Input.Stages!);
        Assert.Equal([50, 99.9], request.Input.Percentiles!);
        Assert.Equal(["p99 < 5ms"], request.Input.Thresholds!);
    }

    [Fact]
    public async Task AWorkloadsContenderBindsToItsEnums()
    {
        var (request, _) = await ReadAsync("""{"workload": "big-dto", "protocol": "rest", "serializer": "newtonsoft", "httpVersion": "2", "security": "tls", "connection": "new-per-call"}""");

        Assert.Equal((ApiProtocol.Rest, PayloadSerializer.Newtonsoft, WireVersion.Http2, WireSecurity.Tls, ConnectionUse.NewPerCall),
            (request!.Input.Protocol, request.Input.Serializer, request.Input.HttpVersion, request.Input.Security, request.Input.Connection));
    }

    [Fact]
    public async Task DataBindsAsTheJsonItHoldsOrAsAStringHoldingIt()
    {
        var (asJson, _) = await ReadAsync("""{"data": {"name": "x", "ids": [1, 2]}}""");
        var (asText, _) = await ReadAsync("""{"data": "[{\"name\": \"x\"}]"}""");

        Assert.Equal("""{"name": "x", "ids": [1, 2]}""", asJson!.Input.Data);
        Assert.Equal("""[{"name": "x"}]""", asText!.Input.Data);
    }

    [Theory]
    [InlineData("""[1]""", "The body must be a JSON object such as")]
    [InlineData("""{"count": 1""", "The body must be a JSON object such as")]
    [InlineData("""{"count": "1111111111111111111111111111111111111111111111111111111111111111111"}""", "count is 67 characters long; at most 64 are allowed.")]
    [InlineData("""{"percentiles": [50, "soon"]}""", "percentiles must be an array of numbers, e.g. [50, 90, 99, 99.9]; it held soon.")]
    [InlineData("""{"httpVersion": 2}""", "httpVersion was '2'; it must be 1.1 or 2.")]
    [InlineData("""{"count": 1.5}""", "count was '1.5'; it must be a whole number from 1 to 100000.")]
    [InlineData("""{"count": true}""", "count was 'true'; it must be a whole number from 1 to 100000.")]
    [InlineData("""{"load": "fast"}""", "load was 'fast'; it must be one of: sequential, closed, open, ramping.")]
    [InlineData("""{"load": 1}""", "load was '1'; it must be one of: sequential, closed, open, ramping.")]
    [InlineData("""{"rate": "soon"}""", "rate was 'soon'; it must be a number of calls per second from 0.001 to 1000000.")]
    [InlineData("""{"protocol": "soap"}""", "protocol was 'soap'; it must be grpc, grpc-code-first or rest.")]
    [InlineData("""{"stages": "10:5000,soon"}""", "stages was '10:5000,soon'; 'soon' is not a stage.")]
    [InlineData("""{"strategy": 5}""", "strategy was '5'; it must be a JSON string.")]
    [InlineData("""{"includeStatuses": "maybe"}""", "includeStatuses was 'maybe'; it must be true or false.")]
    [InlineData("""{"concurency": 4}""", "'concurency' is not a run setting; the body may hold: strategy, count,")]
    [InlineData("""{"sharedBy": ["client-wrapper"]}""", "'sharedBy' is not a run setting; the body may hold: strategy, count,")]
    public async Task AValueThatDoesNotBindIsRefusedNamingTheFieldAndWhatIsAllowed(string body, string expected)
    {
        var (request, error) = await ReadAsync(body);

        Assert.Null(request);
        Assert.StartsWith(expected, error);
    }

    [Fact]
    public void TheSettingsABodyIsToldItMayHoldLeaveOutWhatOnlyTheCallerSets()
    {
        Assert.Contains("agents", RunRequestReader.Run.Fields);
        Assert.DoesNotContain("sharedBy", RunRequestReader.Run.Fields);
        Assert.DoesNotContain("sharedBy", RunPlanText.Fields);
    }

    /// <summary>The body bound as ASP.NET Core binds it, with the gateway's JSON options; what does not bind, worded as the exception handler words it.</summary>
    internal static Task<(Bound? Request, string Error)> ReadAsync(string body)
    {
        try
        {
            return Task.FromResult<(Bound?, string)>((new Bound(JsonSerializer.Deserialize<RunPlanInput>(body, Options)!), string.Empty));
        }
        catch (JsonException unbound)
        {
            var bad = new BadHttpRequestException("Failed to read parameter from the request body as JSON.", unbound);
            return Task.FromResult<(Bound?, string)>((null, RunRequestReader.Refusal(bad, RunRequestReader.Run, PlanLimits.Defaults)!));
        }
    }

    internal sealed record Bound(RunPlanInput Input);

    private static readonly JsonSerializerOptions Options =
        RunPlanText.Bind(new JsonSerializerOptions(JsonSerializerDefaults.Web), RunRequestReader.Shapes.ToDictionary(pair => pair.Key, pair => pair.Value.Fields));
}
