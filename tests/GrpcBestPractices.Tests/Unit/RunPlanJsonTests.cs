using System.Text.Json;
using LoadEngine.Protocols;
using LoadEngine.Strategies;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>
/// A plan's called part is one of three kinds in C#, and its JSON stays flat: each line below is what main serialized
/// before the part existed (answers, events, exports, agents' plans and stored histories hold it so), read and written
/// back byte for byte, and made again from the same input.
/// </summary>
public sealed class RunPlanJsonTests
{
    private const string Set = "039058C6F2C0CB492C533B0A4D14EF77CC0F78ABCCCED5287D84A1A2011CFB81";

    public static TheoryData<string, string> StoredPlans => new()
    {
        { "built-in", """{"strategy":"client-wrapper","load":"sequential","count":1000,"duration":null,"concurrency":1,"rate":null,"stages":null,"warmup":10,"delayMs":5,"payloadBytes":4096,"includeStatuses":true,"percentiles":[50,75,90,95,99,99.9,99.99],"thresholds":["p99 \u003C 5ms"]}""" },
        { "open", """{"strategy":"factory-client","load":"open","count":null,"duration":10,"concurrency":1000,"rate":2500,"stages":null,"warmup":0,"delayMs":0,"payloadBytes":100,"includeStatuses":false,"percentiles":[50,99.9],"thresholds":[]}""" },
        { "ramping-agents", """{"strategy":"client-wrapper","load":"ramping","count":null,"duration":null,"concurrency":1000,"rate":null,"stages":[{"duration":10,"target":5000},{"duration":20,"target":5000}],"warmup":0,"delayMs":0,"payloadBytes":100,"includeStatuses":false,"percentiles":[50,75,90,95,99,99.9,99.99],"thresholds":[],"agents":2,"shard":{"index":1,"count":2}}""" },
        { "workload", """{"strategy":"rest-newtonsoft-h2-tls","load":"sequential","count":200,"duration":null,"concurrency":1,"rate":null,"stages":null,"warmup":20,"delayMs":0,"payloadBytes":100,"includeStatuses":false,"percentiles":[50,75,90,95,99,99.9,99.99],"thresholds":[],"workload":"file-upload","protocol":"rest","serializer":"newtonsoft","httpVersion":"2","security":"tls","fileBytes":1048576,"clients":8}""" },
        { "bulk", """{"strategy":"grpc-h2-cleartext","load":"sequential","count":5,"duration":null,"concurrency":1,"rate":null,"stages":null,"warmup":0,"delayMs":0,"payloadBytes":100,"includeStatuses":false,"percentiles":[50,75,90,95,99,99.9,99.99],"thresholds":[],"workload":"bulk-read","protocol":"grpc","serializer":"protobuf","httpVersion":"2","security":"cleartext","variant":"stream","users":20000}""" },
        { "comparison", """{"strategy":"big-dto","load":"sequential","count":200,"duration":null,"concurrency":1,"rate":null,"stages":null,"warmup":0,"delayMs":0,"payloadBytes":100,"includeStatuses":false,"percentiles":[50,75,90,95,99,99.9,99.99],"thresholds":[],"workload":"big-dto","connection":"kept"}""" },
        { "described", """{"strategy":"streaming-call","load":"closed","count":401,"duration":null,"concurrency":401,"rate":null,"stages":null,"warmup":10,"delayMs":0,"payloadBytes":100,"includeStatuses":true,"percentiles":[50,75,90,95,99,99.9,99.99],"thresholds":[],"target":"inventory","call":"inventory.Stock/Get","data":"[{\u0022sku\u0022: \u0022A-{{.RequestNumber}}\u0022},{\u0022sku\u0022:\u0022B\u0022}]","descriptorSet":"039058C6F2C0CB492C533B0A4D14EF77CC0F78ABCCCED5287D84A1A2011CFB81"}""" },
        { "described-built-in", """{"strategy":"client-wrapper","load":"closed","count":null,"duration":2.5,"concurrency":4,"rate":null,"stages":null,"warmup":0,"delayMs":0,"payloadBytes":100,"includeStatuses":false,"percentiles":[50,75,90,95,99,99.9,99.99],"thresholds":[],"call":"performance.Monitor/GetPerformance"}""" },
    };

    [Theory]
    [MemberData(nameof(StoredPlans))]
    public void AStoredPlanIsReadAndWrittenBackByteForByte(string kind, string json)
    {
        var plan = JsonSerializer.Deserialize<RunPlan>(json, RunJson.Options)!;

        Assert.Equal(json, JsonSerializer.Serialize(plan, RunJson.Options));
        Assert.IsType(kind switch
        {
            "workload" or "bulk" or "comparison" => typeof(WorkloadContender),
            "described" or "described-built-in" => typeof(MethodCall),
            _ => typeof(BuiltInCall),
        }, plan.Called);
    }

