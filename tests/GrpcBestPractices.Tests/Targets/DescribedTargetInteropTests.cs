using System.Text.Json;
using Grpc.Core;
using Grpc.Net.Client;
using GrpcBestPractices.Tests.Infrastructure;
using LoadEngine;
using LoadEngine.Calls;
using LoadEngine.Strategies;
using LoadEngine.Targets.Described;
using Microsoft.Extensions.DependencyInjection;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.Targets;

/// <summary>
/// The engine against a service it did not write (grpc-js serving interop.inventory.Inventory): described from .proto
/// files with an import path, from a protoset and by reflection; every call kind, data in the proto3 JSON mapping with
/// ghz's templates, and the connections each strategy opens counted by the server.
/// </summary>
[Trait("Category", "Process")]
public sealed class DescribedTargetInteropTests(ITestOutputHelper output)
{
    private const string Unary = GrpcJsTarget.Service + "/GetItem";
    private const string ServerStreaming = GrpcJsTarget.Service + "/ListItems";
    private const string ClientStreaming = GrpcJsTarget.Service + "/RecordItems";
    private const string Bidirectional = GrpcJsTarget.Service + "/Exchange";

    private const string EveryField = """
        {"sku": "sku-42", "quantity": "9007199254740993", "condition": "CONDITION_REFURBISHED",
         "checkedAt": "2025-11-24T16:00:00.123Z", "note": "fragile", "photo": "AAEC/v8=", "counts": {"left": 3, "right": -4},
         "cents": "1999", "location": {"site": "north", "aisle": 7, "shelves": ["a1", "b2"]},
         "tags": [{"name": "heavy", "weight": "18446744073709551615"}, {"name": "blue"}]}
        """;

    [Fact]
    public async Task TheProtoWithItsImportPathTheProtosetAndReflectionDescribeTheSameMethods()
    {
        await using var target = await GrpcJsTarget.StartAsync(TargetSecurity.Plain, "--reflection-protoset", GrpcJsTarget.ProtosetPath);

        var fromProto = await DescribeAsync(target, new DescriptorSource([GrpcJsTarget.ProtoFile], [GrpcJsTarget.ImportDirectory], null));
        var fromProtoset = await DescribeAsync(target, new DescriptorSource([], [], GrpcJsTarget.ProtosetPath));
        var fromReflection = await DescribeAsync(target, Reflection);

        string[] methods = [Unary, ServerStreaming, ClientStreaming, Bidirectional, GrpcJsTarget.Service + "/Stats"];
        Assert.Equal(methods, fromProto.Methods.Select(m => m.Call));
        Assert.Equal(methods, fromProtoset.Methods.Select(m => m.Call));
        Assert.Equal(methods, fromReflection.Methods.Select(m => m.Call));
        Assert.Equal(
            [MethodType.Unary, MethodType.ServerStreaming, MethodType.ClientStreaming, MethodType.DuplexStreaming],
            [.. methods.Take(4).Select(call => fromReflection.Find(call).Kind)]);
    }

    [Fact]
    public async Task WithoutItsImportPathTheProtoDoesNotCompileAndTheSentenceNamesTheImport()
    {
        await using var target = await GrpcJsTarget.StartAsync();

        var problem = await Assert.ThrowsAsync<TargetDescriptionException>(() => DescribeAsync(target, new DescriptorSource([GrpcJsTarget.ProtoFile], [], null)));

        Assert.Contains("warehouse/location.proto", problem.Message);
    }

    [Fact]
    public async Task ReflectionAsStockGrpcJsServesItIsRefusedInOneSentenceThatNamesTheImportItLost()
    {
        await using var target = await GrpcJsTarget.StartAsync();

        var problem = await Assert.ThrowsAsync<TargetDescriptionException>(() => DescribeAsync(target, Reflection));

        // @grpc/reflection serves proto-loader's regenerated files, which name no imports (grpc/grpc-node#3034); grpcurl fails the same way.
        Assert.StartsWith("protoc could not write C# for the target's descriptors: interop_inventory.proto: \"google.protobuf.Timestamp\" seems to be defined in \"google_protobuf.proto\", which is not imported", problem.Message);
        Assert.EndsWith("Its descriptors do not list their imports, as grpc-js's @grpc/reflection serves them (grpc/grpc-node#3034): describe the target with its .proto files or a protoset instead.", problem.Message);
    }

    [Fact]
    public async Task ATargetWithoutReflectionIsOneSentenceThatNamesTheOtherWays()
    {
        await using var target = await GrpcJsTarget.StartAsync(TargetSecurity.Plain, "--no-reflection");

        var problem = await Assert.ThrowsAsync<TargetDescriptionException>(() => DescribeAsync(target, Reflection));

        Assert.Equal("The target does not offer server reflection (grpc.reflection.v1 or v1alpha): describe it with its .proto files or a protoset instead (the CLI's --proto or --protoset; the gateway's Targets:<name>:Proto or :Protoset).", problem.Message);
    }

