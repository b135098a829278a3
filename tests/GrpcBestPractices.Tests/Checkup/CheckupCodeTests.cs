using System.Reflection;
using LoadEngine.Checkup;
using LoadEngine.Targets.Described;

namespace GrpcBestPractices.Tests.Checkup;

/// <summary>
/// Every snippet a checkup prescribes compiles against Grpc.Net.Client, for the client protoc generates from the user's
/// own contract: the built-in service's and the interop inventory's (whose generated clients this assembly holds), each
/// snippet's using directives at the top of a file and the rest as the statements of a method with <c>request</c> and <c>services</c> in scope.
/// Roslyn compiles them in the engine's compile worker (a process of its own), as it compiles a target's descriptors: it never loads here.
/// </summary>
[Trait("Category", "Process")]
public sealed class CheckupCodeTests
{
    private static readonly Uri Address = new("http://127.0.0.1:50051");

    public static TheoryData<string, string> Snippets()
    {
        var data = new TheoryData<string, string>();
        var monitor = DescribedTarget.FromGenerated([Performance.PerformanceReflection.Descriptor]);
        var inventory = DescribedTarget.FromGenerated([Interop.Inventory.InventoryReflection.Descriptor]);
        foreach (var (target, unary, stream) in new[]
        {
            (monitor, "performance.Monitor/GetPerformance", "performance.Monitor/GetManyPerformanceStats"),
            (inventory, "interop.inventory.Inventory/GetItem", "interop.inventory.Inventory/Exchange"),
        })
        {
            var names = ClientNames.Of(target.Find(unary), target.Find(stream), Address);
            foreach (var (item, code) in All(names))
            {
                data.Add($"{unary} {item}", code);
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Snippets))]
    public async Task EverySnippetCompilesAgainstGrpcNetClient(string snippet, string code)
    {
        var request = snippet.StartsWith("performance", StringComparison.Ordinal) ? "Performance.PerformanceStatusRequest" : "Interop.Inventory.ItemRequest";
        // The using directives come first, then a blank line, then the statements.
        var lines = code.Split('\n');
        var usings = lines.TakeWhile(line => line.Length > 0).ToList();
        var body = lines.Skip(usings.Count);
        Assert.All(usings, line => Assert.Matches(@"^using [A-Za-z.]+;$", line));
        var source = $$"""
            {{string.Join('\n', usings)}}
            using System;
            using System.Net.Http;
            using System.Threading;
            using System.Threading.Tasks;

            public static class Pasted
            {
                public static async Task Example(Microsoft.Extensions.DependencyInjection.IServiceCollection services, {{request}} request)
                {
            {{string.Join('\n', body)}}
                }
            }
            """;

        var problem = await Record.ExceptionAsync(() => CSharpCompiler.EmitAsync([("Pasted.cs", source)], "Snippet", CancellationToken.None, References.Value));
        Assert.True(problem is null, $"{snippet} does not compile: {problem?.Message}\n\n{source}");
    }

    [Fact]
    public void NamesAreTheOnesProtocGenerates()
    {
        var inventory = DescribedTarget.FromGenerated([Interop.Inventory.InventoryReflection.Descriptor]);
        var names = ClientNames.Of(inventory.Find("interop.inventory.Inventory/GetItem"), inventory.Find("interop.inventory.Inventory/Exchange"), Address);

        Assert.Equal(typeof(Interop.Inventory.Inventory.InventoryClient).FullName!.Replace('+', '.'), names.Client);
        Assert.Equal(typeof(Interop.Inventory.ItemRequest).FullName, names.Request);
        Assert.NotNull(typeof(Interop.Inventory.Inventory.InventoryClient).GetMethod($"{names.Method}Async", [typeof(Interop.Inventory.ItemRequest), typeof(Grpc.Core.CallOptions)]));
        Assert.NotNull(typeof(Interop.Inventory.Inventory.InventoryClient).GetMethod(names.StreamMethod!, [typeof(Grpc.Core.CallOptions)]));
        Assert.Equal("http://127.0.0.1:50051", names.Address);
    }

    private static IEnumerable<(string Item, string Code)> All(ClientNames names) =>
    [
        ("reuse-channel", CheckupCode.ReuseChannel(names)),
        ("factory-client", CheckupCode.FactoryClient(names)),
        ("capacity", CheckupCode.Capacity(names, 16)),
        ("connections", CheckupCode.Connections(names)),
        ("keep-alive", CheckupCode.KeepAlive(names, TimeSpan.FromSeconds(4))),
        ("streaming", CheckupCode.Streaming(names)),
        ("compression", CheckupCode.Compression(names)),
        ("deadline", CheckupCode.Deadline(names, 12.5)),
    ];

    // The platform's reference set, the Grpc and Google.Protobuf assemblies a project referencing Grpc.Net.Client has (here beside the tests),
    // DI's abstractions, and the assemblies holding the generated clients.
    private static readonly Lazy<IReadOnlyList<string>> References = new(() =>
    {
        var platform = ((string)AppContext.GetData("TRUSTED_PLATFORM_ASSEMBLIES")!).Split(Path.PathSeparator);
        var grpc = Directory.GetFiles(AppContext.BaseDirectory, "*.dll").Where(path => Path.GetFileName(path) is var name
            && (name.StartsWith("Grpc.", StringComparison.Ordinal) || name.StartsWith("Google.Protobuf", StringComparison.Ordinal)
                || name.StartsWith("Microsoft.Extensions.DependencyInjection.Abstractions", StringComparison.Ordinal)));
        Assembly[] generated = [typeof(Performance.Monitor.MonitorClient).Assembly, typeof(CheckupCodeTests).Assembly];
        return [.. platform.Concat(grpc).Concat(generated.Select(assembly => assembly.Location)).GroupBy(Path.GetFileName).Select(same => same.First())];
    });
}
