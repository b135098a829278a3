using ApiGateway.Endpoints;
using LoadEngine.Protocols;
using LoadEngine.Strategies;
using LoadTest;
using LoadTest.Output;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>The CLI's command line, read in this process: what it accepts, the plans it makes, and the one sentence it gives when it cannot run.</summary>
public sealed class LoadTestCommandTests
{
    private const string Target = "http://127.0.0.1:5000";

    public static readonly string[] EveryOption =
    [
        "--target", "--strategy", "--workload", "--protocol", "--serializer", "--http-version", "--security", "--contenders", "--file-bytes",
        "--connection", "--clients", "--variant", "--users", "--http1-target", "--tls-target", "--trust-certificate", "--count", "--duration", "--load", "--concurrency", "--rate", "--stages", "--warmup", "--delay-ms",
        "--payload-bytes", "--percentiles", "--threshold", "--call-timeout", "--connect-timeout", "--silence-seconds", "--connect-failure-seconds", "--max-in-flight", "--json", "--report", "--plain",
        "--quiet", "--log-level", "--repetitions", "--run-id", "--shard", "--history-provider", "--history", "--help", "--version",
        "--insecure", "--call", "--proto", "--import-path", "--import-paths", "--protoset", "--data", "--data-file", "--list", "--cacert", "--cert", "--key",
        "--authority", "--insecure-skip-verify", "--metadata", "--metadata-file", "--compression", "--enable-compression", "--stream-call",
        "--connections", "--csv", "--format", "--output", "--budget", "--in-flight",
    ];

    [Fact]
    public async Task HelpListsTheCommandsAndEachCommandsHelpListsOnlyItsOwnOptions()
    {
        var command = new LoadTestCommand();
        var (code, output, error) = await InvokeAsync("--help");

        Assert.Equal(0, code);
        Assert.Empty(error);
        Assert.All(command.Root.Subcommands, subcommand => Assert.Contains($"  {subcommand.Name} ", output));
        Assert.Contains("Exit codes", output);
        // No option is left out of this test's list, so help is checked for each one the commands have.
        Assert.Empty(command.AllOptions.Select(option => option.Name).Except(EveryOption));
        string[] ofCommands = [.. EveryOption.Except(["--help", "--version"])];
        Assert.All(ofCommands, option => Assert.Contains(command.Root.Subcommands, subcommand => subcommand.Options.Any(o => o.Name == option)));
        foreach (var subcommand in command.Root.Subcommands)
        {
            var (subcode, help, suberror) = await InvokeAsync(subcommand.Name, "--help");
            Assert.Equal((0, ""), (subcode, suberror));
            Assert.Contains("Exit codes", help);
            var listed = ofCommands.Where(option => System.Text.RegularExpressions.Regex.IsMatch(help, $@"^\s+(-\S+, )*{option}[\s,]", System.Text.RegularExpressions.RegexOptions.Multiline));
            Assert.Equal([.. subcommand.Options.Select(option => option.Name).Order()], listed.Order());
        }
    }

    [Theory]
    [InlineData("run", "--target", Target, "--count", "10")]
    [InlineData("compare", "--target", Target, "--workload", "small-ints", "--protocol", "grpc")]
    [InlineData("compare", "--workload=small-ints", "--target", Target)]
    [InlineData("lessons", "--target", Target, "--lessons")]
    [InlineData("lessons", "--lessons", "streaming", "--target", Target)]
    [InlineData("lessons", "--target", Target, "--lessons=streaming,keep-alive", "--repetitions", "2")]
    [InlineData("agent", "--agent", "--run-id", "3f2504e0-4f89-11d3-9a0c-0305e82c3301", "--shard", "0/4", "--target", Target)]
    [InlineData("run", "run", "--target", Target, "--count", "10")]
    [InlineData("lessons", "lessons", "streaming", "--target", Target)]
    public void TodaysCommandLinesNameTheirCommand(string expected, params string[] arguments)
    {
        var parsed = new LoadTestCommand().Parse(arguments);

        Assert.Empty(parsed.Errors);
        Assert.Equal(expected, parsed.CommandResult.Command.Name);
    }

