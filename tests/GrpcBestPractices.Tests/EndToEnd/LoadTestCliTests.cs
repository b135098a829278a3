using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;
using LoadEngine.Strategies;
using LoadTest;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>
/// The CLI as a CI job runs it: its own process, stdout redirected, against the real PerformanceService on loopback.
/// What it prints, the file it writes and its exit code are the contract.
/// </summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class LoadTestCliTests(SystemFixture system)
{
    private string Target => system.Service.Url;

    [Fact]
    public async Task PassingThresholdsExitZeroAndTheJsonFileHoldsTheRunInTheGatewaysShape()
    {
        using var folder = new TemporaryFolder();
        var json = folder.File("run.json");

        var result = await CliProcess.RunAsync("--target", Target, "--strategy", "client-wrapper", "--count", "200", "--warmup", "20",
            "--threshold", "errorRate < 1%", "--threshold", "p99 < 10s", "--json", json);

        Assert.True(result.ExitCode == ExitCodes.Passed, result.ToString());
        Assert.Contains("PASSED: every threshold held (2 in 1 run). Exit code 0.", result.Output);
        Assert.DoesNotContain('\u001b', result.Output);
        var run = ReadJson(json);
        Assert.Equal("client-wrapper", run.GetProperty("plan").GetProperty("strategy").GetString());
        Assert.Equal("Completed", run.GetProperty("state").GetString());
        Assert.Equal(200, run.GetProperty("stats").GetProperty("calls").GetInt64());
        Assert.Equal(20, run.GetProperty("stats").GetProperty("warmupCalls").GetInt32());
        Assert.True(run.GetProperty("stats").GetProperty("latency").GetProperty("p99Ms").GetDouble() > 0);
        Assert.NotEmpty(run.GetProperty("series").GetProperty("points").EnumerateArray());
        var verdict = run.GetProperty("verdict");
        Assert.True(verdict.GetProperty("passed").GetBoolean());
        Assert.Equal(["errorRate < 1%", "p99 < 10s"], verdict.GetProperty("thresholds").EnumerateArray().Select(t => t.GetProperty("threshold").GetString()));
        // The gateway's own serialisation of the same record has exactly these fields.
        var record = JsonSerializer.Deserialize<RunRecord>(run.GetRawText(), RunJson.Options)!;
        Assert.Equal(Names(JsonSerializer.SerializeToElement(record, RunJson.Options)), Names(run));
    }

    [Fact]
    public async Task GhzsFlagsRunAnOpenLoadWhoseCsvAloneIsOnStdoutAndWhoseSummaryShowsTheLateAndDroppedSends()
    {
        // ghz's spellings: --rps alone makes the load open, -z takes units, -O csv without -o leaves stdout to the CSV.
        var result = await CliProcess.RunAsync("--target", Target, "--strategy", "client-wrapper", "-z", "1500ms", "--rps", "200", "-t", "5s", "-O", "csv");

        Assert.True(result.ExitCode == ExitCodes.Passed, result.ToString());
        var lines = result.Output.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(string.Join(',', LoadTest.Output.ResultFormats.CsvHeader), lines[0]);
        var row = Assert.Single(lines[1..]).Split(',');
        Assert.Equal(["client-wrapper", "Completed"], row[..2]);
        // Due sends: 200/s for 1.5 s, give or take the schedule's last tick.
        Assert.InRange(long.Parse(row[13], System.Globalization.CultureInfo.InvariantCulture), 250, 350);
        Assert.Contains("Arrival schedule", result.Error);
        Assert.Matches(@"\| client-wrapper \| +200/s \| +[\d,]+/s \| +[\d,]+ \| +[\d,]+ \| +[\d,]+ of [\d,]+ \(> 1\.000 ms\) \| +[\d,]+ \| +[\d.]+ ms \| +[\d.]+ ms \| +[\d.]+ ms \|", result.Error);
        Assert.Contains("COMPLETED: 1 run", result.Error);
    }

    [Fact]
    public async Task AFailingThresholdExits99AndTheSummarySaysWhichFailedAndByHowMuch()
    {
        using var folder = new TemporaryFolder();
        var json = folder.File("run.json");

        var result = await CliProcess.RunAsync("--target", Target, "--strategy", "client-wrapper", "--count", "100",
            "--threshold", "p50 < 1us", "--threshold", "errorRate < 1%", "--json", json, "--report", folder.File("run.html"));

        Assert.True(result.ExitCode == ExitCodes.ThresholdFailed, result.ToString());
        Assert.Matches(@"\| client-wrapper \| p50 < 1us +\| +[\d.]+ ms \| +< 0\.001 ms \| failed +\|", result.Output);
        Assert.Matches(@"\| client-wrapper \| errorRate < 1% +\| +0% \| +< 1% \| passed +\|", result.Output);
        Assert.Contains("FAILED: 1 of 2 thresholds failed. Exit code 99.", result.Output);
        var verdict = ReadJson(json).GetProperty("verdict");
        Assert.False(verdict.GetProperty("passed").GetBoolean());
        Assert.False(verdict.GetProperty("thresholds")[0].GetProperty("passed").GetBoolean());
        Assert.True(verdict.GetProperty("thresholds")[0].GetProperty("measured").GetDouble() > 0.001);
        Assert.Contains("data-verdict=\"failed\"", File.ReadAllText(folder.File("run.html")));
    }

    [Fact]
    public async Task ReportWritesOneSelfContainedHtmlFileOfTheSuiteWithEveryStrategyAndItsVerdict()
    {
        using var folder = new TemporaryFolder();
        var (report, json) = (folder.File("suite.html"), folder.File("suite.json"));

        var result = await CliProcess.RunAsync("--target", Target, "--strategy", "all", "--count", "30", "--threshold", "errorRate < 1%", "--report", report, "--json", json);

        Assert.True(result.ExitCode == ExitCodes.Passed, result.ToString());
        Assert.Contains($"Report: {report}", result.Output);
        var html = File.ReadAllText(report);
        Assert.StartsWith("<!doctype html>", html);
        Assert.Contains("data-verdict=\"passed\"", html);
        Assert.Contains($"Target: <strong>{Target}/</strong>", html);
        Assert.Contains("the GrpcBestPractices CLI (./loadtest)", html);
        Assert.All(StrategyList.Names, name => Assert.Contains(name, html));
        var document = ReadJson(json);
        Assert.True(document.GetProperty("passed").GetBoolean());
        Assert.All(document.GetProperty("runs").EnumerateArray(), run => Assert.Contains(run.GetProperty("id").GetString()!, html));
        // Self-contained: scripts and styles are inline and nothing is fetched, so it opens from a CI artifact offline.
        Assert.DoesNotMatch("<script[^>]+src=|<link[^>]+href=|<img[^>]+src=|url\\(", html);
        Assert.Contains("default-src 'none'", html);
    }

    [Fact]
    public async Task AUsageErrorExitsTwoWithOneSentenceOnStderrAndRunsNothing()
    {
        var result = await CliProcess.RunAsync("--target", Target, "--strategy", "client-wrapper", "--count", "0");

        Assert.Equal(ExitCodes.Usage, result.ExitCode);
        Assert.Empty(result.Output);
        Assert.Equal("loadtest: count was '0'; it must be a whole number from 1 to 100000. See ./loadtest --help for every option.", Assert.Single(result.ErrorLines));
    }

    [Fact]
    public async Task ASuiteRunsEveryStrategyInTurnAndTheJsonHoldsTheSuiteAndItsRuns()
    {
        using var folder = new TemporaryFolder();
        var json = folder.File("suite.json");

        var result = await CliProcess.RunAsync("--target", Target, "--strategy", "all", "--count", "50", "--json", json);

        Assert.True(result.ExitCode == ExitCodes.Passed, result.ToString());
        var of = StrategyList.Names.Count;
        for (var index = 0; index < of; index++)
        {
            Assert.Contains($"[{index + 1}/{of}] {StrategyList.Names[index]}: Completed: 50 calls in ", result.Output);
        }

        var document = ReadJson(json);
        var suite = document.GetProperty("suite");
        Assert.Equal("Completed", suite.GetProperty("state").GetString());
        Assert.Equal(StrategyList.Names, suite.GetProperty("strategies").EnumerateArray().Select(name => name.GetString()));
        var runs = document.GetProperty("runs").EnumerateArray().ToList();
        Assert.Equal(StrategyList.Names, runs.Select(run => run.GetProperty("plan").GetProperty("strategy").GetString()));
        Assert.All(runs, run =>
        {
            Assert.Equal("Completed", run.GetProperty("state").GetString());
            Assert.Equal(50, run.GetProperty("stats").GetProperty("succeeded").GetInt64());
            Assert.Equal(suite.GetProperty("id").GetString(), run.GetProperty("suiteId").GetString());
        });
        Assert.Equal(JsonValueKind.Null, document.GetProperty("passed").ValueKind);
    }

    [Theory]
    [InlineData(ExitCodes.NotCompleted)]
    [InlineData(ExitCodes.ThresholdFailed, "--threshold", "p99 < 5ms")]
    public async Task ADeadTargetEndsFailedNamingTheAddressAndTheReason(int exitCode, params string[] thresholds)
    {
        var dead = $"http://127.0.0.1:{Ports.Unused()}";

        var result = await CliProcess.RunAsync(["--target", dead, "--strategy", "client-wrapper", "--count", "50", .. thresholds]);

        Assert.True(result.ExitCode == exitCode, result.ToString());
        Assert.Contains($"client-wrapper failed against {dead}/: The service is unreachable:", result.Output);
        Assert.Matches(@"\| client-wrapper \| Failed +\|", result.Output);
    }

    [Fact]
    public async Task CtrlCCancelsTheRunAndStillPrintsTheSummaryAndWritesTheJson()
    {
        using var folder = new TemporaryFolder();
        var json = folder.File("run.json");
        using var cli = CliProcess.Start("--target", Target, "--strategy", "client-wrapper", "--count", "10000", "--delay-ms", "20", "--json", json);

        // Interrupted once calls have been measured: the first progress line may still count none.
        Assert.True(await cli.WaitForOutputAsync(line => System.Text.RegularExpressions.Regex.IsMatch(line, @"^client-wrapper: measured [1-9]"), TimeSpan.FromSeconds(60)),
            "no progress line with a measured call came");
        cli.Interrupt();
        // A bound, not a timing: without the interrupt the run goes on for 200 s and more.
        var result = await cli.WaitForExitAsync(TimeSpan.FromSeconds(90));

        Assert.True(result.ExitCode == ExitCodes.Interrupted, result.ToString());
        Assert.Contains("INTERRUPTED by Ctrl+C (SIGINT): a cancelled run is not a pass. Exit code 105.", result.Output);
        Assert.Matches(@"\| client-wrapper \| Cancelled +\|", result.Output);
        var run = ReadJson(json);
        Assert.Equal("Cancelled", run.GetProperty("state").GetString());
        Assert.Equal("Interrupted by Ctrl+C (SIGINT) before the run finished.", run.GetProperty("error").GetString());
        Assert.InRange(run.GetProperty("stats").GetProperty("calls").GetInt64(), 1, 9999);
    }

    [Fact]
    public async Task TheScriptPassesEveryArgumentAndTheExitCodeThrough()
    {
        using var failing = CliProcess.StartScript("--no-build", "--target", Target, "--strategy", "client-wrapper", "--count", "20", "--threshold", "p50 < 1us");
        var failed = await failing.WaitForExitAsync();
        using var unusable = CliProcess.StartScript("--no-build", "--target", Target, "--bogus");
        var usage = await unusable.WaitForExitAsync();

        Assert.True(failed.ExitCode == ExitCodes.ThresholdFailed, failed.ToString());
        Assert.Contains("FAILED: 1 of 1 thresholds failed.", failed.Output);
        Assert.Equal(ExitCodes.Usage, usage.ExitCode);
        Assert.Contains("--bogus is not an option of run", Assert.Single(usage.ErrorLines));
    }

    /// <summary>
    /// The CLI as someone who never cloned the repository gets it: packed as a .NET tool (from the build the suite made),
    /// installed into a temporary tool path from that package alone, and run by its command name against the service.
    /// The install's NuGet package folder is a temporary one too, so nothing lands in the user's.
    /// </summary>
    [Fact]
    public async Task TheCliPacksAsADotnetToolThatInstallsAndRunsByItsCommandName()
    {
        using var folder = new TemporaryFolder();
        var (packages, tools) = (folder.File("packages"), folder.File("tools"));
        var environment = new Dictionary<string, string> { ["NUGET_PACKAGES"] = folder.File("nuget"), ["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1" };

        var pack = await RunProgramAsync(new Dictionary<string, string>(), "dotnet", "pack", "LoadTest/LoadTest.csproj", "-c", AppProcess.Configuration, "--no-build", "-o", packages);
        Assert.True(pack.ExitCode == 0, pack.ToString());
        Assert.True(File.Exists(Path.Combine(packages, "GrpcBestPractices.LoadTest.1.0.0.nupkg")), pack.ToString());
        var install = await RunProgramAsync(environment, "dotnet", "tool", "install", "GrpcBestPractices.LoadTest", "--tool-path", tools, "--add-source", packages);
        Assert.True(install.ExitCode == 0, install.ToString());

        var result = await RunProgramAsync(environment, Path.Combine(tools, "loadtest"), "run", "--target", Target, "--strategy", "client-wrapper", "--count", "50", "--threshold", "errorRate < 1%");

        Assert.True(result.ExitCode == ExitCodes.Passed, result.ToString());
        Assert.Contains("PASSED: every threshold held (1 in 1 run). Exit code 0.", result.Output);
        Assert.Matches(@"\| client-wrapper +\| Completed \| +50 \| +0 \|", result.Output);
        // A described call too: protoc and the compile worker (LoadEngine.Compiler) ship inside the package.
        var proto = Path.Combine(AppProcess.RepositoryRoot, "GrpcDependencies", "Protos", "performance.proto");
        var described = await RunProgramAsync(environment, Path.Combine(tools, "loadtest"), "run", "--target", Target, "--proto", proto, "--call", "performance.Monitor/GetPerformance", "--strategy", "client-wrapper", "--count", "5");
        Assert.True(described.ExitCode == ExitCodes.Passed, described.ToString());
        Assert.Matches(@"\| client-wrapper +\| Completed \| +5 \| +0 \|", described.Output);
        var usage = await RunProgramAsync(environment, Path.Combine(tools, "loadtest"), "run", "--count", "5");
        Assert.Equal(ExitCodes.Usage, usage.ExitCode);
        Assert.Contains("See loadtest --help for every option.", usage.Error);
    }

    private static async Task<CliResult> RunProgramAsync(IReadOnlyDictionary<string, string> environment, string program, params string[] arguments)
    {
        using var process = CliProcess.StartProgram(program, environment, arguments);
        return await process.WaitForExitAsync(TimeSpan.FromMinutes(5));
    }

    private static JsonElement ReadJson(string path)
    {
        using var document = JsonDocument.Parse(File.ReadAllText(path));
        return document.RootElement.Clone();
    }

    private static IEnumerable<string> Names(JsonElement element) => element.EnumerateObject().Select(property => property.Name);
}
