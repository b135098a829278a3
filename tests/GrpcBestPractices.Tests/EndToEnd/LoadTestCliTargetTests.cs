using System.Text.Json;
using Google.Protobuf;
using GrpcBestPractices.Tests.Infrastructure;
using LoadTest;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>
/// The CLI pointed at a method by ghz's flags, against the real PerformanceService on loopback: described by its server
/// reflection or by its .proto file, the request from JSON with ghz's templates, over h2c or TLS with a CA, metadata and
/// gzip; and every bad input a usage error (exit 2) in one sentence before anything runs.
/// </summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class LoadTestCliTargetTests(SystemFixture system)
{
    private const string GetPerformance = "performance.Monitor/GetPerformance";

    private static readonly string Proto = Path.Combine(AppProcess.RepositoryRoot, "GrpcDependencies", "Protos", "performance.proto");

    // ghz's positional address: host:port, cleartext with --insecure.
    private string HostPort => new Uri(system.Service.Url).Authority;

    [Fact]
    public async Task ACallDescribedByReflectionRunsWithTemplatedDataAndKeepsTheFirstAnswer()
    {
        using var folder = new TemporaryFolder();
        var json = folder.File("run.json");

        var result = await CliProcess.RunAsync("--call", GetPerformance, "-d", "{\"clientName\":\"ghz-{{.RequestNumber}}\"}", "--strategy", "client-wrapper",
            "--count", "20", "--json", json, HostPort, "--insecure");

        Assert.True(result.ExitCode == ExitCodes.Passed, result.ToString());
        using var run = JsonDocument.Parse(File.ReadAllText(json));
        var plan = run.RootElement.GetProperty("plan");
        Assert.Equal(GetPerformance, plan.GetProperty("call").GetString());
        Assert.Equal("{\"clientName\":\"ghz-{{.RequestNumber}}\"}", plan.GetProperty("data").GetString());
        Assert.Equal(20, run.RootElement.GetProperty("stats").GetProperty("succeeded").GetInt64());
        // The service's answer as proto3 JSON: the call did what was meant.
        Assert.Contains("\"connectionId\"", run.RootElement.GetProperty("stats").GetProperty("firstAnswer").GetString());
    }

    [Fact]
    public async Task AProtoFileDescribesTheBidirectionalMethodTheStreamingStrategyCarries()
    {
        var result = await CliProcess.RunAsync("--target", system.Service.Url, "--proto", Proto, "--call", "performance.Monitor.GetManyPerformanceStats",
            "--strategy", "streaming-call", "--count", "50", "--data", "{\"client_name\":\"stream\"}");

        Assert.True(result.ExitCode == ExitCodes.Passed, result.ToString());
        Assert.Matches(@"\| streaming-call +\| Completed \| +50 \| +0 \|", result.Output);
    }

    [Fact]
    public async Task ASuiteOnAUnaryMethodLeavesOutTheStreamingStrategyAndSaysWhy()
    {
        var suite = await CliProcess.RunAsync("--target", system.Service.Url, "--call", GetPerformance, "--count", "10");

        Assert.True(suite.ExitCode == ExitCodes.Passed, suite.ToString());
        Assert.Contains("streaming-call left out: streaming-call carries every call as a message on one bidirectional stream, and performance.Monitor/GetPerformance is unary", suite.Output);
        Assert.Contains("COMPLETED: 5 runs", suite.Output);
    }

    [Fact]
    public async Task ListPrintsEveryMethodAndWithACallItsRequestTemplate()
    {
        var list = await CliProcess.RunAsync("--list", "--target", system.Service.Url);
        var template = await CliProcess.RunAsync("--list", "--call", GetPerformance, "--proto", Proto, "--target", system.Service.Url);

        Assert.True(list.ExitCode == ExitCodes.Passed, list.ToString());
        Assert.Contains("performance.Monitor/GetPerformance (unary)", list.Output);
        Assert.Contains("performance.Monitor/GetManyPerformanceStats (bidi-streaming)", list.Output);
        Assert.True(template.ExitCode == ExitCodes.Passed, template.ToString());
        using var request = JsonDocument.Parse(template.Output);
        Assert.Equal(["clientName", "delayMs", "payloadBytes"], request.RootElement.EnumerateObject().Select(field => field.Name));
    }

    [Theory]
    [InlineData("The target has no method performance.Monitor/Nope; it has performance.Monitor/GetPerformance, performance.Monitor/GetManyPerformanceStats", "--call", "performance.Monitor/Nope")]
    [InlineData("delayMs", "--call", GetPerformance, "-d", "{\"delayMs\":\"soon\"}")]
    [InlineData("data field color is not a field of performance.PerformanceStatusRequest", "--call", GetPerformance, "-d", "{\"color\":1}")]
    [InlineData("data is not JSON", "--call", GetPerformance, "-d", "{\"clientName\":")]
    [InlineData("--cacert applies to TLS, and the target", "--call", GetPerformance, "--cacert", "ca.pem")]
    [InlineData("--metadata key 'grpc-status' cannot be sent", "--call", GetPerformance, "-m", "grpc-status: 0")]
    [InlineData("--data-file '/no/such.json' does not exist.", "--call", GetPerformance, "-D", "/no/such.json")]
    [InlineData("--proto and --protoset both describe the target; give one of them.", "--call", GetPerformance, "--proto", "a.proto", "--protoset", "a.pb")]
    public async Task BadInputExitsTwoWithOneSentenceBeforeAnyRun(string sentence, params string[] arguments)
    {
        var result = await CliProcess.RunAsync(["--target", system.Service.Url, "--count", "10", "--strategy", "client-wrapper", .. arguments]);

        Assert.True(result.ExitCode == ExitCodes.Usage, result.ToString());
        Assert.Empty(result.Output);
        Assert.Contains(sentence, Assert.Single(result.ErrorLines));
    }

    [Theory]
    [InlineData("tls-to-h2c", "the TLS handshake failed (Cannot determine the frame size or a corrupted frame was received): the port answered in something other than TLS, " +
        "as a cleartext HTTP/2 (h2c) port does; call it over http:// (with a host:port, --insecure).")]
    [InlineData("cleartext-to-tls", "the server did not complete the HTTP/2 handshake: the port speaks TLS (or HTTP/1.1 alone), not cleartext HTTP/2; " +
        "call it over https:// (leave out --insecure).")]
    public async Task TheWrongTransportForThePortSaysWhichOptionToChange(string mistake, string sentence)
    {
        // ghz's host:port is TLS unless --insecure: the h2c port without it, the TLS port with it.
        string[] address = mistake == "tls-to-h2c" ? [HostPort] : [new Uri(system.Tls).Authority, "--insecure"];

        var described = await CliProcess.RunAsync(["--call", GetPerformance, "--strategy", "client-wrapper", "--count", "5", .. address]);
        var run = await CliProcess.RunAsync(["--call", GetPerformance, "--proto", Proto, "--strategy", "client-wrapper", "--count", "5", .. address]);

        Assert.True(described.ExitCode == ExitCodes.Usage, described.ToString());
        Assert.EndsWith($"could not be described by its server reflection: {sentence} See ./loadtest --help for every option.", Assert.Single(described.ErrorLines).TrimEnd());
        Assert.DoesNotContain("client certificate", described.Error);
        // Described by its .proto, the run itself meets the same failure and says the same.
        Assert.True(run.ExitCode == ExitCodes.NotCompleted, run.ToString());
        Assert.Contains($"The service is unreachable: {sentence.TrimEnd('.')}", run.Output.ReplaceLineEndings(" "));
    }

    [Fact]
    public async Task DescriptionsThatCannotCompileNameTheFileAndTheOptionThatMendsThem()
    {
        using var folder = new TemporaryFolder();
        var protoset = folder.File("inventory.protoset");
        // Without --include_imports a protoset holds the file alone: here without the warehouse/location.proto it imports.
        await File.WriteAllBytesAsync(protoset, new Google.Protobuf.Reflection.FileDescriptorSet { File = { Interop.Inventory.InventoryReflection.Descriptor.ToProto() } }.ToByteArray());
        var inventory = Path.Combine(AppProcess.RepositoryRoot, "tests", "interop", "protos", "inventory.proto");
        string[] call = ["--target", system.Service.Url, "--call", "interop.inventory.Inventory/GetItem", "--strategy", "client-wrapper", "--count", "5"];

        var unincluded = await CliProcess.RunAsync([.. call, "--protoset", protoset]);
        var unimported = await CliProcess.RunAsync([.. call, "--proto", inventory]);
        var malformed = await CliProcess.RunAsync("--target", system.Service.Url, "--call", GetPerformance, "--strategy", "client-wrapper", "--count", "5",
            "-d", "{\n  \"clientName\": \"a\",\n}");

        Assert.True((unincluded.ExitCode, unimported.ExitCode, malformed.ExitCode) == (ExitCodes.Usage, ExitCodes.Usage, ExitCodes.Usage), $"{unincluded}\n{unimported}\n{malformed}");
        Assert.Contains("import warehouse/location.proto from inventory.proto without including it (a protoset is made with protoc --include_imports)", Assert.Single(unincluded.ErrorLines));
        Assert.Contains($"protoc could not compile inventory.proto: its import warehouse/location.proto is in none of the folders searched ({Path.GetDirectoryName(inventory)}); " +
            "add the folder that warehouse/location.proto lies under as an import path (the CLI's -i/--import-path", Assert.Single(unimported.ErrorLines));
        Assert.Contains("data is not JSON at line 3, position 1: The JSON object contains a trailing comma at the end; data must be strict JSON (RFC 8259): names and strings in double quotes, " +
            "no comments, no trailing commas.", Assert.Single(malformed.ErrorLines));
        Assert.DoesNotContain("reader options", malformed.Error);
    }

    [Fact]
    public async Task OverTlsTheGivenCaIsTrustedWithMetadataAndGzipAndAnyOtherCertificateIsExitTwo()
    {
        var tls = new Uri(system.Tls).Authority;

        // host:port is TLS, as in ghz; the reflection call and every run get the same CA, metadata and compression.
        var trusted = await CliProcess.RunAsync("--call", GetPerformance, tls, "--cacert", system.Certificate, "--authority", "localhost",
            "-m", "x-tenant: blue", "-m", "{\"x-trace-bin\":\"AQI=\"}", "--compression", "gzip", "--strategy", "single-connection", "--count", "20");
        var untrusted = await CliProcess.RunAsync("--call", GetPerformance, tls, "--strategy", "single-connection", "--count", "20");
        var missing = await CliProcess.RunAsync("--call", GetPerformance, tls, "--cacert", "/no/such/ca.pem", "--count", "20");

        Assert.True(trusted.ExitCode == ExitCodes.Passed, trusted.ToString());
        Assert.True(untrusted.ExitCode == ExitCodes.Usage, untrusted.ToString());
        Assert.Contains("could not be described by its server reflection: the TLS handshake failed (The remote certificate is invalid", Assert.Single(untrusted.ErrorLines));
        Assert.True(missing.ExitCode == ExitCodes.Usage, missing.ToString());
        Assert.Contains("--cacert '/no/such/ca.pem' does not exist", Assert.Single(missing.ErrorLines));
    }
}