    [Theory]
    [InlineData("streaming", "--target", Target, "--lessons", "streaming")]
    [InlineData("streaming,keep-alive", "--target", Target, "--lessons=streaming,keep-alive")]
    [InlineData("streaming", "lessons", "streaming", "--target", Target)]
    [InlineData(null, "--lessons", "--target", Target)]
    public void TheLessonsIdsAreTheLessonsCommandsArgument(string? ids, params string[] arguments)
    {
        var command = new LoadTestCommand();

        Assert.Equal(ids, command.Parse(arguments).GetValue(command.LessonIds));
    }

    [Theory]
    [InlineData("Option '--target' is required.")]
    [InlineData("--bogus is not an option of run.", "--target", Target, "--count", "10", "--bogus")]
    [InlineData("--cout is not an option of run; did you mean --count?", "--target", Target, "--cout", "10")]
    [InlineData("--duraton is not an option of run; did you mean --duration?", "--target", Target, "--duraton", "10s")]
    [InlineData("--worklod is not an option of compare; did you mean --workload?", "--target", Target, "--workload", "small-ints", "--worklod", "x")]
    [InlineData("--repetition is not an option of lessons; did you mean --repetitions?", "--target", Target, "--lessons", "--repetition", "2")]
    [InlineData("duration was '10 s'; it must be a duration such as 10s, 1m30s or 500ms (units h, m, s, ms, us, ns), or a number of seconds, from 0.1 s to 600 s.", "--target", Target, "-z", "10 s")]
    [InlineData("duration was '11m40s'; it must be a duration such as 10s, 1m30s or 500ms (units h, m, s, ms, us, ns), or a number of seconds, from 0.1 s to 600 s.", "--target", Target, "-z", "11m40s")]
    [InlineData("call-timeout was '1d'; it must be a duration such as 10s", "--target", Target, "-n", "10", "-t", "1d")]
    [InlineData("--connections 1 is the single-connection strategy, and --strategy named client-wrapper; give one of them.", "--target", Target, "-n", "10", "--connections", "1", "--strategy", "client-wrapper")]
    [InlineData("connections was '0'; it must be a whole number from 1", "--target", Target, "-n", "10", "--connections", "0")]
    [InlineData("format was 'xml'; it must be one of: summary, csv, json, html.", "--target", Target, "-n", "10", "-O", "xml")]
    [InlineData("-o names the file -O writes; the summary is always printed, so give -O csv|json|html with it.", "--target", Target, "-n", "10", "-o", "out.csv")]
    [InlineData("--json and -O json -o both name the file; give one of them.", "--target", Target, "-n", "10", "-O", "json", "-o", "a.json", "--json", "b.json")]
    [InlineData("--target must be an absolute http:// or https:// address with no path", "--target", "ftp://127.0.0.1:5000", "--count", "10")]
    [InlineData("--target must be an absolute http:// or https:// address with no path", "--target", "http://127.0.0.1:5000/api", "--count", "10")]
    [InlineData("strategy was 'nope'; it must be all (each in turn) or one of: factory-client,", "--target", Target, "--strategy", "nope", "--count", "10")]
    [InlineData("count was '0'; it must be a whole number from 1 to 100000.", "--target", Target, "--count", "0")]
    [InlineData("agent needs --run-id: the id POST /api/runs answered for the distributed run.", "--target", Target, "--agent", "--shard", "0/4", "--history", "h.db")]
    [InlineData("--run-id was 'x'; it must be a run id (a GUID", "--target", Target, "--agent", "--run-id", "x", "--shard", "0/4", "--history", "h.db")]
    [InlineData("--shard was '4/4'; it must be index/count with the index from 0 and below the count, e.g. 0/4.", "--target", Target, "--agent", "--run-id", "3f2504e0-4f89-11d3-9a0c-0305e82c3301", "--shard", "4/4", "--history", "h.db")]
    [InlineData("the history provider was 'Oracle'; it must be Sqlite or Postgres", "--target", Target, "--agent", "--run-id", "3f2504e0-4f89-11d3-9a0c-0305e82c3301", "--shard", "0/4", "--history-provider", "Oracle")]
    [InlineData("--count is not an option of agent but of run and compare.", "--target", Target, "--agent", "--count", "10")]
    [InlineData("--shard is not an option of run but of agent.", "--target", Target, "--count", "10", "--shard", "0/4")]
    [InlineData("lessons named 'nope', which is not a lesson; name them from: reuse-channel, stream-limit, keep-alive, streaming, binary-payloads, grpc-vs-rest", "--target", Target, "--lessons", "streaming,nope")]
    [InlineData("--count is not an option of lessons but of run and compare.", "--target", Target, "--lessons", "--count", "10")]
    [InlineData("repetitions was '0'; it must be a whole number from 1 to 10.", "--target", Target, "--lessons", "streaming", "--repetitions", "0")]
    [InlineData("--repetitions is not an option of run but of lessons.", "--target", Target, "--count", "10", "--repetitions", "3")]
    [InlineData("A sequential run needs a count (calls) or a duration (seconds) to end; neither was given.", "--target", Target, "--strategy", "client-wrapper")]
    [InlineData("loadtest: An open run needs a rate", "--target", Target, "--load", "open", "--duration", "5")]
    [InlineData("loadtest: data is not JSON at line 1, position 6: ", "--target", Target, "-n", "10", "--call", "performance.Monitor/GetPerformance", "-d", "{\"a\":")]
    [InlineData("delayMs was '-1'", "--target", Target, "--count", "10", "--delay-ms=-1")]
    [InlineData("count was 'ten'; it must be a whole number from 1 to 100000.", "--target", Target, "--count", "ten")]
    [InlineData("count was ''; it must be a whole number from 1 to 100000.", "--target", Target, "--count", "")]
    [InlineData("concurrency was 'x'; it must be a whole number from 1 to 100.", "--target", Target, "--count", "10", "--concurrency", "x", "--max-in-flight", "100")]
    [InlineData("rate was 'x'; it must be a number of calls per second from 0 to 1000000 (for a ramping load, the rate it starts from).", "--target", Target, "-z", "5", "--load", "ramping", "--stages", "1:10", "--rate", "x")]
    [InlineData("load was 'sideways'; it must be one of: sequential, closed, open, ramping.", "--target", Target, "--count", "10", "--load", "sideways")]
    [InlineData("stages was '1:x'; '1:x' is not a stage.", "--target", Target, "-z", "5", "--load", "ramping", "--stages", "1:x")]
    [InlineData("percentiles was '50,abc'; 'abc' is not a percentile.", "--target", Target, "--count", "10", "--percentiles", "50,abc")]
    [InlineData("connections was 'x'; it must be a whole number from 1", "--target", Target, "-n", "10", "--connections", "x")]
    [InlineData("protocol was 'soap'; it must be grpc, grpc-code-first or rest.", "--target", Target, "--workload", "small-ints", "--protocol", "soap")]
    [InlineData("fileBytes was 'big'; it must be a whole number of bytes from 1024", "--target", Target, "--workload", "file-upload", "--file-bytes", "big")]
    [InlineData("users was 'x'; it must be a whole number from 1000 to 1000000, a multiple of 1000.", "--target", Target, "--workload", "bulk-read", "--users", "x")]
    [InlineData("variant was 'x'; it must be pages or stream.", "--target", Target, "--workload", "bulk-read", "--variant", "x")]
    [InlineData("max-in-flight was '0'; it must be a whole number from 1 to 100000.", "--target", Target, "--count", "10", "--max-in-flight", "0")]
    [InlineData("threshold 'p99 5ms' (thresholds[0]) could not be read", "--target", Target, "--count", "10", "--threshold", "p99 5ms")]
    [InlineData("concurrency was '200'; it must be a whole number from 1 to 100", "--target", Target, "--count", "1000", "--strategy", "single-connection", "--concurrency", "200", "--max-in-flight", "100")]
    [InlineData("call-timeout was '0'; it must be a duration such as 10s, 1m30s or 500ms (units h, m, s, ms, us, ns), or a number of seconds, from 0.01 s to 3600 s.", "--target", Target, "--count", "10", "--call-timeout", "0")]
    [InlineData("connect-timeout was 'soon'; it must be a duration such as 10s, 1m30s or 500ms (units h, m, s, ms, us, ns), or a number of seconds, from 0.01 s to 120 s.", "--target", Target, "--count", "10", "--connect-timeout", "soon")]
    [InlineData("log-level was 'loud'; it must be one of: trace, debug, information, warning, error, critical, none.", "--target", Target, "--count", "10", "--log-level", "loud")]
    [InlineData("json was '/no-such-folder/out.json'; it must name a file in a folder that exists", "--target", Target, "--count", "10", "--json", "/no-such-folder/out.json")]
    [InlineData("report was '/'; that is a folder, and it must name a file.", "--target", Target, "--count", "10", "--report", "/")]
    [InlineData("budget was '5s'; it must be a duration such as 10s, 1m30s or 500ms (units h, m, s, ms, us, ns), or a number of seconds, from 20 s to 1800 s.", "checkup", "--target", Target, "--call", "pkg.S/M", "--budget", "5s")]
    [InlineData("in-flight was '0'; it must be a whole number from 1 to 10000.", "checkup", "--target", Target, "--call", "pkg.S/M", "--in-flight", "0")]
    public async Task AnUnusableCommandLineExitsTwoWithOneSentenceAndAPointerToHelp(string sentence, params string[] arguments)
    {
        var (code, output, error) = await InvokeAsync(arguments);

        Assert.Equal(ExitCodes.Usage, code);
        Assert.Empty(output);
        var line = Assert.Single(error.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith("loadtest: ", line);
        Assert.Contains(sentence, line);
        Assert.EndsWith("See ./loadtest --help for every option.", line.TrimEnd());
    }

    [Fact]
    public void AllRunsEveryStrategyInTurnEachUnderItsOwnLoadWithTheSameSettings()
    {
        var settings = Read("--target", Target, "--count", "50", "--warmup", "5", "--threshold", "p99 < 5ms");

        Assert.True(settings.IsSuite);
        Assert.Equal(StrategyList.Names, settings.Plans.Select(plan => plan.Strategy));
        Assert.Equal(StrategyList.All.Select(strategy => strategy.Info.DefaultLoad), settings.Plans.Select(plan => plan.Load));
        Assert.All(settings.Plans, plan =>
        {
            Assert.Equal(50, plan.Count);
            Assert.Equal(5, plan.Warmup);
            Assert.Equal(["p99 < 5ms"], plan.Thresholds);
            Assert.False(plan.IncludeStatuses);
        });
    }

    [Fact]
    public void ANamedLoadAppliesToEveryStrategyOfTheSuite()
    {
        var settings = Read("--target", Target, "--count", "50", "--load", "closed", "--concurrency", "4");

        Assert.All(settings.Plans, plan => Assert.Equal((LoadKind.Closed, 4), (plan.Load, plan.Concurrency)));
    }

    [Fact]
    public void OneStrategyIsOneRunAgainstTheTargetWithTheEngineSettingsGiven()
    {
        var settings = Read("--target", "https://example.test:7000", "--strategy", "single-connection", "--count", "1000", "--max-in-flight", "64",
            "--call-timeout", "2.5", "--connect-timeout", "0.5", "--json", Path.Combine(Path.GetTempPath(), "run.json"), "--report", "report.html");

        Assert.False(settings.IsSuite);
        var plan = Assert.Single(settings.Plans);
        Assert.Equal(("single-connection", LoadKind.Closed, 64), (plan.Strategy, plan.Load, plan.Concurrency));
        Assert.Equal(new Uri("https://example.test:7000"), settings.Engine.ServerUri);
        Assert.Equal((TimeSpan.FromSeconds(2.5), TimeSpan.FromSeconds(0.5), 64), (settings.Engine.CallTimeout, settings.Engine.ConnectTimeout, settings.Engine.MaxInFlight));
        Assert.Equal(Path.Combine(Path.GetTempPath(), "run.json"), settings.JsonPath);
        Assert.Equal(Path.GetFullPath("report.html"), settings.ReportPath);
    }

    [Fact]
    public void LeftOutTheLimitsAndTimeoutsAreTheGatewaysDefaults()
    {
        var settings = Read("--target", Target, "--count", "10");

        Assert.Equal(new ApiGateway.Configuration.RunLimitsOptions().PlanLimits(), settings.Limits);
        Assert.Equal((TimeSpan.FromSeconds(10), TimeSpan.FromSeconds(3)), (settings.Engine.CallTimeout, settings.Engine.ConnectTimeout));
    }

    [Fact]
    public void GhzsFlagsAreTheirOptionsAndItsDurationsCarryUnits()
    {
        var settings = Read("-n", "100", "-c", "8", "--strategy", "single-connection", "-z", "1m30s", "-t", "500ms", "--cname", "api.test", "--connect-timeout", "2");

        var plan = Assert.Single(settings.Plans);
        Assert.Equal((100, 8, 90.0), (plan.Count, plan.Concurrency, plan.Duration));
        Assert.Equal((TimeSpan.FromMilliseconds(500), TimeSpan.FromSeconds(2)), (settings.Engine.CallTimeout, settings.Engine.ConnectTimeout));
        Assert.Equal("api.test", settings.Engine.Connection.Authority);
        Assert.Equal(2.5, Assert.Single(Read("--strategy", "client-wrapper", "--duration", "2.5").Plans).Duration);
        Assert.Equal(0.25, Assert.Single(Read("--strategy", "client-wrapper", "--duration", "250ms").Plans).Duration);
    }

    [Theory]
    [InlineData("10s", 10)]
    [InlineData("1m30s", 90)]
    [InlineData("500ms", 0.5)]
    [InlineData("1.5h", 5400)]
    [InlineData("250us", 0.00025)]
    [InlineData("7", 7)]
    [InlineData("0.5", 0.5)]
    public void AGhzDurationReadsAsGoWritesIt(string text, double seconds)
    {
        Assert.True(GhzDuration.TryParse(text, out var value));
        Assert.Equal(seconds, value.TotalSeconds, 9);
    }

    [Theory]
    [InlineData("s")]
    [InlineData("10x")]
    [InlineData("10 s")]
    [InlineData("-5s")]
    [InlineData("1d")]
    [InlineData("")]
    public void WhatIsNotADurationIsRefused(string text) => Assert.False(GhzDuration.TryParse(text, out _));

    [Fact]
    public void AConcurrencyAloneRunsASequentialStrategyUnderTheClosedLoad()
    {
        var plan = Assert.Single(Read("--strategy", "client-wrapper", "--count", "100", "--concurrency", "10").Plans);

        Assert.Equal((LoadKind.Closed, 10), (plan.Load, plan.Concurrency));
        // A suite leaves it to the strategies whose own load uses it.
        Assert.Equal(StrategyList.All.Select(strategy => strategy.Info.DefaultLoad), Read("-n", "100", "-c", "10").Plans.Select(plan => plan.Load));
    }

    [Fact]
    public void ARateAloneIsTheOpenLoadForOneStrategyAndForASuite()
    {
        var plan = Assert.Single(Read("--strategy", "client-wrapper", "--duration", "5s", "--rate", "100").Plans);
        var suite = Read("-z", "5s", "--rps", "100");

        Assert.Equal((LoadKind.Open, 100.0), (plan.Load, plan.Rate));
        Assert.All(suite.Plans, run => Assert.Equal((LoadKind.Open, 100.0), (run.Load, run.Rate)));
        // Stages are the ramping load's, whose start the rate is.
        Assert.All(Read("--rate", "10", "--stages", "1:100", "--load", "ramping").Plans, run => Assert.Equal(LoadKind.Ramping, run.Load));
    }

    [Fact]
    public void AWorkloadsSettingsAndContenderReachItsPlanTyped()
    {
        var read = Assert.Single(Read("--workload", "bulk-read", "--protocol", "grpc", "--variant", "stream", "--users", "2000", "-n", "20").Plans);
        var upload = Assert.Single(Read("--workload", "file-upload", "--protocol", "rest", "--http-version", "2", "--file-bytes", "2048", "--clients", "2", "-n", "20").Plans);
        var dto = Assert.Single(Read("--workload", "big-dto", "--protocol", "grpc", "--connection", "new-per-call", "-n", "20").Plans);

        Assert.Equal(("bulk-read", ApiProtocol.Grpc, BulkReadVariant.Stream, 2000), (read.Workload?.Id, read.Workload?.Contender?.Protocol, read.Workload?.Variant, read.Workload?.Users));
        Assert.Equal((ApiProtocol.Rest, 2048L, 2, ConnectionUse.NewPerCall), (upload.Workload?.Contender?.Protocol, upload.Workload?.FileBytes, upload.Workload?.Clients, dto.Workload?.Connection));
    }

    [Theory]
    [InlineData("1", "single-connection")]
    [InlineData("4", "multiple-connections")]
    public void GhzsConnectionsNameTheStrategyThatOpensThem(string connections, string strategy)
    {
        var settings = Read("-n", "100", "--connections", connections);

        Assert.False(settings.IsSuite);
        Assert.Equal(strategy, Assert.Single(settings.Plans).Strategy);
    }

    [Fact]
    public void FormatWithAnOutputIsThatFileAndWithoutOneIsStdoutAlone()
    {
        var folder = Path.GetTempPath();
        var csv = Read("-n", "10", "-O", "csv", "-o", Path.Combine(folder, "run.csv"));
        var html = Read("-n", "10", "--format", "html", "--output", Path.Combine(folder, "run.html"));
        var json = Read(false, ["--target", Target, "-n", "10", "-O", "json"]);

        Assert.Equal((Path.Combine(folder, "run.csv"), null, (ResultFormat?)null), (csv.CsvPath, csv.JsonPath, csv.StdoutFormat));
        Assert.Equal(Path.Combine(folder, "run.html"), html.ReportPath);
        Assert.Equal((ResultFormat.Json, ProgressMode.Quiet, null), (json.StdoutFormat, json.Progress, json.JsonPath));
        Assert.Null(Read("-n", "10", "-O", "summary").StdoutFormat);
    }

    [Theory]
    [InlineData(false, ProgressMode.Live)]
    [InlineData(true, ProgressMode.Plain)]
    [InlineData(false, ProgressMode.Plain, "--plain")]
    [InlineData(true, ProgressMode.Quiet, "--quiet")]
    [InlineData(false, ProgressMode.Quiet, "--quiet", "--plain")]
    public void ProgressIsLiveOnATerminalPlainWhenRedirectedOrAskedAndNoneWhenQuiet(bool redirected, ProgressMode expected, params string[] flags)
    {
        Assert.Equal(expected, Read(redirected, ["--target", Target, "--count", "10", .. flags]).Progress);
    }

    private static LoadTestSettings Read(params string[] arguments) => Read(true, arguments.Contains("--target") ? arguments : ["--target", Target, .. arguments]);

    private static LoadTestSettings Read(bool redirected, string[] arguments)
    {
        var command = new LoadTestCommand();
        var parsed = command.Parse(arguments);
        Assert.Empty(parsed.Errors);
        Assert.True(LoadTestSettings.TryRead(parsed, command, redirected, out var settings, out var error), error);
        return settings;
    }

    /// <summary>The CLI run in this process with <paramref name="arguments"/>: its exit code and what it wrote.</summary>
    [Fact]
    public async Task ACheckupWithoutAMethodExitsTwoSayingItNeedsCallBeforeAnythingIsCalled()
    {
        var (code, output, error) = await InvokeAsync("checkup", "127.0.0.1:1", "--insecure");

        Assert.Equal(ExitCodes.Usage, code);
        Assert.Empty(output);
        Assert.Equal("loadtest: checkup needs --call: the unary method of your service to check the client against, as package.Service/Method, e.g. performance.Monitor/GetPerformance.", error.Trim());
    }

    internal static async Task<(int Code, string Output, string Error)> InvokeAsync(params string[] arguments)
    {
        using var output = new StringWriter();
        using var error = new StringWriter();
        using var interrupt = new Interrupt();
        var code = await LoadTestCli.RunAsync(arguments, output, error, interrupt);
        return (code, output.ToString(), error.ToString());
    }
}
