using Google.Protobuf;
using Google.Protobuf.Reflection;
using Google.Protobuf.WellKnownTypes;
using Grpc.Core;
using Grpc.Net.Client;
using Grpc.Reflection.V1Alpha;
using GrpcBestPractices.Tests.Infrastructure;
using Interop.Inventory;

namespace GrpcBestPractices.Tests.Targets;

/// <summary>
/// The grpc-js target the issue 22 tests load (tests/interop/grpc-js-target.js), proved with a plain grpc-dotnet client:
/// it answers the four call kinds echoing every field, describes itself by reflection, serves TLS and mTLS with the
/// fixture's certificates, and counts on its side the connections each method was called on.
/// </summary>
[Trait("Category", "Process")]
public sealed class GrpcJsTargetTests
{
    [Fact]
    public async Task ItAnswersTheFourCallKindsEchoingEveryFieldItReceived()
    {
        await using var target = await GrpcJsTarget.StartAsync();
        using var channel = target.Channel();
        var client = new Inventory.InventoryClient(channel);
        var item = EveryField();

        var unary = await client.GetItemAsync(item);
        var listed = await ReadAllAsync(client.ListItems(new ListRequest { Item = item, Count = 5 }).ResponseStream);
        var summary = await RecordAsync(client, [Item("a", 1), Item("b", 20), Item("c", 300)]);
        var exchanged = await ExchangeAsync(client, [Item("x", 1), Item("y", 2), Item("z", 3)]);

        Assert.Equal(item, unary.Item);
        Assert.Equal([0, 1, 2, 3, 4], listed.Select(reply => reply.Index));
        Assert.All(listed, reply => Assert.Equal(item, reply.Item));
        Assert.Equal((3, 321L), (summary.Count, summary.TotalQuantity));
        Assert.Equal(["a", "b", "c"], summary.Skus);
        Assert.Equal([(0, "x"), (1, "y"), (2, "z")], exchanged.Select(reply => (reply.Index, reply.Item.Sku)));
    }

    [Fact]
    public async Task ItEchoesTheCallsMetadataWithBinaryKeysDecodedAndThePeerAndAuthority()
    {
        await using var target = await GrpcJsTarget.StartAsync();
        using var channel = target.Channel();
        var client = new Inventory.InventoryClient(channel);
        var metadata = new Metadata { { "tenant", "acme" }, { "trace-bin", new byte[] { 0xde, 0xad, 0xbe, 0xef } } };

        var reply = await client.GetItemAsync(Item("sku-1", 1), metadata);

        Assert.Equal("acme", reply.Metadata["tenant"]);
        Assert.Equal([0xde, 0xad, 0xbe, 0xef], reply.BinaryMetadata["trace-bin"].ToByteArray());
        Assert.Matches(@"^127\.0\.0\.1:\d+$", reply.Peer);
        Assert.Equal(target.Address.Authority, reply.Authority);
        Assert.Equal(string.Empty, reply.ClientCertificate);
    }

    [Fact]
    public async Task ReflectionListsTheServiceWithTheDescriptorsProtoLoaderRegeneratesWhichLoseTheImports()
    {
        await using var target = await GrpcJsTarget.StartAsync();
        using var channel = target.Channel();
        var reflection = new ServerReflection.ServerReflectionClient(channel);

        var services = await AskAsync(reflection, new ServerReflectionRequest { ListServices = string.Empty });
        var files = await DescribeAsync(reflection);

        Assert.Contains(GrpcJsTarget.Service, services.ListServicesResponse.Service.Select(s => s.Name));
        // @grpc/reflection as grpc-js users run it (grpc/grpc-node#3034): one file per package, no imports named, map entries named after the field.
        Assert.Equal(["google_protobuf.proto", "interop_inventory.proto", "warehouse.proto"], files.Keys.Order());
        Assert.Empty(files["interop_inventory.proto"].Dependency);
        Assert.Equal("Counts", files["interop_inventory.proto"].MessageType.Single(m => m.Name == "ItemRequest").NestedType.Single(n => n.Options?.MapEntry == true).Name);
    }

