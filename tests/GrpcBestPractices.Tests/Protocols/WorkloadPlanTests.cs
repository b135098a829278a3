using System.Text.Json;
using LoadEngine.Protocols;

namespace GrpcBestPractices.Tests.Protocols;

/// <summary>The contenders and the workload runs' plans: what is accepted, its defaults, and the sentence for what is not.</summary>
public sealed class WorkloadPlanTests
{
    private static readonly PlanLimits Limits = PlanLimits.Defaults;
    private static readonly string[] Strategies = ["client-wrapper"];

    [Fact]
    public void TwelveContendersAreValidFourApisOverEachVersionAndSecurityTheyMakeSenseWith()
    {
        Assert.Equal(
        [
            "grpc-h2-cleartext", "grpc-h2-tls", "grpc-code-first-h2-cleartext", "grpc-code-first-h2-tls",
            "rest-stj-h1-cleartext", "rest-stj-h1-tls", "rest-stj-h2-cleartext", "rest-stj-h2-tls",
            "rest-newtonsoft-h1-cleartext", "rest-newtonsoft-h1-tls", "rest-newtonsoft-h2-cleartext", "rest-newtonsoft-h2-tls",
        ], ContenderList.Names);
        Assert.Equal("REST · System.Text.Json · HTTP/1.1 · TLS", ContenderList.Find("rest-stj-h1-tls")!.Label);
        Assert.Equal("gRPC code-first · Protobuf · HTTP/2 · cleartext (h2c)", ContenderList.Find("grpc-code-first-h2-cleartext")!.Label);
        Assert.Equal(["grpc", "grpc-code-first", "rest-stj", "rest-newtonsoft"], ContenderList.All.Select(contender => contender.ServiceApi).Distinct());
    }

    [Theory]
    [InlineData("grpc-code-first", null, "1.1", null, "httpVersion was '1.1' with protocol grpc-code-first; gRPC needs HTTP/2")]
    [InlineData("grpc", "newtonsoft", null, null, "serializer was 'newtonsoft' with protocol grpc; gRPC sends protobuf only.")]
    [InlineData("rest", "protobuf", null, null, "serializer was 'protobuf' with protocol rest; REST here is JSON, with system-text-json or newtonsoft.")]
    public void ACombinationThatMakesNoSenseIsRefusedNamingWhatIsAllowed(string protocol, string? serializer, string? version, string? security, string expected)
    {
        Assert.False(PlanText.TryContender(protocol, serializer, version, security, out _, out var error));

        Assert.StartsWith(expected, error);
        Assert.EndsWith(ContenderList.Allowed, error);
    }

    [Theory]
    [InlineData(null, null, null, null, "A workload run needs a protocol: grpc, grpc-code-first or rest.")]
    [InlineData("soap", null, null, null, "protocol was 'soap'; it must be grpc, grpc-code-first or rest.")]
    [InlineData("rest", "xml", null, null, "serializer was 'xml'; it must be protobuf, system-text-json or newtonsoft.")]
    [InlineData("rest", null, "3", null, "httpVersion was '3'; it must be 1.1 or 2.")]
    [InlineData("rest", null, null, "ssl", "security was 'ssl'; it must be cleartext or tls.")]
    public void AnUnknownContenderValueIsRefusedNamingTheValuesThereAre(string? protocol, string? serializer, string? version, string? security, string expected)
    {
        Assert.False(PlanText.TryContender(protocol, serializer, version, security, out _, out var error));

        Assert.Equal(expected, error);
    }

    [Fact]
    public void OnlyTheProtocolIsNeededGrpcDefaultsToProtobufOverHttp2AndRestToSystemTextJsonOverHttp11()
    {
        Assert.True(PlanText.TryContender("grpc", null, null, null, out var grpc, out _));
        Assert.True(PlanText.TryContender("rest", null, null, null, out var rest, out _));

        Assert.Equal("grpc-h2-cleartext", grpc.Name);
        Assert.Equal("rest-stj-h1-cleartext", rest.Name);
    }

    [Fact]
    public void AWorkloadRunIsNamedByItsContenderAndTakesTheWorkloadsDefaults()
    {
        var plan = Create(new PlanText(null, null) { Workload = "file-upload", Protocol = "rest", Serializer = "newtonsoft", HttpVersion = "2", Security = "tls" });

        Assert.Equal("rest-newtonsoft-h2-tls", plan.Strategy);
        Assert.Equal("file-upload", plan.Workload!.Id);
        Assert.Equal(LoadKind.Sequential, plan.Load);
        Assert.Equal(10, plan.Count);
        Assert.Equal(1024 * 1024, plan.Workload.FileBytes);
        Assert.Equal(1, plan.Workload.Clients);
        Assert.Null(plan.Workload.Connection);
        Assert.Null(plan.Workload.Variant);
        Assert.False(plan.IncludeStatuses);
    }

    [Fact]
    public void AWorkloadPlanWritesItsFieldsAsTheRunApiNamesThemAndReadsBackTheSame()
    {
        var plan = Create(new PlanText(null, "5", "4") { Workload = "big-dto", Protocol = "rest", HttpVersion = "1.1", Connection = "new-per-call", Load = "closed" });

        var json = JsonSerializer.Serialize(plan, RunJson.Options);

        Assert.Contains("\"workload\":\"big-dto\",\"protocol\":\"rest\",\"serializer\":\"system-text-json\",\"httpVersion\":\"1.1\",\"security\":\"cleartext\",\"connection\":\"new-per-call\"", json);
        Assert.DoesNotContain("fileBytes", json);
        Assert.Equal(json, JsonSerializer.Serialize(JsonSerializer.Deserialize<RunPlan>(json, RunJson.Options), RunJson.Options));
        Assert.Equal(ContenderList.Find("rest-stj-h1-cleartext"), plan.Workload?.Contender);
    }

