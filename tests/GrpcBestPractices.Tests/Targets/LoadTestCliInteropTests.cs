using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;
using LoadTest;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.Targets;

/// <summary>
/// ./loadtest in ghz's names against a service it did not write (grpc-js serving interop.inventory.Inventory): the
/// .proto with its import path, the protoset and reflection; metadata with a -bin key; TLS with the target's own CA, the
/// authority its certificate names, and mTLS with a client certificate; each seen by the server in what it echoes.
/// </summary>
[Trait("Category", "Process")]
public sealed class LoadTestCliInteropTests(ITestOutputHelper output)
{
    private const string GetItem = GrpcJsTarget.Service + "/GetItem";

    private static readonly string[] Proto = ["--proto", GrpcJsTarget.ProtoFile, "--import-path", GrpcJsTarget.ImportDirectory];

    [Theory]
    [InlineData(GrpcJsTarget.Service + "/GetItem", "{\"sku\":\"u\"}")]
    [InlineData(GrpcJsTarget.Service + ".ListItems", "{\"item\":{\"sku\":\"s\"},\"count\":4}")]
    [InlineData(GrpcJsTarget.Service + "/RecordItems", "[{\"sku\":\"c1\",\"quantity\":2},{\"sku\":\"c2\",\"quantity\":\"3\"}]")]
    [InlineData(GrpcJsTarget.Service + "/Exchange", "[{\"sku\":\"b1\"},{\"sku\":\"b2\"}]")]
    public async Task EachCallKindRunsFromTheProtoAndItsImportPath(string call, string data)
    {
        await using var target = await GrpcJsTarget.StartAsync();
        using var folder = new TemporaryFolder();

        var result = await CliProcess.RunAsync(["--target", target.Url, .. Proto, "--call", call, "-d", data, "--strategy", "client-wrapper", "--count", "10", "--json", folder.File("run.json")]);

        Assert.True(result.ExitCode == ExitCodes.Passed, result.ToString());
        Assert.Equal(10, Stats(folder).GetProperty("succeeded").GetInt64());
    }

    [Fact]
    public async Task AProtosetAndReflectionServedFromItDescribeTheTargetToo()
    {
        await using var target = await GrpcJsTarget.StartAsync(TargetSecurity.Plain, "--reflection-protoset", GrpcJsTarget.ProtosetPath);

        var protoset = await CliProcess.RunAsync("--target", target.Url, "--protoset", GrpcJsTarget.ProtosetPath, "--call", GetItem, "--strategy", "client-wrapper", "--count", "5");
        var reflection = await CliProcess.RunAsync("--list", "--target", target.Url);

        Assert.True(protoset.ExitCode == ExitCodes.Passed, protoset.ToString());
        Assert.True(reflection.ExitCode == ExitCodes.Passed, reflection.ToString());
        Assert.Contains($"{GrpcJsTarget.Service}/Exchange (bidi-streaming)", reflection.Output);
    }

    [Fact]
    public async Task ATargetWithoutReflectionIsAUsageErrorThatNamesTheOtherWays()
    {
        await using var target = await GrpcJsTarget.StartAsync(TargetSecurity.Plain, "--no-reflection");

        var result = await CliProcess.RunAsync("--target", target.Url, "--call", GetItem, "--count", "5");

        Assert.True(result.ExitCode == ExitCodes.Usage, result.ToString());
        Assert.Contains("The target does not offer server reflection (grpc.reflection.v1 or v1alpha): describe it with its .proto files or a protoset instead (the CLI's --proto or --protoset; the gateway's Targets:<name>:Proto or :Protoset).", result.Error);
    }

    [Fact]
    public async Task MetadataReachesTheServerWithTheBinaryKeyDecodedFromBase64()
    {
        await using var target = await GrpcJsTarget.StartAsync();
        using var folder = new TemporaryFolder();

        // Values this short are not masked in the echo (security.md), so it shows what arrived.
        var result = await CliProcess.RunAsync(["--target", target.Url, .. Proto, "--call", GetItem, "-m", "tenant: acme", "--metadata", "trace-bin: 3q2+",
            "--strategy", "client-wrapper", "--count", "3", "--json", folder.File("run.json")]);

        Assert.True(result.ExitCode == ExitCodes.Passed, result.ToString());
        var answer = FirstAnswer(folder);
        Assert.Equal("acme", answer.GetProperty("metadata").GetProperty("tenant").GetString());
        // The server got the three bytes 0xdeadbe, which its answer's bytes field shows in base64 again.
        Assert.Equal("3q2+", answer.GetProperty("binaryMetadata").GetProperty("trace-bin").GetString());
    }

