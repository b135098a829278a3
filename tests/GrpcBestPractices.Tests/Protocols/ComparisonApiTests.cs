using System.Net;
using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;
using LoadEngine.Protocols;

namespace GrpcBestPractices.Tests.Protocols;

/// <summary>
/// Protocol comparisons through the gateway's API against the real service's three listeners: the interleaved schedule,
/// runs stored like any other, the summary against the runs' own figures, the sentence, failures, cancel, 400/404/429.
/// </summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class ComparisonApiTests(SystemFixture system)
{
    private const string Grpc = "grpc-h2-cleartext";
    private const string Stj = "rest-stj-h2-cleartext";
    private const string NewtonsoftTls = "rest-newtonsoft-h1-tls";

    /// <summary>Each figure of the summary and where a run's stats hold it.</summary>
    private static readonly (string Figure, Func<JsonElement, double> Read)[] Figures =
    [
        ("meanMs", stats => stats.GetProperty("latency").GetProperty("meanMs").GetDouble()),
        ("p50Ms", stats => stats.GetProperty("latency").GetProperty("p50Ms").GetDouble()),
        ("p99Ms", stats => stats.GetProperty("latency").GetProperty("p99Ms").GetDouble()),
        ("throughputPerSecond", stats => stats.GetProperty("throughputPerSecond").GetDouble()),
        ("bytesSentPerCall", stats => stats.GetProperty("bytesSentPerCall").GetDouble()),
        ("bytesReceivedPerCall", stats => stats.GetProperty("bytesReceivedPerCall").GetDouble()),
        ("clientAllocatedBytesPerCall", stats => stats.GetProperty("allocatedBytesPerCall").GetDouble()),
        ("serviceAllocatedBytesPerCall", stats => stats.GetProperty("serviceAllocatedBytesPerCall").GetDouble()),
    ];

    [Fact]
    public async Task EveryContenderRunsOncePerRepetitionInterleavedAndTheSummaryIsTheMedianOfItsRuns()
    {
        var started = await system.Http.StartRunAsync(
            $$"""{"workload": "small-ints", "contenders": ["{{Grpc}}", "{{Stj}}", "{{NewtonsoftTls}}"], "repetitions": 2, "count": 40, "warmup": 5}""",
            "/api/comparisons");
        var id = started.GetProperty("id").GetString()!;
        Assert.Equal($"/api/comparisons/{id}/events", started.GetProperty("links").GetProperty("events").GetString());

        var comparison = await system.Http.WaitUntilFinishedAsync($"/api/comparisons/{id}", TimeSpan.FromSeconds(120));

        Assert.True(comparison.GetProperty("state").GetString() == "Completed", comparison.ToString());
        string[] order = [Grpc, Stj, NewtonsoftTls, Stj, NewtonsoftTls, Grpc];
        var runs = comparison.GetProperty("runs").EnumerateArray().ToList();
        Assert.Equal(order, runs.Select(run => run.GetProperty("plan").GetProperty("strategy").GetString()));
        Assert.Equal([1, 1, 1, 2, 2, 2], comparison.GetProperty("schedule").EnumerateArray().Select(step => step.GetProperty("repetition").GetInt32()));
        Assert.Equal(runs.Select(run => run.GetProperty("id").GetString()), comparison.GetProperty("schedule").EnumerateArray().Select(step => step.GetProperty("runId").GetString()));
        Assert.All(runs, run =>
        {
            Assert.Equal(("Completed", id, "small-ints", 40L, 5), (run.GetProperty("state").GetString(), run.GetProperty("suiteId").GetString(),
                run.GetProperty("plan").GetProperty("workload").GetString(), run.GetProperty("stats").GetProperty("succeeded").GetInt64(), run.GetProperty("plan").GetProperty("warmup").GetInt32()));
        });

        var summaries = comparison.GetProperty("summary").EnumerateArray().ToList();
        Assert.Equal([Grpc, Stj, NewtonsoftTls], summaries.Select(summary => summary.GetProperty("contender").GetString()));
        foreach (var summary in summaries)
        {
            var name = summary.GetProperty("contender").GetString();
            var own = runs.Where(run => run.GetProperty("plan").GetProperty("strategy").GetString() == name).ToList();
            Assert.Equal(own.Select(run => run.GetProperty("id").GetString()), summary.GetProperty("runIds").EnumerateArray().Select(runId => runId.GetString()));
            Assert.Null(summary.GetProperty("failure").GetString());
            foreach (var (figure, read) in Figures)
            {
                var values = own.Select(run => read(run.GetProperty("stats"))).Order().ToArray();
                var range = summary.GetProperty("figures").GetProperty(figure);
                Assert.Equal((values[0] + values[1]) / 2, range.GetProperty("median").GetDouble(), 4);
                Assert.Equal((values[0], values[1]), (range.GetProperty("min").GetDouble(), range.GetProperty("max").GetDouble()));
            }

            var saw = Assert.Single(summary.GetProperty("serverSaw").EnumerateArray());
            Assert.Equal(name == NewtonsoftTls ? "HTTP/1.1" : "HTTP/2", saw.GetProperty("httpVersion").GetString());
        }

        // The fastest by the summary's own medians is the one the ranking and the sentence name.
        var byMean = summaries.OrderBy(summary => summary.GetProperty("figures").GetProperty("meanMs").GetProperty("median").GetDouble())
            .Select(summary => summary.GetProperty("contender").GetString()).ToList();
        Assert.Equal("meanMs", comparison.GetProperty("rankedBy").GetString());
        Assert.Equal(byMean, comparison.GetProperty("ranking").GetProperty("order").EnumerateArray().Select(name => name.GetString()));
        var sentence = comparison.GetProperty("sentence").GetString()!;
        Assert.StartsWith($"{ContenderList.Find(byMean[0])!.Label} was fastest by mean time per call", sentence);
        Assert.Contains($"faster than {ContenderList.Find(byMean[1])!.Label} (median of 2, ", sentence);
        Assert.Contains($"faster than the slowest, {ContenderList.Find(byMean[2])!.Label} (median of 2, ", sentence);

        // Each run is an ordinary run of the history; the list has the comparison first; its events replay it.
        Assert.Equal(order[0], (await system.Http.GetJsonAsync($"/api/runs/{runs[0].GetProperty("id").GetString()}")).GetProperty("plan").GetProperty("strategy").GetString());
        Assert.Equal(id, (await system.Http.GetJsonAsync("/api/comparisons?limit=1")).GetProperty("comparisons")[0].GetProperty("id").GetString());
        var events = await system.Http.GetStringAsync($"/api/comparisons/{id}/events");
        Assert.Equal(6, events.Split('\n').Count(line => line == "event: run"));
        Assert.Contains(sentence, events.Split('\n').Last(line => line.StartsWith("data: ", StringComparison.Ordinal)));
    }

    [Fact]
    public async Task AContenderThatCannotReachItsListenerIsNamedAsFailedAndNeverFastest()
    {
        await using var gateway = await StartGatewayWithDeadTlsListenerAsync();
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(60) };
        var started = await http.StartRunAsync(
            """{"workload": "small-ints", "contenders": ["grpc-h2-tls", "grpc-h2-cleartext", "rest-stj-h1-cleartext"], "repetitions": 1, "count": 20}""", "/api/comparisons");

        var comparison = await http.WaitUntilFinishedAsync($"/api/comparisons/{started.GetProperty("id").GetString()}", TimeSpan.FromSeconds(90));

        Assert.Equal("Completed", comparison.GetProperty("state").GetString());
        var failed = comparison.GetProperty("summary")[0];
        Assert.StartsWith("repetition 1 failed: ", failed.GetProperty("failure").GetString());
        Assert.DoesNotContain("grpc-h2-tls", comparison.GetProperty("ranking").GetProperty("order").EnumerateArray().Select(name => name.GetString()));
        var sentence = comparison.GetProperty("sentence").GetString()!;
        Assert.DoesNotMatch("^gRPC contract-first · Protobuf · HTTP/2 · TLS was fastest", sentence);
        Assert.Contains($"{ContenderList.Find("grpc-h2-tls")!.Label} failed (repetition 1 failed: ", sentence);
    }

    [Fact]
    public async Task AComparisonBeyondTheInFlightLimitIs429AndCancellingOneNamesNoFastest()
    {
        await using var gateway = await StartGatewayWithDeadTlsListenerAsync();
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(60) };
        var started = await http.StartRunAsync(
            """{"workload": "small-ints", "contenders": ["grpc-h2-cleartext", "rest-stj-h1-cleartext"], "repetitions": 2, "count": 100000}""", "/api/comparisons");
        var id = started.GetProperty("id").GetString();

        using var second = await http.PostJsonAsync("/api/comparisons", """{"workload": "small-ints"}""");
        await http.WaitForRunningProgressAsync(10);
        using var cancel = await http.PostAsync($"/api/comparisons/{id}/cancel", null);

        Assert.Equal(HttpStatusCode.TooManyRequests, second.StatusCode);
        Assert.NotNull(second.Headers.RetryAfter?.Delta);
        Assert.Contains("Runs:MaxRunsInFlight", (await SystemFixture.ReadProblemAsync(second)).GetProperty("detail").GetString());
        Assert.Equal(HttpStatusCode.OK, cancel.StatusCode);
        var cancelled = await cancel.ReadJsonAsync();
        Assert.Equal("Cancelled", cancelled.GetProperty("state").GetString());
        Assert.Equal("Cancelled", cancelled.GetProperty("runs")[0].GetProperty("state").GetString());
        Assert.Equal(JsonValueKind.Null, cancelled.GetProperty("ranking").ValueKind);
        Assert.Equal("The comparison was cancelled after 1 of 4 runs (The comparison was cancelled on request.), so no contender is named fastest.",
            cancelled.GetProperty("sentence").GetString());
    }

    [Theory]
    [InlineData("""{"contenders": ["grpc-h2-cleartext", "grpc-h2-tls"]}""", "A comparison needs a workload: one of small-ints, small-mixed, big-list,")]
    [InlineData("""{"workload": "telemetry"}""", "workload was 'telemetry'; it must be one of: small-ints, small-mixed,")]
    [InlineData("""{"workload": "small-ints", "contenders": ["grpc-h2-cleartext", "soap-h1-cleartext"]}""", "contenders holds 'soap-h1-cleartext', which is not a contender; name them from: grpc-h2-cleartext, grpc-h2-tls,")]
    [InlineData("""{"workload": "bulk-read", "variant": "stream", "contenders": ["grpc-h2-cleartext", "rest-stj-h1-cleartext"]}""", "rest-stj-h1-cleartext cannot run bulk-read with these settings: variant 'stream' reads the users as one gRPC server stream;")]
    [InlineData("""{"workload": "small-ints", "repetitions": 0}""", "repetitions was '0'; it must be a whole number from 1 to 10")]
    [InlineData("""{"workload": "small-ints", "repetitions": 11}""", "repetitions was '11'; it must be a whole number from 1 to 10")]
    [InlineData("""{"workload": "small-ints", "contenders": ["grpc-h2-cleartext"]}""", "A comparison needs at least two contenders; contenders holds 1. The contenders that can run small-ints")]
    [InlineData("""{"workload": "small-ints", "contenders": ["grpc-h2-cleartext", "grpc-h2-cleartext"]}""", "contenders holds grpc-h2-cleartext more than once")]
    [InlineData("""{"workload": "small-ints", "count": 0}""", "count was '0'; it must be a whole number from 1 to")]
    [InlineData("""{"workload": "small-ints", "fileBytes": 2048}""", "fileBytes applies to file-upload only; workload was 'small-ints'.")]
    [InlineData("""{"workload": "small-ints", "strategy": "client-wrapper"}""", "'strategy' is not a comparison setting; the body may hold: workload, contenders, repetitions,")]
    [InlineData("""{"workload": "small-ints", "contenders": "grpc-h2-cleartext"}""", "contenders must be an array of contender names")]
    public async Task ABadComparisonIsA400ProblemNamingWhatIsAllowed(string body, string expected)
    {
        using var response = await system.Http.PostJsonAsync("/api/comparisons", body);

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        Assert.StartsWith(expected, (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString());
    }

    [Theory]
    [InlineData("GET", "")]
    [InlineData("POST", "/cancel")]
    [InlineData("GET", "/events")]
    public async Task AnUnknownComparisonIs404(string method, string suffix)
    {
        var id = Guid.NewGuid();
        using var response = await system.Http.SendAsync(new HttpRequestMessage(new HttpMethod(method), $"/api/comparisons/{id}{suffix}"));

        Assert.Equal(HttpStatusCode.NotFound, response.StatusCode);
        Assert.StartsWith($"There is no comparison {id}", (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString());
    }

    /// <summary>A gateway of its own, one run at a time, whose TLS contenders point at a port nothing listens on (with the service's real certificate).</summary>
    private Task<AppProcess> StartGatewayWithDeadTlsListenerAsync() => AppProcess.StartAsync("ApiGateway",
    [
        "--ServerUrl", system.Service.Url, "--Protocols:Http1Url", system.Http1, "--Protocols:TlsUrl", $"https://127.0.0.1:{Ports.Unused()}",
        "--Protocols:CertificatePath", system.Certificate, "--Runs:MaxRunsInFlight", "1",
    ]);
}