    [Theory]
    [MemberData(nameof(StoredPlans))]
    public void APlanMadeFromTheSameInputHasTheSameJson(string kind, string json)
    {
        var input = kind switch
        {
            "built-in" => new RunPlanInput("client-wrapper", 1000) { Warmup = 10, DelayMs = 5, PayloadBytes = 4096, Thresholds = ["p99 < 5ms"] },
            "open" => new RunPlanInput("factory-client", null) { Load = LoadKind.Open, Rate = 2500, Duration = 10, Percentiles = [50, 99.9] },
            "ramping-agents" => new RunPlanInput("client-wrapper", null) { Load = LoadKind.Ramping, Stages = [new RampStage(10, 5000), new RampStage(20, 5000)] },
            "workload" => new RunPlanInput(null, 200)
            {
                Warmup = 20,
                Workload = "file-upload", Protocol = ApiProtocol.Rest, Serializer = PayloadSerializer.Newtonsoft, HttpVersion = WireVersion.Http2, Security = WireSecurity.Tls,
                FileBytes = 1048576, Clients = 8,
            },
            "bulk" => new RunPlanInput(null, 5) { Workload = "bulk-read", Protocol = ApiProtocol.Grpc, Variant = BulkReadVariant.Stream, Users = 20000 },
            "comparison" => new RunPlanInput(null, 200) { Workload = "big-dto", Protocol = ApiProtocol.Grpc },
            "described" => new RunPlanInput("streaming-call", 401)
            {
                Warmup = 10,
                Target = "inventory", Call = " inventory.Stock/Get ", Data = """[{"sku": "A-{{.RequestNumber}}"},{"sku":"B"}]""",
            },
            _ => new RunPlanInput("client-wrapper", null, Concurrency: 4) { Load = LoadKind.Closed, Duration = 2.5, Call = "performance.Monitor/GetPerformance", IncludeStatuses = false },
        };

        Assert.True(RunPlanRules.TryCreate(input, PlanLimits.Defaults, StrategyList.Names, out var plan, out var error), error);
        plan = kind switch
        {
            // As a distributed run's share, a comparison's view and a described target's plan are made from the plan.
            "ramping-agents" => plan with { Agents = 2, Shard = new AgentShard(1, 2) },
            "comparison" => plan with { Strategy = "big-dto", Called = plan.Workload! with { Contender = null } },
            "described" => plan with { Called = plan.Described! with { Descriptors = [1, 2, 3], DescriptorSet = Set } },
            _ => plan,
        };

        Assert.Equal(json, JsonSerializer.Serialize(plan, RunJson.Options));
    }

    [Fact]
    public void APlanStoredWithItsDescriptorsInlineIsReadWithoutThem()
    {
        var json = """{"strategy":"client-wrapper","count":10,"call":"inventory.Stock/Get","descriptors":"AQID"}""";

        var call = Assert.IsType<MethodCall>(JsonSerializer.Deserialize<RunPlan>(json, RunJson.Options)!.Called);

        Assert.Equal(("inventory.Stock/Get", null, null), (call.Call, call.Descriptors, call.DescriptorSet));
    }

    [Fact]
    public void ADescribedCallsDataIsSplitIntoItsMessagesOnceWhenThePlanIsMade()
    {
        var input = new RunPlanInput("client-wrapper", 10) { Call = "inventory.Stock/Get", Data = """[{"sku": "A"}, {"sku": "{{.RequestNumber}}"}]""" };

        Assert.True(RunPlanRules.TryCreate(input, PlanLimits.Defaults, StrategyList.Names, out var plan, out var error), error);

        Assert.Equal(["""{"sku": "A"}""", """{"sku": "{{.RequestNumber}}"}"""], plan.Described!.Messages.Texts);
        // A copy with other data splits its own.
        Assert.Single((plan.Described with { Data = """{"sku": "C"}""" }).Messages.Texts);
    }

    [Fact]
    public void EachOfThePlansSettingsIsWrittenByItsTypeInTheOrderItIsDeclaredWithTheCalledPartsFieldsWhereTheyHaveAlwaysBeen()
    {
        var plan = new RunPlan { Strategy = "client-wrapper", Count = 3, Warmup = 2, Agents = 2 };

        var names = JsonDocument.Parse(JsonSerializer.Serialize(plan, RunJson.Options)).RootElement.EnumerateObject().Select(field => field.Name).ToList();

        Assert.Equal(
            ["strategy", "load", "count", "duration", "concurrency", "rate", "stages", "warmup", "delayMs", "payloadBytes", "includeStatuses", "percentiles", "thresholds", "agents"],
            names);
        Assert.Equal(RunPlanJson.Settings.Select(setting => JsonNamingPolicy.CamelCase.ConvertName(setting.Name)), names.Except(["delayMs", "payloadBytes"]).Append("shard"));
    }

    [Theory]
    [InlineData(nameof(WrittenCases.Always), null, true)]
    [InlineData(nameof(WrittenCases.Always), 0, true)]
    [InlineData(nameof(WrittenCases.NotWhenNull), null, false)]
    [InlineData(nameof(WrittenCases.NotWhenNull), 0, true)]
    [InlineData(nameof(WrittenCases.NotWhenDefault), 0, false)]
    [InlineData(nameof(WrittenCases.NotWhenDefault), 5, true)]
    [InlineData(nameof(WrittenCases.Text), "", true)]
    public void ASettingIsLeftOutOnlyWhenItsJsonIgnoreSays(string property, object? value, bool written) =>
        Assert.Equal(written, RunPlanJson.Written(typeof(WrittenCases).GetProperty(property)!, value));

    /// <summary>One property per way a plan's setting may be marked.</summary>
    private sealed class WrittenCases
    {
        [System.Text.Json.Serialization.JsonIgnore(Condition = System.Text.Json.Serialization.JsonIgnoreCondition.Never)]
        public int? Always { get; init; }

        public int? NotWhenNull { get; init; }

        [System.Text.Json.Serialization.JsonIgnore(Condition = System.Text.Json.Serialization.JsonIgnoreCondition.WhenWritingDefault)]
        public int NotWhenDefault { get; init; }

        [System.Text.Json.Serialization.JsonIgnore(Condition = System.Text.Json.Serialization.JsonIgnoreCondition.WhenWritingDefault)]
        public string Text { get; init; } = "";
    }
}