    [Fact]
    public async Task TlsTrustsTheTargetsCaAndTheAuthorityItsCertificateNames()
    {
        await using var target = await GrpcJsTarget.StartAsync(TargetSecurity.Tls);
        var certificates = target.Certificates!;
        using var folder = new TemporaryFolder();

        var trusted = await CliProcess.RunAsync(["--target", target.Url, .. Proto, "--call", GetItem, "--cacert", certificates.CaPath,
            "--authority", InteropCertificates.ServerName, "--strategy", "client-wrapper", "--count", "3", "--json", folder.File("run.json")]);
        var untrusted = await CliProcess.RunAsync(["--target", target.Url, .. Proto, "--call", GetItem, "--strategy", "client-wrapper", "--count", "3"]);

        Assert.True(trusted.ExitCode == ExitCodes.Passed, trusted.ToString());
        Assert.Equal(InteropCertificates.ServerName, FirstAnswer(folder).GetProperty("authority").GetString());
        // With the .proto nothing connects before the run, so the handshake fails the run (exit 1), in one sentence.
        Assert.True(untrusted.ExitCode == ExitCodes.NotCompleted, untrusted.ToString());
        Assert.Contains("The service is unreachable: the TLS handshake failed (The remote certificate is invalid because of errors in the certificate chain: PartialChain).", untrusted.Output);
    }

    [Fact]
    public async Task MutualTlsRunsWithTheClientCertificateAndReflectionGoesThroughItToo()
    {
        await using var target = await GrpcJsTarget.StartAsync(TargetSecurity.MutualTls, "--reflection-protoset", GrpcJsTarget.ProtosetPath);
        var certificates = target.Certificates!;
        using var folder = new TemporaryFolder();

        var signed = await CliProcess.RunAsync("--target", target.Url, "--call", GetItem, "--cacert", certificates.CaPath,
            "--cert", certificates.ClientCertificatePath, "--key", certificates.ClientKeyPath, "--strategy", "single-connection", "--count", "5", "--json", folder.File("run.json"));
        var anonymous = await CliProcess.RunAsync(["--target", target.Url, .. Proto, "--call", GetItem, "--cacert", certificates.CaPath, "--strategy", "client-wrapper", "--count", "5"]);

        Assert.True(signed.ExitCode == ExitCodes.Passed, signed.ToString());
        Assert.Equal(InteropCertificates.ClientName, FirstAnswer(folder).GetProperty("clientCertificate").GetString());
        // Under TLS 1.3 the server refuses a missing client certificate after the client's side of the handshake has ended,
        // so the client sees the HTTP/2 preface fail rather than a handshake error.
        Assert.True(anonymous.ExitCode == ExitCodes.NotCompleted, anonymous.ToString());
        Assert.Contains("client-wrapper failed against " + target.Address + ": The service is unreachable", anonymous.Output);
        // One sentence on one line, not the client's exception chain.
        output.WriteLine(anonymous.Output);
        Assert.All(anonymous.Output.Split('\n').Where(line => line.Contains("The service is unreachable", StringComparison.Ordinal)),
            failure => Assert.DoesNotContain("Exception", failure));
        Assert.DoesNotContain("   at ", anonymous.Output);
        Assert.Single((await target.StatsAsync()).Methods["GetItem"].Peers);
    }

    private static JsonElement Stats(TemporaryFolder folder) =>
        JsonDocument.Parse(File.ReadAllText(folder.File("run.json"))).RootElement.GetProperty("stats");

    private static JsonElement FirstAnswer(TemporaryFolder folder) =>
        JsonDocument.Parse(Stats(folder).GetProperty("firstAnswer").GetString()!).RootElement;
}
