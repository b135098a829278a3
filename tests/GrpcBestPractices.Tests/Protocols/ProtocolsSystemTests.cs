using System.Net;
using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;
using LoadEngine.Protocols;
using LoadTest;

namespace GrpcBestPractices.Tests.Protocols;

/// <summary>
/// Workload runs through the gateway's API and through the CLI as its own process, against the real service's three
/// listeners: what they list, what a run reports, thresholds and exit codes, and the 400 for what makes no sense.
/// </summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class ProtocolsSystemTests(SystemFixture system)
{
    [Fact]
    public async Task TheWorkloadsApiListsEveryWorkloadAndTheTwelveContendersAllRunnableHere()
    {
        var catalog = await system.Http.GetJsonAsync("/api/workloads");

        Assert.Equal(WorkloadList.Ids, catalog.GetProperty("workloads").EnumerateArray().Select(workload => workload.GetProperty("id").GetString()));
        var contenders = catalog.GetProperty("contenders").EnumerateArray().ToList();
        Assert.Equal(ContenderList.Names, contenders.Select(contender => contender.GetProperty("name").GetString()));
        Assert.All(contenders, contender => Assert.True(contender.GetProperty("available").GetBoolean(), contender.ToString()));
        var upload = catalog.GetProperty("workloads").EnumerateArray().Single(workload => workload.GetProperty("id").GetString() == "file-upload");
        Assert.Equal("104857600", upload.GetProperty("parameters")[0].GetProperty("allowed").GetString()!.Split(' ')[^1]);
    }

    [Fact]
    public async Task AWorkloadRunThroughTheApiReportsBytesPerCallAndWhatTheServiceSaw()
    {
        var started = await system.Http.StartRunAsync(
            """{"workload": "big-list", "protocol": "rest", "serializer": "newtonsoft", "httpVersion": "2", "security": "tls", "count": 4, "warmup": 1}""");

        var run = await system.Http.WaitUntilFinishedAsync($"/api/runs/{started.GetProperty("id").GetString()}");

        Assert.True(run.GetProperty("state").GetString() == "Completed", run.ToString());
        var plan = run.GetProperty("plan");
        Assert.Equal(("rest-newtonsoft-h2-tls", "big-list", "2"), (plan.GetProperty("strategy").GetString(), plan.GetProperty("workload").GetString(), plan.GetProperty("httpVersion").GetString()));
        var stats = run.GetProperty("stats");
        Assert.Equal(4, stats.GetProperty("succeeded").GetInt64());
        Assert.InRange(stats.GetProperty("bytesReceivedPerCall").GetDouble(), 134_011, 137_000);
        Assert.True(stats.GetProperty("bytesSentPerCall").GetDouble() > 0);
        Assert.True(stats.GetProperty("serviceAllocatedBytesPerCall").GetDouble() > 0);
        var saw = stats.GetProperty("serverSaw");
        Assert.Equal(("rest-newtonsoft", "HTTP/2", 4), (saw.GetProperty("api").GetString(), saw.GetProperty("httpVersion").GetString(), saw.GetProperty("requests").GetInt32()));
        Assert.Contains(saw.GetProperty("tls").GetString(), new[] { "Tls12", "Tls13" });
        Assert.Contains("REST · Newtonsoft.Json · HTTP/2 · TLS", run.GetProperty("measured").GetString());
        var history = await system.Http.GetJsonAsync("/api/runs?strategy=rest-newtonsoft-h2-tls");
        Assert.Contains(history.GetProperty("runs").EnumerateArray(), listed => listed.GetProperty("id").GetString() == started.GetProperty("id").GetString());
    }

    [Theory]
    [InlineData("""{"workload": "small-ints", "protocol": "grpc-code-first", "httpVersion": "1.1"}""", "httpVersion was '1.1' with protocol grpc-code-first; gRPC needs HTTP/2")]
    [InlineData("""{"workload": "small-ints", "protocol": "rest", "serializer": "protobuf"}""", "serializer was 'protobuf' with protocol rest; REST here is JSON")]
    [InlineData("""{"workload": "small-ints", "protocol": "grpc", "serializer": "system-text-json"}""", "serializer was 'system-text-json' with protocol grpc; gRPC sends protobuf only.")]
    [InlineData("""{"workload": "bulk-read", "protocol": "rest", "variant": "stream"}""", "variant 'stream' reads the users as one gRPC server stream; protocol was 'rest'")]
    [InlineData("""{"workload": "file-upload", "protocol": "grpc", "fileBytes": 104857601}""", "fileBytes was '104857601'; it must be a whole number of bytes from 1024 to 104857600")]
    [InlineData("""{"workload": "telemetry", "protocol": "grpc"}""", "workload was 'telemetry'; it must be one of: small-ints, small-mixed, big-list,")]
    [InlineData("""{"workload": "small-ints", "protocol": "soap"}""", "protocol was 'soap'; it must be grpc, grpc-code-first or rest.")]
    [InlineData("""{"strategy": "client-wrapper", "count": 5, "security": "tls"}""", "security applies to workload runs only")]
    public async Task ACombinationThatMakesNoSenseIsA400ProblemNamingWhatIsAllowed(string body, string expected)
    {
        using var response = await system.Http.PostJsonAsync("/api/runs", body);

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        var problem = await SystemFixture.ReadProblemAsync(response);
        Assert.StartsWith(expected, problem.GetProperty("detail").GetString());
    }

    [Fact]
    public async Task TheCliRunsAWorkloadWithThresholdsExitingZeroAndWritesWhatTheServiceSaw()
    {
        using var folder = new TemporaryFolder();
        var json = folder.File("run.json");

        var result = await CliProcess.RunAsync([.. system.CliTargets, "--workload", "small-mixed", "--protocol", "rest", "--serializer", "newtonsoft",
            "--count", "50", "--warmup", "5", "--threshold", "errorRate < 1%", "--threshold", "p99 < 10s", "--json", json]);

        Assert.True(result.ExitCode == ExitCodes.Passed, result.ToString());
        // The plan in the one wording the report and the page share: what is called, then the load.
        Assert.Contains("rest-newtonsoft-h1-cleartext: workload small-mixed, protocol rest, serializer newtonsoft, ", result.Output);
        Assert.Contains(", 50 calls, sequential, 5 warm-up calls, ", result.Output);
        Assert.Matches(@"\| rest-newtonsoft-h1-cleartext \| small-mixed +\| +\d+ B \| +\d+ B \| +[\d,]+ B \| HTTP/1\.1, TLS none \|", result.Output);
        var stats = JsonDocument.Parse(File.ReadAllText(json)).RootElement.GetProperty("stats");
        Assert.Equal("HTTP/1.1", stats.GetProperty("serverSaw").GetProperty("httpVersion").GetString());
        Assert.True(stats.GetProperty("bytesReceivedPerCall").GetDouble() > 133);
    }

    [Fact]
    public async Task AWorkloadThresholdThatFailsExits99()
    {
        var result = await CliProcess.RunAsync([.. system.CliTargets, "--workload", "big-dto", "--protocol", "grpc-code-first", "--security", "tls",
            "--connection", "new-per-call", "--count", "5", "--threshold", "p50 < 1us"]);

        Assert.True(result.ExitCode == ExitCodes.ThresholdFailed, result.ToString());
        Assert.Contains("| grpc-code-first-h2-tls | p50 < 1us", result.Output);
    }

    [Fact]
    public async Task ContendersAllRunsTheWorkloadOnEveryContenderInTurn()
    {
        using var folder = new TemporaryFolder();
        var json = folder.File("suite.json");

        var result = await CliProcess.RunAsync([.. system.CliTargets, "--workload", "log-write", "--contenders", "all", "--count", "10", "--json", json]);

        Assert.True(result.ExitCode == ExitCodes.Passed, result.ToString());
        var runs = JsonDocument.Parse(File.ReadAllText(json)).RootElement.GetProperty("runs").EnumerateArray().ToList();
        Assert.Equal(ContenderList.Names, runs.Select(run => run.GetProperty("plan").GetProperty("strategy").GetString()));
        Assert.All(runs, run => Assert.Equal(10, run.GetProperty("stats").GetProperty("succeeded").GetInt64()));
    }

    [Fact]
    public async Task ACombinationThatMakesNoSenseIsAUsageErrorBeforeAnythingRuns()
    {
        var result = await CliProcess.RunAsync([.. system.CliTargets, "--workload", "small-ints", "--protocol", "grpc-code-first", "--http-version", "1.1"]);

        Assert.Equal(ExitCodes.Usage, result.ExitCode);
        Assert.StartsWith("loadtest: httpVersion was '1.1' with protocol grpc-code-first; gRPC needs HTTP/2", Assert.Single(result.ErrorLines));
    }
}
