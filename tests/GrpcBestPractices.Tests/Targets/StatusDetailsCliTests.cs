using System.Security.Cryptography;
using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;
using LoadEngine.Runs;
using LoadTest;

namespace GrpcBestPractices.Tests.Targets;

/// <summary>
/// ./loadtest against the grpc-js inventory server when it fails calls with words of its own: the summary shows the
/// error distribution with the server's messages (for a run that partly failed too, which still passes), and so do the
/// JSON and the report, masked and escaped; a server that sends a new 8 KiB message on every call leaves a bounded record.
/// </summary>
[Trait("Category", "Process")]
public sealed class StatusDetailsCliTests
{
    private const string GetItem = GrpcJsTarget.Service + "/GetItem";

    private static readonly string[] Proto = ["--proto", GrpcJsTarget.ProtoFile, "--import-path", GrpcJsTarget.ImportDirectory];

    private readonly string _secret = "sk-" + Convert.ToHexString(RandomNumberGenerator.GetBytes(24));

    [Fact]
    public async Task ARunWhoseEverySecondCallFailsPassesAndShowsTheServersWordsInTheSummaryTheJsonAndTheReport()
    {
        await using var target = await GrpcJsTarget.StartAsync(TargetSecurity.Plain, "--fail-every", "2", "--fail-code", "9", "--fail-detail", $"tenant acme is suspended (key {_secret})\u001b[2J");
        using var folder = new TemporaryFolder();

        var result = await CliProcess.RunAsync(["--target", target.Url, .. Proto, "--call", GetItem, "-d", "{\"sku\":\"a\"}", "-m", $"x-api-key: {_secret}",
            "--strategy", "client-wrapper", "--count", "40", "--warmup", "0", "--json", folder.File("run.json"), "--report", folder.File("run.html")]);

        const string Said = "tenant acme is suspended (key ***)\\u001b[2J";
        Assert.True(result.ExitCode == ExitCodes.Passed, result.ToString());
        Assert.Contains($"Errors:{Environment.NewLine}  20 × FailedPrecondition: '{Said}'{Environment.NewLine}", result.Output);
        var stats = JsonDocument.Parse(File.ReadAllText(folder.File("run.json"))).RootElement.GetProperty("stats");
        var detail = Assert.Single(stats.GetProperty("statusDetails").EnumerateArray());
        Assert.Equal(("FailedPrecondition", 20L, 0L), (detail.GetProperty("status").GetString(), detail.GetProperty("calls").GetInt64(), detail.GetProperty("otherMessageCalls").GetInt64()));
        var message = Assert.Single(detail.GetProperty("messages").EnumerateArray());
        Assert.Equal((Said, 20L), (message.GetProperty("message").GetString(), message.GetProperty("calls").GetInt64()));
        var report = File.ReadAllText(folder.File("run.html"));
        Assert.Contains("What the server said", report);
        Assert.Contains(System.Net.WebUtility.HtmlEncode($"'{Said}'"), report);
        Assert.All([result.Output, result.Error, File.ReadAllText(folder.File("run.json")), report], written =>
        {
            Assert.DoesNotContain(_secret, written);
            Assert.DoesNotContain('\u001b', written);
        });
    }

    [Fact]
    public async Task ARunWhoseCallsAllFailSaysWhatTheServerSaidInItsError()
    {
        await using var target = await GrpcJsTarget.StartAsync(TargetSecurity.Plain, "--fail-every", "1", "--fail-code", "7", "--fail-detail", "tenant '(none)' may not call GetItem");

        var result = await CliProcess.RunAsync(["--target", target.Url, .. Proto, "--call", GetItem, "-d", "{\"sku\":\"a\"}", "--strategy", "client-wrapper", "--count", "10", "--warmup", "0"]);

        Assert.True(result.ExitCode == ExitCodes.NotCompleted, result.ToString());
        Assert.Contains("No call succeeded (10 × PermissionDenied: 'tenant '(none)' may not call GetItem').", result.Output);
        Assert.Contains("  10 × PermissionDenied: 'tenant '(none)' may not call GetItem'", result.Output);
    }

    [Fact]
    public async Task AServerThatSendsADistinctHugeMessageOnEveryCallLeavesABoundedRecord()
    {
        const int Calls = 200;
        await using var target = await GrpcJsTarget.StartAsync();
        using var folder = new TemporaryFolder();

        // Every call's message is 8,000 random characters, then its number: no two alike, each far past the cut.
        var result = await CliProcess.RunAsync(["--target", target.Url, .. Proto, "--call", GetItem,
            "-d", "{\"sku\":\"a\",\"failCode\":9,\"failDetail\":\"{{randomString 8000}}{{.RequestNumber}}\"}",
            "--strategy", "client-wrapper", "--count", Calls.ToString(System.Globalization.CultureInfo.InvariantCulture), "--warmup", "0", "--json", folder.File("run.json")]);

        Assert.True(result.ExitCode == ExitCodes.NotCompleted, result.ToString());
        var stats = JsonDocument.Parse(File.ReadAllText(folder.File("run.json"))).RootElement.GetProperty("stats");
        var detail = Assert.Single(stats.GetProperty("statusDetails").EnumerateArray());
        Assert.Equal(Calls, detail.GetProperty("calls").GetInt64());
        var messages = detail.GetProperty("messages").EnumerateArray().ToList();
        Assert.Equal(StatusDetails.MaxMessagesPerStatus, messages.Count);
        Assert.Equal(Calls - StatusDetails.MaxMessagesPerStatus, detail.GetProperty("otherMessageCalls").GetInt64());
        Assert.All(messages, message => Assert.EndsWith($"… (cut at {StatusDetails.MaxMessageLength} characters)", message.GetProperty("message").GetString()));
        var kept = stats.GetProperty("statusDetails").GetRawText().Length;
        Assert.True(kept < 4 * 1024, $"the run kept {kept} characters of the server's messages");
        Assert.True(result.Output.Length < 8 * 1024, $"the summary ran to {result.Output.Length} characters:{Environment.NewLine}{result.Output}");
    }
}
