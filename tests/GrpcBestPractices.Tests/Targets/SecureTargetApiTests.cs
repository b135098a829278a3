using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.Targets;

/// <summary>
/// A target the gateway reaches only with its configured connection: the grpc-js inventory server under mutual TLS with a
/// certificate for inventory.test, described by its own reflection. The gateway's Targets section gives the CA, the client
/// certificate and key, the authority and metadata; reflection, the reachability probe and every call carry them.
/// </summary>
[Trait("Category", "Process")]
public sealed class SecureTargetApiTests
{
    [Fact]
    public async Task AMutualTlsTargetIsDescribedAndLoadedWithItsCertificatesAuthorityAndMetadata()
    {
        await using var service = await AppProcess.StartAsync("PerformanceService");
        await using var inventory = await GrpcJsTarget.StartAsync(TargetSecurity.MutualTls, "--reflection-protoset", GrpcJsTarget.ProtosetPath);
        var certificates = inventory.Certificates!;
        await using var gateway = await AppProcess.StartAsync("ApiGateway",
        [
            .. await SystemFixture.GatewayArgumentsAsync(service),
            "--Targets:inventory:Address", inventory.Url,
            "--Targets:inventory:CaCertificate", certificates.CaPath,
            "--Targets:inventory:ClientCertificate", certificates.ClientCertificatePath,
            "--Targets:inventory:ClientKey", certificates.ClientKeyPath,
            "--Targets:inventory:Authority", InteropCertificates.ServerName,
            "--Targets:inventory:Metadata:x-tenant", "blue",
            // Without the client certificate the server refuses the handshake: the target is unreachable, and says so.
            "--Targets:stranger:Address", inventory.Url,
            "--Targets:stranger:CaCertificate", certificates.CaPath,
            "--Targets:stranger:Authority", InteropCertificates.ServerName,
        ]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(120) };

        var targets = (await http.GetJsonAsync("/api/targets")).EnumerateArray().ToDictionary(target => target.GetProperty("name").GetString()!);
        Assert.True(targets["inventory"].GetProperty("reachable").GetBoolean(), targets["inventory"].ToString());
        Assert.True(targets["inventory"].GetProperty("methods").EnumerateArray().Any(method => method.GetProperty("call").GetString() == $"{GrpcJsTarget.Service}/GetItem"), targets["inventory"].ToString());
        Assert.DoesNotContain("blue", targets["inventory"].ToString());
        Assert.False(targets["stranger"].GetProperty("reachable").GetBoolean());
        Assert.StartsWith("Target 'stranger' at https://127.0.0.1:", targets["stranger"].GetProperty("problem").GetString());

        var started = await http.StartRunAsync(
            $$$"""{"target": "inventory", "call": "{{{GrpcJsTarget.Service}}}/GetItem", "data": {"sku": "A-{{.RequestNumber}}", "quantity": "3"}, "strategy": "factory-client", "count": 20}""");
        var run = await http.WaitUntilFinishedAsync($"/api/runs/{started.GetProperty("id").GetString()}");

        Assert.True(run.GetProperty("state").GetString() == "Completed", run.ToString());
        var answer = JsonDocument.Parse(run.GetProperty("stats").GetProperty("firstAnswer").GetString()!).RootElement;
        Assert.Equal("blue", answer.GetProperty("metadata").GetProperty("x-tenant").GetString());
        Assert.StartsWith(InteropCertificates.ServerName, answer.GetProperty("authority").GetString());
        Assert.Equal(InteropCertificates.ClientName, answer.GetProperty("clientCertificate").GetString());
        Assert.StartsWith("A-", answer.GetProperty("item").GetProperty("sku").GetString());
    }
}