    [Fact]
    public async Task V1AlphaReflectionAloneDescribesTheTarget()
    {
        await using var target = await GrpcJsTarget.StartAsync(TargetSecurity.Plain, "--reflection-v1alpha-only", "--reflection-protoset", GrpcJsTarget.ProtosetPath);

        var described = await DescribeAsync(target, Reflection);

        Assert.Equal(MethodType.Unary, described.Find(Unary).Kind);
    }

    [Fact]
    public async Task EveryCallKindRunsAndTheFirstAnswerShowsEveryFieldArrived()
    {
        await using var target = await GrpcJsTarget.StartAsync();
        var described = await DescribeAsync(target, ProtoSource);

        var unary = await RunAsync(target, Plan(described, ClientWrapperStrategy.Definition.Name, Unary, EveryField, count: 20, concurrency: 4));
        var listed = await RunAsync(target, Plan(described, ClientWrapperStrategy.Definition.Name, ServerStreaming, $$"""{"item": {{EveryField}}, "count": 3}""", count: 10));
        var recorded = await RunAsync(target, Plan(described, ClientWrapperStrategy.Definition.Name, ClientStreaming, """[{"sku": "a", "quantity": 1}, {"sku": "b", "quantity": "20"}]""", count: 10));
        var exchanged = await RunAsync(target, Plan(described, ClientWrapperStrategy.Definition.Name, Bidirectional, """[{"sku": "x"}, {"sku": "y"}]""", count: 10));
        var streamed = await RunAsync(target, Plan(described, StreamingCallStrategy.Definition.Name, Bidirectional, """{"sku": "on-one-stream"}""", count: 30));
        var stats = await target.StatsAsync();

        Assert.All([unary, listed, recorded, exchanged, streamed], run => Assert.Equal((RunState.Completed, 0L), (run.State, run.Stats!.Failed)));
        var echoed = Json(unary).GetProperty("item");
        Assert.True(JsonElement.DeepEquals(JsonDocument.Parse(EveryField).RootElement.GetProperty("location"), echoed.GetProperty("location")), echoed.GetProperty("location").GetRawText());
        Assert.Equal(("9007199254740993", "CONDITION_REFURBISHED", "2025-11-24T16:00:00.123Z", "fragile", "AAEC/v8="),
            (echoed.GetProperty("quantity").GetString(), echoed.GetProperty("condition").GetString(), echoed.GetProperty("checkedAt").GetString(), echoed.GetProperty("note").GetString(), echoed.GetProperty("photo").GetString()));
        Assert.Equal(("1999", -4, "18446744073709551615"), (echoed.GetProperty("cents").GetString(), echoed.GetProperty("counts").GetProperty("right").GetInt32(), echoed.GetProperty("tags")[0].GetProperty("weight").GetString()));
        Assert.Equal("sku-42", Json(listed).GetProperty("item").GetProperty("sku").GetString());
        Assert.Equal(("21", "[\"a\",\"b\"]"), (Json(recorded).GetProperty("totalQuantity").GetString(), Json(recorded).GetProperty("skus").GetRawText().Replace(" ", "")));
        Assert.Equal("x", Json(exchanged).GetProperty("item").GetProperty("sku").GetString());
        Assert.Equal("on-one-stream", Json(streamed).GetProperty("item").GetProperty("sku").GetString());
        Assert.Equal((20L, 10L, 10L), (stats.Methods["GetItem"].Calls, stats.Methods["ListItems"].Calls, stats.Methods["RecordItems"].Calls));
        // The streaming strategy carries its 30 messages on one Exchange call (and a warm-up may open another).
        Assert.InRange(stats.Methods["Exchange"].Calls, 11, 12);
    }

    [Fact]
    public async Task TemplatesAreRenderedPerCallInTheRequestTheServerReceives()
    {
        await using var target = await GrpcJsTarget.StartAsync();
        var described = await DescribeAsync(target, ProtoSource);
        var data = """[{"sku": "n{{.RequestNumber}}-{{.WorkerID}}", "label": "{{randomString 6}}"}, {"sku": "{{.MethodName}}", "quantity": "{{randomInt 5 6}}"}]""";

        var run = await RunAsync(target, Plan(described, ClientWrapperStrategy.Definition.Name, ClientStreaming, data, count: 1));

        var summary = Json(run);
        Assert.Equal(["n0-g0c0", "RecordItems"], summary.GetProperty("skus").EnumerateArray().Select(s => s.GetString()));
        Assert.Equal("5", summary.GetProperty("totalQuantity").GetString());
    }