    [Fact]
    public async Task ReflectionFromTheProtosetServesProtocsFilesWithTheirImports()
    {
        await using var target = await GrpcJsTarget.StartAsync(TargetSecurity.Plain, "--reflection-protoset", GrpcJsTarget.ProtosetPath);
        using var channel = target.Channel();

        var files = await DescribeAsync(new ServerReflection.ServerReflectionClient(channel));

        Assert.Equal(["google/protobuf/timestamp.proto", "google/protobuf/wrappers.proto", "warehouse/location.proto"], files["inventory.proto"].Dependency.Order());
        Assert.Equal(["GetItem", "ListItems", "RecordItems", "Exchange", "Stats"], files["inventory.proto"].Service.Single().Method.Select(m => m.Name));
        Assert.Contains("warehouse/location.proto", files.Keys);
    }

    [Fact]
    public async Task ReflectionCanBeLeftOutOrOfferedOnlyAsV1Alpha()
    {
        await using var without = await GrpcJsTarget.StartAsync(TargetSecurity.Plain, "--no-reflection");
        await using var alphaOnly = await GrpcJsTarget.StartAsync(TargetSecurity.Plain, "--reflection-v1alpha-only");
        using var withoutChannel = without.Channel();
        using var alphaChannel = alphaOnly.Channel();
        var list = new ServerReflectionRequest { ListServices = string.Empty };

        var missing = await Assert.ThrowsAsync<RpcException>(() => AskAsync(new ServerReflection.ServerReflectionClient(withoutChannel), list));
        var alpha = await AskAsync(new ServerReflection.ServerReflectionClient(alphaChannel), list);
        var v1 = await Assert.ThrowsAsync<RpcException>(() => AskAsync(new ServerReflection.ServerReflectionClient(new V1Invoker(alphaChannel)), list));

        Assert.Equal(StatusCode.Unimplemented, missing.StatusCode);
        Assert.Contains(GrpcJsTarget.Service, alpha.ListServicesResponse.Service.Select(s => s.Name));
        Assert.Equal(StatusCode.Unimplemented, v1.StatusCode);
    }

    [Fact]
    public async Task TlsAnswersAClientThatTrustsItsAuthorityAndOnlyThen()
    {
        await using var target = await GrpcJsTarget.StartAsync(TargetSecurity.Tls);
        using var trusting = target.Channel();
        using var untrusting = GrpcChannel.ForAddress(target.Url);

        var reply = await new Inventory.InventoryClient(trusting).GetItemAsync(Item("tls", 1));
        var refused = await Assert.ThrowsAsync<RpcException>(() => new Inventory.InventoryClient(untrusting).GetItemAsync(Item("tls", 1)).ResponseAsync);

        Assert.StartsWith("https://127.0.0.1:", target.Url);
        Assert.Equal("tls", reply.Item.Sku);
        // grpc-dotnet reports a failed TLS handshake as Internal.
        Assert.Equal(StatusCode.Internal, refused.StatusCode);
    }

    [Fact]
    public async Task MutualTlsAnswersTheClientItsAuthoritySignedAndRefusesOneWithoutACertificateOrWithAStrangers()
    {
        await using var target = await GrpcJsTarget.StartAsync(TargetSecurity.MutualTls);
        var certificates = target.Certificates!;
        using var signed = target.Channel();
        using var anonymous = target.Channel(presentClientCertificate: false);
        using var stranger = GrpcChannel.ForAddress(target.Url, new GrpcChannelOptions { HttpHandler = certificates.Handler(certificates.StrangerCertificatePath, certificates.StrangerKeyPath) });

        var reply = await new Inventory.InventoryClient(signed).GetItemAsync(Item("mtls", 1));
        var withoutCertificate = await Assert.ThrowsAsync<RpcException>(() => new Inventory.InventoryClient(anonymous).GetItemAsync(Item("mtls", 1)).ResponseAsync);
        var withStrangers = await Assert.ThrowsAsync<RpcException>(() => new Inventory.InventoryClient(stranger).GetItemAsync(Item("mtls", 1)).ResponseAsync);

        Assert.Equal(InteropCertificates.ClientName, reply.ClientCertificate);
        Assert.Equal(StatusCode.Unavailable, withoutCertificate.StatusCode);
        Assert.Equal(StatusCode.Unavailable, withStrangers.StatusCode);
        Assert.Equal(1, await target.PeersAsync("GetItem"));
    }

