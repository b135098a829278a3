using System.Security.Cryptography;
using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;
using LoadTest;

namespace GrpcBestPractices.Tests.Targets;

/// <summary>
/// ./loadtest against a target that echoes what it is sent (the grpc-js inventory server): the -m value is masked in
/// stdout, stderr, the JSON and the report; never quoted in an error; a status message's escape sequences reach no
/// terminal raw; and a template that could render a gigabyte is one sentence, exit 2.
/// </summary>
[Trait("Category", "Process")]
public sealed class TargetTextCliTests
{
    private const string GetItem = GrpcJsTarget.Service + "/GetItem";

    private const string Exchange = GrpcJsTarget.Service + "/Exchange";

    private static readonly string[] Proto = ["--proto", GrpcJsTarget.ProtoFile, "--import-path", GrpcJsTarget.ImportDirectory];

    private readonly string _secret = "sk-" + Convert.ToHexString(RandomNumberGenerator.GetBytes(24));

    [Fact]
    public async Task AMetadataValueTheTargetEchoesIsMaskedInEveryOutputOfTheCli()
    {
        await using var target = await GrpcJsTarget.StartAsync();
        using var folder = new TemporaryFolder();

        var answered = await CliProcess.RunAsync(["--target", target.Url, .. Proto, "--call", GetItem, "-d", "{\"sku\":\"a\"}", "-m", $"authorization: Bearer {_secret}",
            "--strategy", "client-wrapper", "--count", "5", "--json", folder.File("answered.json"), "--report", folder.File("answered.html")]);
        var refused = await CliProcess.RunAsync(["--target", target.Url, .. Proto, "--call", Exchange, "-d", "{\"sku\":\"b\",\"failCode\":7,\"failDetail\":\"denied: {metadata}\"}",
            "-m", $"authorization: Bearer {_secret}", "--strategy", "streaming-call", "--count", "5", "--json", folder.File("refused.json"), "--report", folder.File("refused.html")]);

        Assert.True(answered.ExitCode == ExitCodes.Passed, answered.ToString());
        Assert.Equal("***", JsonDocument.Parse(FirstAnswer(folder.File("answered.json"))).RootElement.GetProperty("metadata").GetProperty("authorization").GetString());
        Assert.True(refused.ExitCode == ExitCodes.NotCompleted, refused.ToString());
        Assert.Contains("PermissionDenied (denied: {", refused.Output);
        Assert.Contains("\"authorization\":\"***\"", refused.Output);
        var written = new Dictionary<string, string>
        {
            ["stdout"] = answered.Output + refused.Output,
            ["stderr"] = answered.Error + refused.Error,
        };
        foreach (var file in Directory.GetFiles(folder.Path))
        {
            written[Path.GetFileName(file)] = File.ReadAllText(file);
        }

        Assert.Equal(6, written.Count);
        Assert.All(written, output => Assert.False(output.Value.Contains(_secret, StringComparison.Ordinal), $"{output.Key} holds the metadata value"));
    }

    [Fact]
    public async Task MetadataWithoutAKeyIsRefusedWithoutQuotingIt()
    {
        var result = await CliProcess.RunAsync("--target", "http://127.0.0.1:5000", "-m", $"Bearer {_secret}", "--count", "5");

        Assert.True(result.ExitCode == ExitCodes.Usage, result.ToString());
        Assert.StartsWith("loadtest: --metadata must be 'key: value'", Assert.Single(result.ErrorLines));
        Assert.DoesNotContain(_secret, result.Error + result.Output);
    }

    [Fact]
    public async Task EscapeSequencesInAStatusMessageReachNeitherTheTerminalNorTheJson()
    {
        const string Hostile = "\u001b]0;pwned\u0007\u001b[2J";
        await using var target = await GrpcJsTarget.StartAsync();
        using var folder = new TemporaryFolder();

        var result = await CliProcess.RunAsync(["--target", target.Url, .. Proto, "--call", Exchange, "-d", JsonSerializer.Serialize(new { sku = "c", failCode = 13, failDetail = Hostile }),
            "--strategy", "streaming-call", "--count", "3", "--json", folder.File("run.json")]);

        Assert.True(result.ExitCode == ExitCodes.NotCompleted, result.ToString());
        Assert.DoesNotContain('\u001b', result.Output + result.Error);
        Assert.Contains("Internal (\\u001b]0;pwned\\u0007\\u001b[2J)", result.Output);
        var error = JsonDocument.Parse(File.ReadAllText(folder.File("run.json"))).RootElement.GetProperty("error").GetString()!;
        Assert.DoesNotContain('\u001b', error);
        Assert.Contains("\\u001b]0;pwned", error);
    }

    [Fact]
    public async Task ATemplateThatCouldRenderAGigabyteIsOneSentenceAndExitCode2()
    {
        // The data is checked against the .proto before anything connects: no server is needed to be refused.
        var result = await CliProcess.RunAsync(["--target", $"http://127.0.0.1:{Ports.Unused()}", .. Proto, "--call", GetItem,
            "-d", "{\"sku\":\"{{randomString 1000000000}}\"}", "--strategy", "client-wrapper", "--count", "5"]);

        Assert.True(result.ExitCode == ExitCodes.Usage, result.ToString());
        Assert.Equal(
            "loadtest: data's template {{randomString 1000000000}} renders up to 1,000,000,000 characters; a rendered message may hold at most 65,536, as data may. " +
            $"See {LoadTestCommand.Name} --help for every option.",
            Assert.Single(result.ErrorLines));
    }

    private static string FirstAnswer(string json) =>
        JsonDocument.Parse(File.ReadAllText(json)).RootElement.GetProperty("stats").GetProperty("firstAnswer").GetString()!;
}
