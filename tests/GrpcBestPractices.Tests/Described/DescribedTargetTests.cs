using System.Diagnostics;
using Google.Protobuf;
using Grpc.Core;
using GrpcBestPractices.Tests.Described.Shop;
using GrpcBestPractices.Tests.Infrastructure;
using GrpcBestPractices.Tests.WorkloadService;
using LoadEngine;
using LoadEngine.Calls;
using LoadEngine.Targets.Described;
using Microsoft.Extensions.DependencyInjection;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.Described;

/// <summary>
/// The descriptor path with its real parts: the shipped protoc compiles .proto files (the well-known types found without
/// the user's help) and writes C# that Roslyn compiles; a protoset describes the same; server reflection describes the
/// running PerformanceService; and the engine loads its methods through descriptors alone, as it loads them through the
/// generated stubs, with the connections the strategy promises.
/// </summary>
[Collection(WorkloadServiceCollection.Name)]
[Trait("Category", "Process")]
public sealed class DescribedTargetTests(WorkloadServiceFixture service, ITestOutputHelper output)
{
    private static readonly string ShopProto = Path.Combine(AppProcess.RepositoryRoot, "tests", "GrpcBestPractices.Tests", "Described", "shop.proto");

    [Fact]
    public async Task ProtoFilesCompileWithTheShippedProtocAndEncodeAsTheGeneratedClassesDo()
    {
        var started = Stopwatch.GetTimestamp();
        var target = await DescribedTarget.DescribeAsync(new DescriptorSource([ShopProto], [], null), null, default);
        output.WriteLine($"shop.proto: protoc, protoc --csharp_out and Roslyn: {Stopwatch.GetElapsedTime(started).TotalMilliseconds:0} ms (the process's first compile)");
        started = Stopwatch.GetTimestamp();
        await DescribedTarget.DescribeAsync(new DescriptorSource([Path.Combine(AppProcess.RepositoryRoot, "GrpcDependencies", "Protos", "performance.proto")], [], null), null, default);
        output.WriteLine($"performance.proto: the same with Roslyn warm: {Stopwatch.GetElapsedTime(started).TotalMilliseconds:0} ms");

        Assert.Equal(["shop.v1.Orders/Place", "shop.v1.Orders/Track", "shop.v1.Orders/Upload", "shop.v1.Orders/Chat"], target.Methods.Select(method => method.Call));
        var place = target.Find("shop.v1.Orders/Place");
        var request = CallData.Parse(place, """{"orderId":"o-1","customerId":"7","size":"SIZE_LARGE","placedAt":"2025-01-02T03:04:05Z","note":"n","stock":{"a":1},"voucher":{"sku":"v"}}""").Request(0, "g0c0");
        // The compiled type is not the test's generated one, yet both encode the same bytes.
        Assert.NotEqual(typeof(Order), request.GetType());
        var reference = Order.Parser.ParseJson("""{"orderId":"o-1","customerId":"7","size":"SIZE_LARGE","placedAt":"2025-01-02T03:04:05Z","note":"n","stock":{"a":1},"voucher":{"sku":"v"}}""");
        Assert.Equal(reference.ToByteArray(), request.ToByteArray());
        Assert.Same(target, await DescribedTarget.FromDescriptorSetAsync(target.DescriptorSet, CancellationToken.None));
    }

    [Fact]
    public async Task AProtosetDescribesTheSameMethodsAndAProtoThatDoesNotCompileIsASentenceQuotingProtoc()
    {
        using var folder = new TemporaryFolder();
        var described = await DescribedTarget.DescribeAsync(new DescriptorSource([ShopProto], [], null), null, default);
        var protoset = Path.Combine(folder.Path, "shop.protoset");
        await File.WriteAllBytesAsync(protoset, described.DescriptorSet);
        var broken = Path.Combine(folder.Path, "broken.proto");
        await File.WriteAllTextAsync(broken, "syntax = \"proto3\";\nmessage A { strin name = 1; }\n");

        var fromSet = await DescribedTarget.DescribeAsync(new DescriptorSource([], [], protoset), null, default);
        var problem = await Assert.ThrowsAsync<TargetDescriptionException>(() => DescribedTarget.DescribeAsync(new DescriptorSource([broken], [], null), null, default));

        Assert.Equal(described.Methods.Select(method => method.Call), fromSet.Methods.Select(method => method.Call));
        Assert.StartsWith("protoc could not compile broken.proto: ", problem.Message);
        Assert.Contains("broken.proto:2:13: \"strin\" is not defined.", problem.Message);
    }