    [Fact]
    public async Task ItCountsTheConnectionsEachMethodWasCalledOnAndForgetsThemWhenReset()
    {
        await using var target = await GrpcJsTarget.StartAsync();
        using var shared = target.Channel();
        var client = new Inventory.InventoryClient(shared);
        for (var call = 0; call < 5; call++)
        {
            await client.GetItemAsync(Item("shared", call));
        }

        await Task.WhenAll(Enumerable.Range(0, 10).Select(call => client.GetItemAsync(Item("shared", call)).ResponseAsync));
        var afterShared = await target.StatsAsync();
        for (var call = 0; call < 3; call++)
        {
            using var own = target.Channel();
            await new Inventory.InventoryClient(own).ListItems(new ListRequest { Item = Item("own", call), Count = 1 }).ResponseStream.MoveNext();
        }

        var afterOwn = await target.StatsAsync(reset: true);
        var afterReset = await target.StatsAsync();

        Assert.Equal((15L, 1), (afterShared.Methods["GetItem"].Calls, afterShared.Methods["GetItem"].Peers.Count));
        Assert.Equal((3L, 3), (afterOwn.Methods["ListItems"].Calls, afterOwn.Methods["ListItems"].Peers.Count));
        Assert.Equal(4, afterOwn.Peers.Count);
        Assert.Empty(afterReset.Methods);
    }

    [Fact]
    public async Task ALoweredStreamLimitHoldsOneConnectionToItAndMultipleConnectionsGoPastIt()
    {
        await using var target = await GrpcJsTarget.StartAsync(TargetSecurity.Plain, "--max-concurrent-streams", "5");

        await CallManyAtOnceAsync(target, multipleConnections: false);
        var single = (await target.StatsAsync(reset: true)).Methods["GetItem"];
        await CallManyAtOnceAsync(target, multipleConnections: true);
        var multiple = (await target.StatsAsync()).Methods["GetItem"];

        Assert.Equal((1, 5), (single.Peers.Count, single.MaxInFlight));
        Assert.True(multiple.Peers.Count > 1, $"{multiple.Peers.Count} connection(s)");
        Assert.True(multiple.MaxInFlight > 5, $"{multiple.MaxInFlight} in flight at most");
    }

    [Fact]
    public async Task SigtermLetsTheCallInFlightFinishAndExitsCleanly()
    {
        await using var target = await GrpcJsTarget.StartAsync();
        using var channel = target.Channel();
        var request = Item("slow", 1);
        request.DelayMs = 1500;

        var call = new Inventory.InventoryClient(channel).GetItemAsync(request).ResponseAsync;
        await WaitUntilAsync(async () => (await target.StatsAsync()).Methods.ContainsKey("GetItem"));
        var exitCode = await target.TerminateAsync(TimeSpan.FromSeconds(10));

        Assert.Equal("slow", (await call).Item.Sku);
        Assert.Equal(0, exitCode);
    }

    [Fact]
    public async Task ARequestCanAskForAFailingStatus()
    {
        await using var target = await GrpcJsTarget.StartAsync();
        using var channel = target.Channel();
        var request = Item("failing", 1);
        request.FailCode = (int)StatusCode.ResourceExhausted;

        var failed = await Assert.ThrowsAsync<RpcException>(() => new Inventory.InventoryClient(channel).GetItemAsync(request).ResponseAsync);

        Assert.Equal(StatusCode.ResourceExhausted, failed.StatusCode);
        Assert.Equal("The request asked for status 8 (fail_code).", failed.Status.Detail);
    }

    /// <summary>Every kind of field the proto3 JSON mapping treats apart, with an int64 and a uint64 past what a JavaScript number holds.</summary>
    private static ItemRequest EveryField()
    {
        var item = new ItemRequest
        {
            Sku = "sku-42",
            Quantity = 9_007_199_254_740_993,
            Condition = Condition.Refurbished,
            CheckedAt = new Timestamp { Seconds = 1_764_000_000, Nanos = 123_000_000 },
            Note = "fragile",
            Photo = ByteString.CopyFrom(0, 1, 2, 254, 255),
            Cents = 1999,
            Location = new Warehouse.Location { Site = "north", Aisle = 7, Shelves = { "a1", "b2" } },
            Tags = { new ItemRequest.Types.Tag { Name = "heavy", Weight = 18_446_744_073_709_551_615 }, new ItemRequest.Types.Tag { Name = "blue" } },
        };
        item.Counts.Add("left", 3);
        item.Counts.Add("right", -4);
        return item;
    }

