using System.Runtime.CompilerServices;
using System.Runtime.Loader;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using Grpc.Core;
using Grpc.Net.Client;
using GrpcBestPractices.Tests.Infrastructure;
using LoadEngine.Targets.Described;

namespace GrpcBestPractices.Tests.Described;

/// <summary>
/// A compiled set lives as long as its target: its classes are in a collectible load context that goes once nothing holds
/// the target, even after an answer with an enum was formatted as JSON and a channel kept for the app's life called its
/// method. One set is compiled once however many ask at the same time; the describe's budget covers the compiler; the
/// CLI's cache on disk is written, and an image in it that no longer loads is made again. Process-tagged: protoc runs.
/// </summary>
[Trait("Category", "Process")]
public sealed class CompiledSetLifetimeTests
{
    // A channel kept for the test process's life, as a strategy keeps one for the app's: it caches every method it calls.
    private static readonly GrpcChannel Kept = GrpcChannel.ForAddress($"http://127.0.0.1:{Ports.Unused()}");

    [Fact]
    public void AReplacedSetsClassesAreUnloadedOnceNothingHoldsItsTarget()
    {
        var context = CompileUseAndLetGo(null);

        for (var attempt = 0; context.IsAlive && attempt < 50; attempt++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }

        Assert.False(context.IsAlive, "the set's compiled classes are still loaded after its target was let go");
    }

    [Fact]
    public async Task ASetIsCompiledOnceWhenManyAskForItAtOnce()
    {
        var set = UniqueSet();

        var targets = await Task.WhenAll(Enumerable.Range(0, 4).Select(_ => Task.Run(() => DescribedTarget.FromDescriptorSetAsync(set, CancellationToken.None))));

        Assert.All(targets, target => Assert.Same(targets[0], target));
        Assert.Same(targets[0], DescribedTarget.WithHash(targets[0].Hash));
        Assert.True(targets[0].Methods[0].Descriptor.InputType.ClrType.IsCollectible);
    }

    [Fact]
    public async Task ACompileStoppedByTheCallerWhoStartedItDoesNotFailAnotherWaitingForTheSameSet()
    {
        var set = UniqueSet();
        using var first = new CancellationTokenSource();

        var stopped = DescribedTarget.FromDescriptorSetAsync(set, first.Token);
        var joined = DescribedTarget.FromDescriptorSetAsync(set, CancellationToken.None);
        await first.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => stopped);
        Assert.EndsWith(".Probe/Call", (await joined).Methods.Single().Call);
    }

    [Fact]
    public async Task TheDescribesBudgetCoversTheCompilerAndIsOneSentence()
    {
        using var folder = new TemporaryFolder();
        var protoset = folder.File("unique.protoset");
        await File.WriteAllBytesAsync(protoset, UniqueSet());

        var problem = await Assert.ThrowsAsync<TargetDescriptionException>(() =>
            DescribedTarget.DescribeAsync(new DescriptorSource([], [], protoset), null, default, budget: TimeSpan.FromMilliseconds(1)));

        Assert.StartsWith("Describing the target took longer than 0 seconds, the most reflection, protoc and the compiler may take together", problem.Message);
    }

    [Fact]
    public async Task TheCacheOnDiskKeepsTheImageAndOneThatNoLongerLoadsIsMadeAgain()
    {
        using var folder = new TemporaryFolder();
        var cache = new CompiledSetCache(folder.Path);
        var set = UniqueSet();

        var context = CompileUseAndLetGo(cache, set);
        var image = Assert.Single(Directory.GetFiles(folder.Path, "*.dll"));
        Assert.StartsWith(DescriptorAllowlist.Rebuild(set).Hash, Path.GetFileName(image));
        for (var attempt = 0; context.IsAlive && attempt < 50; attempt++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }

        var length = new FileInfo(image).Length;
        await File.WriteAllBytesAsync(image, [1, 2, 3]);
        var again = await DescribedTarget.FromDescriptorSetAsync(set, CancellationToken.None, cache);

        Assert.EndsWith(".Probe/Call", again.Methods[0].Call);
        Assert.Equal(length, new FileInfo(image).Length);
    }

    /// <summary>Compiles a set of its own, uses it as a run does, and returns only a weak reference to one of its compiled types.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static WeakReference CompileUseAndLetGo(CompiledSetCache? cache, byte[]? set = null)
    {
        var target = DescribedTarget.FromDescriptorSetAsync(set ?? UniqueSet(), CancellationToken.None, cache).GetAwaiter().GetResult();
        var method = target.Methods.Single();
        var request = CallData.Parse(method, """{"size": "SIZE_LARGE", "name": "n"}""").Request(0, "g0c0");
        Assert.Contains("SIZE_LARGE", JsonFormatter.Default.Format(request));
        var call = Kept.CreateCallInvoker().AsyncUnaryCall(method.Method, null, new CallOptions(deadline: DateTime.UtcNow.AddSeconds(5)), request);
        Assert.ThrowsAny<RpcException>(() => call.ResponseAsync.GetAwaiter().GetResult());
        call.Dispose();
        var type = method.Descriptor.InputType.ClrType;
        Assert.True(AssemblyLoadContext.GetLoadContext(type.Assembly)?.IsCollectible);
        // The compiled type itself: the load context's own object may go while a type of it is still held.
        return new WeakReference(type);
    }

    /// <summary>A set no other test compiles: a package of its own with an enum, a message and a unary method.</summary>
    internal static byte[] UniqueSet()
    {
        var package = $"unique{Guid.NewGuid():N}";
        var file = new FileDescriptorProto { Name = $"{package}.proto", Package = package, Syntax = "proto3" };
        file.EnumType.Add(new EnumDescriptorProto { Name = "Size", Value = { new EnumValueDescriptorProto { Name = "SIZE_UNSPECIFIED", Number = 0 }, new EnumValueDescriptorProto { Name = "SIZE_LARGE", Number = 1 } } });
        file.MessageType.Add(new DescriptorProto
        {
            Name = "Request",
            Field =
            {
                new FieldDescriptorProto { Name = "size", Number = 1, Type = FieldDescriptorProto.Types.Type.Enum, TypeName = $".{package}.Size", JsonName = "size" },
                new FieldDescriptorProto { Name = "name", Number = 2, Type = FieldDescriptorProto.Types.Type.String, JsonName = "name" },
            },
        });
        file.Service.Add(new ServiceDescriptorProto { Name = "Probe", Method = { new MethodDescriptorProto { Name = "Call", InputType = $".{package}.Request", OutputType = $".{package}.Request" } } });
        var set = new FileDescriptorSet();
        set.File.Add(file);
        return set.ToByteArray();
    }
}