    [Fact]
    public async Task ServerReflectionDescribesTheBuiltInService()
    {
        var target = await DescribedTarget.DescribeAsync(new DescriptorSource([], [], null), service.Channel(Route.H2c).CreateCallInvoker(), default);

        Assert.Equal(MethodType.Unary, target.Find("performance.Monitor/GetPerformance").Kind);
        Assert.Equal(MethodType.DuplexStreaming, target.Find("performance.Monitor.GetManyPerformanceStats").Kind);
        Assert.DoesNotContain(target.Methods, method => method.Call.StartsWith("grpc.reflection.", StringComparison.Ordinal));
    }

    [Theory]
    [InlineData("client-wrapper", "performance.Monitor/GetPerformance", 1, 1)]
    [InlineData("initialized-client", "performance.Monitor/GetPerformance", 12, 1)]
    [InlineData("streaming-call", "performance.Monitor/GetManyPerformanceStats", 1, 1)]
    // A whole bidirectional call sends the data's three messages and reads the three answers to its end.
    [InlineData("client-wrapper", "performance.Monitor/GetManyPerformanceStats", 1, 3)]
    public async Task TheEngineLoadsTheBuiltInServiceThroughItsDescriptorsWithTheStrategysConnections(string strategy, string call, int connections, int answersPerCall)
    {
        var target = await DescribedTarget.DescribeAsync(new DescriptorSource([], [], null), service.Channel(Route.H2c).CreateCallInvoker(), default);
        var plan = new RunPlan
        {
            Strategy = strategy,
            Load = LoadKind.Sequential,
            Count = 12,
            Warmup = 2,
            Called = new MethodCall
            {
                Call = call,
                Data = answersPerCall == 1
                    ? """{"clientName":"described #{{.RequestNumber}}","payloadBytes":"8"}"""
                    : """[{"clientName":"a","payloadBytes":8},{"clientName":"b","payloadBytes":8},{"clientName":"c","payloadBytes":8}]""",
                Descriptors = target.DescriptorSet,
                DescriptorSet = target.Hash,
            },
        };

        var run = await RunAsync(plan);

        Assert.True(run.State == RunState.Completed, $"{run.State}: {run.Error}");
        Assert.Equal((12L, 0L), (run.Stats!.Succeeded, run.Stats.Failed));
        Assert.Equal(connections, run.Stats.ConnectionsUsed);
        Assert.Equal(answersPerCall, run.Stats.AnswersPerCall);
        // The first answer, as JSON: the data's payloadBytes came back as 8 random bytes, on a connection the service named.
        var answer = System.Text.Json.JsonDocument.Parse(run.Stats.FirstAnswer!).RootElement;
        Assert.Equal(8, Convert.FromBase64String(answer.GetProperty("dataLoad1").GetString()!).Length);
        Assert.False(string.IsNullOrEmpty(answer.GetProperty("connectionId").GetString()));
    }

    /// <summary>One run as the hosts run it: the engine and its strategies from DI, a scope per run, the calls made from the plan.</summary>
    private async Task<RunRecord> RunAsync(RunPlan plan)
    {
        var services = new ServiceCollection();
        services.AddLogging();
        services.AddLoadEngine();
        services.Configure<EngineOptions>(engine => engine.ServerUri = service.H2c);
        await using var provider = services.BuildServiceProvider();
        await using var scope = provider.CreateAsyncScope();
        using var calls = await scope.ServiceProvider.GetRequiredService<RunCallsFactory>().CreateAsync(plan, CancellationToken.None);
        return await provider.GetRequiredService<RunEngine>().ExecuteAsync(
            calls, new RunRecord(Guid.NewGuid(), plan, RunState.Running, DateTimeOffset.UtcNow, null, null, null, null), new LiveRun(), CancellationToken.None);
    }
}