    private static ItemRequest Item(string sku, long quantity) => new() { Sku = sku, Quantity = quantity };

    private static async Task<List<ItemReply>> ReadAllAsync(IAsyncStreamReader<ItemReply> stream)
    {
        var replies = new List<ItemReply>();
        await foreach (var reply in stream.ReadAllAsync())
        {
            replies.Add(reply);
        }

        return replies;
    }

    private static async Task<RecordSummary> RecordAsync(Inventory.InventoryClient client, ItemRequest[] items)
    {
        using var call = client.RecordItems();
        foreach (var item in items)
        {
            await call.RequestStream.WriteAsync(item);
        }

        await call.RequestStream.CompleteAsync();
        return await call;
    }

    private static async Task<List<ItemReply>> ExchangeAsync(Inventory.InventoryClient client, ItemRequest[] items)
    {
        using var call = client.Exchange();
        foreach (var item in items)
        {
            await call.RequestStream.WriteAsync(item);
        }

        await call.RequestStream.CompleteAsync();
        return await ReadAllAsync(call.ResponseStream);
    }

    private static async Task<ServerReflectionResponse> AskAsync(ServerReflection.ServerReflectionClient client, ServerReflectionRequest request)
    {
        using var call = client.ServerReflectionInfo(deadline: DateTime.UtcNow.AddSeconds(10));
        try
        {
            await call.RequestStream.WriteAsync(request);
            await call.RequestStream.CompleteAsync();
        }
        catch (RpcException)
        {
            // An Unimplemented answer can end the call before the question is written, and grpc-dotnet then reports the
            // aborted write as Cancelled: the status is the server's answer, read behind it (as ReflectionDescriber does).
            await call.ResponseStream.MoveNext();
            throw;
        }

        Assert.True(await call.ResponseStream.MoveNext());
        return call.ResponseStream.Current;
    }

    private static async Task<Dictionary<string, FileDescriptorProto>> DescribeAsync(ServerReflection.ServerReflectionClient reflection)
    {
        var answer = await AskAsync(reflection, new ServerReflectionRequest { FileContainingSymbol = GrpcJsTarget.Service });
        return answer.FileDescriptorResponse.FileDescriptorProto.Select(FileDescriptorProto.Parser.ParseFrom).ToDictionary(f => f.Name);
    }

    private static async Task CallManyAtOnceAsync(GrpcJsTarget target, bool multipleConnections)
    {
        var handler = new SocketsHttpHandler { EnableMultipleHttp2Connections = multipleConnections };
        using var channel = GrpcChannel.ForAddress(target.Url, new GrpcChannelOptions { HttpHandler = handler });
        var client = new Inventory.InventoryClient(channel);
        var request = Item("many", 1);
        request.DelayMs = 100;
        await Task.WhenAll(Enumerable.Range(0, 20).Select(_ => client.GetItemAsync(request).ResponseAsync));
    }

    private static async Task WaitUntilAsync(Func<Task<bool>> condition)
    {
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        while (!await condition())
        {
            await Task.Delay(20, timeout.Token);
        }
    }

    /// <summary>The v1alpha client's calls sent to grpc.reflection.v1.ServerReflection: the two versions' messages are the same on the wire.</summary>
    private sealed class V1Invoker(GrpcChannel channel) : CallInvoker
    {
        private readonly CallInvoker _inner = channel.CreateCallInvoker();

        public override AsyncDuplexStreamingCall<TRequest, TResponse> AsyncDuplexStreamingCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options) =>
            _inner.AsyncDuplexStreamingCall(new Method<TRequest, TResponse>(method.Type, "grpc.reflection.v1.ServerReflection", method.Name, method.RequestMarshaller, method.ResponseMarshaller), host, options);

        public override TResponse BlockingUnaryCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options, TRequest request) => throw new NotSupportedException();

        public override AsyncUnaryCall<TResponse> AsyncUnaryCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options, TRequest request) => throw new NotSupportedException();

        public override AsyncServerStreamingCall<TResponse> AsyncServerStreamingCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options, TRequest request) => throw new NotSupportedException();

        public override AsyncClientStreamingCall<TRequest, TResponse> AsyncClientStreamingCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options) => throw new NotSupportedException();
    }
}