    [Fact]
    public void AStrategyRunsPlanKeepsItsShapeWithNoWorkloadField()
    {
        var plan = Create(new PlanText("client-wrapper", "10"));

        var json = JsonSerializer.Serialize(plan, RunJson.Options);

        Assert.Equal(
            "{\"strategy\":\"client-wrapper\",\"load\":\"sequential\",\"count\":10,\"duration\":null,\"concurrency\":1,\"rate\":null,\"stages\":null,\"warmup\":0," +
            "\"delayMs\":0,\"payloadBytes\":100,\"includeStatuses\":true,\"percentiles\":[50,75,90,95,99,99.9,99.99],\"thresholds\":[]}", json);
        Assert.Null(plan.Workload?.Contender);
    }

    [Fact]
    public void BulkReadTakesItsVariantAndAUserRangeAndMakesOneCallByDefault()
    {
        var plan = Create(new PlanText(null, null) { Workload = "bulk-read", Protocol = "grpc-code-first", Variant = "stream", Users = "20000" });

        Assert.Equal((1, BulkReadVariant.Stream, 20_000), (plan.Count, plan.Workload!.Variant, plan.Workload.Users));
    }

    [Theory]
    [InlineData("soap-calls", "rest", null, null, "workload was 'soap-calls'; it must be one of: small-ints, small-mixed, big-list, big-dto, collection, page, log-write, file-upload, bulk-read.")]
    [InlineData("small-ints", "grpc-code-first", "1.1", null, "httpVersion was '1.1' with protocol grpc-code-first; gRPC needs HTTP/2")]
    [InlineData("file-upload", "grpc", "fileBytes", "104857601", "fileBytes was '104857601'; it must be a whole number of bytes from 1024 to 104857600")]
    [InlineData("file-upload", "grpc", "fileBytes", "512", "fileBytes was '512'; it must be a whole number of bytes from 1024 to 104857600")]
    [InlineData("small-ints", "grpc", "fileBytes", "1024", "fileBytes applies to file-upload only; workload was 'small-ints'.")]
    [InlineData("small-ints", "rest", "clients", "2", "clients applies to log-write and file-upload only; workload was 'small-ints'.")]
    [InlineData("log-write", "rest", "clients", "65", "clients was '65'; it must be a whole number from 1 to 64")]
    [InlineData("big-dto", "rest", "connection", "sometimes", "connection was 'sometimes'; it must be kept or new-per-call.")]
    [InlineData("bulk-read", "rest", "variant", "stream", "variant 'stream' reads the users as one gRPC server stream; protocol was 'rest'")]
    [InlineData("bulk-read", "grpc", "variant", "shards", "variant was 'shards'; it must be pages or stream.")]
    [InlineData("bulk-read", "grpc", "users", "1500", "users was '1500'; it must be a whole number from 1000 to 1000000, a multiple of 1000.")]
    [InlineData("bulk-read", "grpc", "users", "0", "users was '0'; it must be a whole number from 1000 to 1000000, a multiple of 1000.")]
    public void ABadWorkloadRunIsRefusedSayingWhatIsAllowed(string workload, string protocol, string? setting, string? value, string expected)
    {
        var input = new PlanText(null, "5")
        {
            Workload = workload,
            Protocol = protocol,
            HttpVersion = setting == "1.1" ? "1.1" : null,
            FileBytes = setting == "fileBytes" ? value : null,
            Clients = setting == "clients" ? value : null,
            Connection = setting == "connection" ? value : null,
            Variant = setting == "variant" ? value : null,
            Users = setting == "users" ? value : null,
        };

        Assert.False(PlanText.TryCreate(input, Limits, Strategies, out _, out var error));

        Assert.StartsWith(expected, error);
    }

    [Theory]
    [InlineData("client-wrapper", null, "A workload run has no strategy: its contender (protocol, serializer, httpVersion, security) is what runs.")]
    [InlineData(null, "50", "delayMs applies to the strategies' calls; a workload's data and answers are fixed by the workload (small-ints).")]
    public void AWorkloadRunHasNoStrategyAndNoneOfTheStrategiesSettings(string? strategy, string? delayMs, string expected)
    {
        var input = new PlanText(strategy, "5", DelayMs: delayMs) { Workload = "small-ints", Protocol = "grpc" };

        Assert.False(PlanText.TryCreate(input, Limits, Strategies, out _, out var error));

        Assert.StartsWith(expected, error);
    }

    [Fact]
    public void AWorkloadFieldWithoutAWorkloadIsRefused()
    {
        Assert.False(PlanText.TryCreate(new PlanText("client-wrapper", "5") { Protocol = "rest" }, Limits, Strategies, out _, out var error));

        Assert.StartsWith("protocol applies to workload runs only; name a workload (small-ints, small-mixed,", error);
    }

    [Fact]
    public void EveryWorkloadRunsUnderEveryLoadModel()
    {
        foreach (var load in new[] { "sequential", "closed", "open", "ramping" })
        {
            var plan = Create(new PlanText(null, "20") { Workload = "small-ints", Protocol = "grpc", Load = load, Rate = load == "open" ? "100" : null, Stages = load == "ramping" ? "1:100" : null });

            Assert.Equal(load, RunPlanRules.Name(plan.Load));
        }
    }

    private static RunPlan Create(PlanText input)
    {
        Assert.True(PlanText.TryCreate(input, Limits, Strategies, out var plan, out var error), error);
        return plan;
    }
}
