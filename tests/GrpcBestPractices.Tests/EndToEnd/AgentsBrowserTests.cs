using System.Diagnostics;
using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>
/// A run shared among two load agents, started from the page in headless Chromium (tests/browser/agents.mjs): the page
/// shows the commands that start the agents, this test starts agent processes from exactly those commands, and the page
/// follows the run to Completed with each agent's share, to Partial when one agent never comes, or to Failed when none does.
/// </summary>
[Trait("Category", "Process")]
public sealed class AgentsBrowserTests(ServiceFixture shared, ITestOutputHelper output) : IClassFixture<ServiceFixture>
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(120);

    [Fact]
    public async Task TwoAgentsStartedFromThePagesCommandsCompleteTheRunAndThePageShowsEachAgentsShare()
    {
        var result = await RunFromThePageAsync("Completed", joinTimeoutSeconds: 120, shardsStarted: 2);

        Assert.Equal("Completed", result.GetProperty("state").GetString());
    }

    [Fact]
    public async Task AnAgentThatNeverComesMakesTheRunPartialAndThePageSaysWhoseShareIsMissing()
    {
        var result = await RunFromThePageAsync("Partial", joinTimeoutSeconds: 30, shardsStarted: 1);

        Assert.Equal("Partial", result.GetProperty("state").GetString());
    }

    [Fact]
    public async Task NoAgentComingWithinTheJoinTimeoutFailsTheRunAndThePageSaysSo()
    {
        var result = await RunFromThePageAsync("Failed", joinTimeoutSeconds: 8, shardsStarted: 0);

        Assert.Equal("Failed", result.GetProperty("state").GetString());
    }

    private async Task<JsonElement> RunFromThePageAsync(string expected, int joinTimeoutSeconds, int shardsStarted)
    {
        using var folder = new TemporaryFolder();
        var handoff = folder.File("commands.json");
        await using var gateway = await AppProcess.StartAsync("ApiGateway",
            ["--ServerUrl", shared.Service.Url, "--Agents:JoinTimeoutSeconds", joinTimeoutSeconds.ToString(System.Globalization.CultureInfo.InvariantCulture)]);

        var clock = Stopwatch.StartNew();
        var browser = BrowserScript.RunAsync(output, "agents.mjs", Patience, gateway.Url, handoff, expected, BrowserScript.Screenshots, "200", "90");
        var commands = await CommandsShownAsync(handoff, browser);
        Assert.Equal(2, commands.Count);
        Assert.All(commands, command => Assert.EndsWith($"--history {gateway.HistoryPath}", command));

        var agents = commands.Take(shardsStarted).Select(command => CliProcess.Start(AgentArguments(command))).ToList();
        try
        {
            var ended = await Task.WhenAll(agents.Select(agent => agent.WaitForExitAsync(Patience)));
            Assert.All(ended, agent => Assert.True(agent.ExitCode == 0, agent.ToString()));
            var result = await browser;
            output.WriteLine($"{expected}: {clock.ElapsedMilliseconds} ms from the page's start to its checks' end");
            return result;
        }
        finally
        {
            agents.ForEach(agent => agent.Dispose());
        }
    }

    /// <summary>The commands the page showed, once the script has written them (or has failed before it could).</summary>
    private static async Task<List<string>> CommandsShownAsync(string handoff, Task browser)
    {
        var deadline = Stopwatch.StartNew();
        while (!File.Exists(handoff) || new FileInfo(handoff).Length == 0)
        {
            if (browser.IsCompleted)
            {
                await browser;
                Assert.Fail("the browser script ended before the page showed the agents' commands");
            }

            Assert.True(deadline.Elapsed < Patience, "the page never showed the agents' commands");
            await Task.Delay(50);
        }

        using var json = JsonDocument.Parse(await File.ReadAllTextAsync(handoff));
        return [.. json.RootElement.GetProperty("commands").EnumerateArray().Select(command => command.GetString()!)];
    }

    /// <summary>"./loadtest agent …" as the page shows it, for dotnet LoadTest.dll, with a generous silence window for two busy cores.</summary>
    private static string[] AgentArguments(string command)
    {
        var words = command.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal("./loadtest", words[0]);
        return [.. words.Skip(1), "--plain", "--silence-seconds", "30"];
    }
}
