using HistoryStore;
using GrpcBestPractices.Tests.Infrastructure;
using LoadTest;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.Hostile;

/// <summary>
/// What a hostile server does with what the tool sends it: it echoes every header into its answer, so a secret the tool
/// was given comes back in the run's first answer (masked wherever the tool writes it: its output, --json, --report, an
/// agent's stored share); and a template that would render a gigabyte is refused before it renders.
/// </summary>
[Trait("Category", "Process")]
public sealed class HostileEchoTests(ITestOutputHelper output)
{
    private readonly string _secret = $"hostile-secret-{Guid.NewGuid():N}";

    [Fact]
    public async Task TheAuthorizationTheCliSendsComesBackMaskedInItsOutputJsonAndReport()
    {
        using var folder = new TemporaryFolder();
        await using var server = await HostileReflectionServer.StartAsync(HostileDescriptors.Tiny());
        var json = folder.File("run.json");
        var report = folder.File("run.html");

        var run = await HostileTool.CliAsync(folder.Path, server.HostPort, "--insecure", "--call", HostileDescriptors.Call, "--count", "3", "--strategy", "client-wrapper",
            "-m", $"authorization: Bearer {_secret}", "--json", json, "--report", report);
        output.WriteLine(run.ToString());

        Assert.True(run.Result.ExitCode == ExitCodes.Passed, run.ToString());
        // The server did echo the header: the first answer names it.
        Assert.Contains("authorization", File.ReadAllText(json));
        foreach (var (what, text) in new[] { ("stdout", run.Result.Output), ("stderr", run.Result.Error), ("--json", File.ReadAllText(json)), ("--report", File.ReadAllText(report)) })
        {
            Assert.False(text.Contains(_secret, StringComparison.Ordinal), $"The CLI's {what} shows the authorization it sent: {text}");
        }
    }

    [Fact]
    public async Task MetadataWithoutAColonIsOneSentenceThatDoesNotQuoteTheValue()
    {
        using var folder = new TemporaryFolder();
        await using var server = await HostileReflectionServer.StartAsync(HostileDescriptors.Tiny());

        var run = await HostileTool.CliAsync(folder.Path, server.HostPort, "--insecure", "--call", HostileDescriptors.Call, "--count", "3", "-m", $"Bearer {_secret}");

        Assert.True(run.Result.ExitCode == ExitCodes.Usage, run.ToString());
        Assert.DoesNotContain(_secret, Assert.Single(run.Result.ErrorLines), StringComparison.Ordinal);
    }

    [Fact]
    public async Task ATemplateThatWouldRenderAGigabyteIsRefusedBeforeItRenders()
    {
        using var folder = new TemporaryFolder();
        await using var server = await HostileReflectionServer.StartAsync(HostileDescriptors.Tiny());

        var run = await HostileTool.CliAsync(folder.Path, server.HostPort, "--insecure", "--call", HostileDescriptors.Call, "--count", "3", "--strategy", "client-wrapper",
            "-d", """{"text": "{{randomString 1000000000}}"}""");
        output.WriteLine(run.ToString());

        HostileAssert.DidNotCrash("The CLI", run.Result.ExitCode, run.Result.Output + run.Result.Error);
        Assert.True(run.Result.ExitCode == ExitCodes.Usage, run.ToString());
        Assert.Contains("at most", Assert.Single(run.Result.ErrorLines), StringComparison.Ordinal);
    }

    [Fact]
    public async Task TheAuthorizationAnAgentSendsComesBackMaskedInItsOutputAndItsStoredShare()
    {
        using var folder = new TemporaryFolder();
        var set = HostileDescriptors.Tiny();
        await using var server = await HostileReflectionServer.StartAsync(set);
        var history = folder.File("history.db");
        Guid id;
        await using (var store = new RunAgentStore(HistoryDatabase.Open(HistoryDatabase.Sqlite, history)))
        {
            await store.EnsureSchemaAsync();
            id = await HostileAgentTests.CreateRunAsync(store, set);
        }

        var agent = await HostileTool.CliAsync(folder.Path,
            "agent", "--run-id", id.ToString(), "--shard", "0/1", "--target", server.Url, "--history", history, "--plain", "--silence-seconds", "30",
            "-m", $"authorization: Bearer {_secret}");
        output.WriteLine(agent.ToString());

        Assert.True(agent.Result.ExitCode == ExitCodes.Passed, agent.ToString());
        await using (var store = new RunAgentStore(HistoryDatabase.Open(HistoryDatabase.Sqlite, history)))
        {
            var shard = Assert.Single(await store.ListShardsAsync(id, withFigures: true));
            Assert.Contains("authorization", shard.Stats!.FirstAnswer);
        }

        Assert.DoesNotContain(_secret, agent.Result.Output + agent.Result.Error, StringComparison.Ordinal);
        Assert.False(HostileAssert.AnyFileHolds(_secret, Directory.EnumerateFiles(folder.Path, "history.db*")), "The shared history holds the authorization the agent sent.");
    }
}
