using System.Text;
using GrpcBestPractices.Tests.Infrastructure;
using Interop.Inventory;
using LoadEngine;
using LoadEngine.Clients;
using LoadEngine.Strategies;
using Microsoft.Extensions.DependencyInjection;

namespace GrpcBestPractices.Tests.Targets;

/// <summary>
/// The target connection settings against grpc-js (a gRPC server the project did not write) under mutual TLS: every
/// strategy's calls trust the given CA, present the client certificate, name the authority and carry the metadata
/// (a -bin key decoded from base64) and gzip, and the server's echo shows each arrived.
/// </summary>
[Trait("Category", "Process")]
public sealed class TargetConnectionInteropTests
{
    [Fact]
    public async Task EveryStrategysCallsReachGrpcJsWithTheCaTheClientCertificateTheAuthorityAndTheMetadata()
    {
        await using var target = await GrpcJsTarget.StartAsync(TargetSecurity.MutualTls);
        var certificates = target.Certificates!;
        var services = new ServiceCollection();
        services.AddLogging();
        services.AddLoadEngine();
        services.Configure<EngineOptions>(engine =>
        {
            engine.ServerUri = target.Address;
            engine.Connection = new TargetConnection
            {
                CaCertificate = certificates.CaPath,
                ClientCertificate = certificates.ClientCertificatePath,
                ClientKey = certificates.ClientKeyPath,
                Authority = InteropCertificates.ServerName,
                Metadata = [new("tenant", "acme"), new("trace-bin", Convert.ToBase64String([0xde, 0xad, 0xbe, 0xef]))],
                Compression = TargetConnection.Gzip,
            };
        });
        await using var provider = services.BuildServiceProvider();

        foreach (var strategy in StrategyList.Names)
        {
            await using var scope = provider.CreateAsyncScope();
            using var lease = scope.ServiceProvider.GetRequiredKeyedService<IChannelStrategy>(strategy).Acquire();
            var client = new Inventory.InventoryClient(lease.Invoker);
            var request = new ItemRequest { Sku = strategy, Note = new string('n', 2000) };

            var reply = StrategyList.Find(strategy)!.Shape == CallShape.OneStream ? await ExchangeOneAsync(client, request) : await client.GetItemAsync(request, deadline: DateTime.UtcNow.AddSeconds(10));

            Assert.Equal(strategy, reply.Item.Sku);
            Assert.Equal("acme", reply.Metadata["tenant"]);
            Assert.Equal([0xde, 0xad, 0xbe, 0xef], reply.BinaryMetadata["trace-bin"].ToByteArray());
            Assert.Equal(InteropCertificates.ServerName, reply.Authority);
            Assert.Equal(InteropCertificates.ClientName, reply.ClientCertificate);
        }
    }

    private static async Task<ItemReply> ExchangeOneAsync(Inventory.InventoryClient client, ItemRequest request)
    {
        using var call = client.Exchange(deadline: DateTime.UtcNow.AddSeconds(10));
        await call.RequestStream.WriteAsync(request);
        await call.RequestStream.CompleteAsync();
        Assert.True(await call.ResponseStream.MoveNext(CancellationToken.None));
        return call.ResponseStream.Current;
    }
}