    // factory-client runs at its own load, sequential: the handler AddGrpcClient makes allows more than one HTTP/2
    // connection (EnableMultipleHttp2Connections), and calls that start together on a cold channel may open two before the
    // first is up (seen once in a full run: 2 for 40 calls at 4 in flight).
    [Theory]
    [InlineData("client-wrapper", 4, 1)]
    [InlineData("single-connection", 4, 1)]
    [InlineData("factory-client", 1, 1)]
    [InlineData("initialized-client", 4, 40)]
    public async Task TheServerCountsTheConnectionsEachStrategyOpens(string strategy, int concurrency, int connections)
    {
        await using var target = await GrpcJsTarget.StartAsync();
        var described = await DescribeAsync(target, ProtoSource);

        var run = await RunAsync(target, Plan(described, strategy, Unary, """{"sku": "counted"}""", count: 40, concurrency: concurrency));

        Assert.Equal(RunState.Completed, run.State);
        var stats = await target.StatsAsync();
        Assert.Equal((40L, connections), (stats.Methods["GetItem"].Calls, stats.Methods["GetItem"].Peers.Count));
    }

    [Fact]
    public async Task MultipleConnectionsOpensMoreThanOneWhenTheServersStreamLimitIsReached()
    {
        await using var target = await GrpcJsTarget.StartAsync(TargetSecurity.Plain, "--max-concurrent-streams", "100");
        var described = await DescribeAsync(target, ProtoSource);
        var slow = """{"sku": "held", "delayMs": 200}""";

        var single = await RunAsync(target, Plan(described, "single-connection", Unary, slow, count: 300, concurrency: 150));
        var singleStats = (await target.StatsAsync(reset: true)).Methods["GetItem"];
        var multiple = await RunAsync(target, Plan(described, "multiple-connections", Unary, slow, count: 300, concurrency: 150));
        var multipleStats = (await target.StatsAsync()).Methods["GetItem"];
        output.WriteLine($"single-connection: {singleStats.Peers.Count} connection(s), {singleStats.MaxInFlight} in flight at most, {single.Stats!.ThroughputPerSecond:F0} calls/s");
        output.WriteLine($"multiple-connections: {multipleStats.Peers.Count} connection(s), {multipleStats.MaxInFlight} in flight at most, {multiple.Stats!.ThroughputPerSecond:F0} calls/s");

        Assert.Equal((RunState.Completed, RunState.Completed), (single.State, multiple.State));
        Assert.Equal((1, 100), (singleStats.Peers.Count, singleStats.MaxInFlight));
        Assert.True(multipleStats.Peers.Count > 1, $"multiple-connections used {multipleStats.Peers.Count} connection(s)");
        Assert.True(multipleStats.MaxInFlight > 100, $"{multipleStats.MaxInFlight} calls in flight at most");
    }

    // Neither .proto files nor a protoset: the target's own server reflection.
    private static DescriptorSource Reflection { get; } = new([], [], null);

    private static DescriptorSource ProtoSource { get; } = new([GrpcJsTarget.ProtoFile], [GrpcJsTarget.ImportDirectory], null);

    private static async Task<DescribedTarget> DescribeAsync(GrpcJsTarget target, DescriptorSource source)
    {
        using var channel = target.Channel();
        return await DescribedTarget.DescribeAsync(source, channel.CreateCallInvoker(), default);
    }

    private static RunPlan Plan(DescribedTarget described, string strategy, string call, string data, int count, int concurrency = 1) => new()
    {
        Strategy = strategy,
        Load = concurrency == 1 ? LoadKind.Sequential : LoadKind.Closed,
        Count = count,
        Concurrency = concurrency,
        Called = new MethodCall { Call = call, Data = data, Descriptors = described.DescriptorSet, DescriptorSet = described.Hash },
    };

    private static JsonElement Json(RunRecord run) => JsonDocument.Parse(run.Stats!.FirstAnswer!).RootElement;

    /// <summary>One run as the hosts run it: the engine and its strategies from DI, calling the target's address, a scope per run.</summary>
    private static async Task<RunRecord> RunAsync(GrpcJsTarget target, RunPlan plan)
    {
        var services = new ServiceCollection();
        services.AddLogging();
        services.AddLoadEngine();
        services.Configure<EngineOptions>(engine => engine.ServerUri = target.Address);
        await using var provider = services.BuildServiceProvider();
        await using var scope = provider.CreateAsyncScope();
        using var calls = await scope.ServiceProvider.GetRequiredService<RunCallsFactory>().CreateAsync(plan, CancellationToken.None);
        var run = await provider.GetRequiredService<RunEngine>().ExecuteAsync(
            calls, new RunRecord(Guid.NewGuid(), plan, RunState.Running, DateTimeOffset.UtcNow, null, null, null, null), new LiveRun(), CancellationToken.None);
        Assert.True(run.Error is null, run.Error);
        return run;
    }
}
