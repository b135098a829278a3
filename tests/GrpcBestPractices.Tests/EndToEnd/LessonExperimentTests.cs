using System.Net;
using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>
/// The lessons as experiments through the gateway's API, against the real service's three listeners: their runs stored
/// like any other, verdicts that are the ratios of those runs' own figures, the probed lessons, live events, cancel,
/// 400/404, an experiment kept across a restart, the start-up warm-up, and the CLI's --lessons.
/// </summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class LessonExperimentTests(SystemFixture system)
{
    [Fact]
    public async Task TheLessonsComeInTheChaptersOrderEachWithItsDesignAndEveryArmRunnableOnAFullSystem()
    {
        var lessons = (await system.Http.GetJsonAsync("/api/lessons")).EnumerateArray().ToList();

        Assert.Equal(["reuse-channel", "stream-limit", "keep-alive", "streaming", "binary-payloads", "grpc-vs-rest"], lessons.Select(lesson => lesson.GetProperty("id").GetString()));
        Assert.Equal([1, 2, 3, 4, 5, 6], lessons.Select(lesson => lesson.GetProperty("number").GetInt32()));
        Assert.All(lessons, lesson =>
        {
            Assert.StartsWith("https://learn.microsoft.com/aspnet/core/grpc/", lesson.GetProperty("link").GetString());
            foreach (var text in new[] { "lesson", "design", "lookAt", "why", "whenItDoesNotHold" })
            {
                Assert.False(string.IsNullOrWhiteSpace(lesson.GetProperty(text).GetString()), $"{lesson.GetProperty("id")} has no {text}");
            }

            Assert.All(lesson.GetProperty("arms").EnumerateArray(), arm => Assert.Equal(JsonValueKind.Null, arm.GetProperty("unavailable").ValueKind));
        });
        // Lesson 2's effect needs calls that queue: a server delay, and more calls than one connection's streams.
        var queued = lessons[1].GetProperty("arms")[0].GetProperty("plan");
        Assert.True(queued.GetProperty("delayMs").GetInt32() > 0 && queued.GetProperty("concurrency").GetInt32() > 100, queued.ToString());
    }

    [Fact]
    public async Task AnExperimentStoresEachArmsRunPerRepetitionAndItsVerdictIsTheRatioOfThoseRunsFigures()
    {
        var started = await system.Http.StartRunAsync("""{"repetitions": 2}""", "/api/lessons/streaming/experiments");
        var id = started.GetProperty("id").GetString()!;

        var experiment = await system.Http.WaitUntilFinishedAsync($"/api/lessons/streaming/experiments/{id}", TimeSpan.FromSeconds(180));

        Assert.True(experiment.GetProperty("state").GetString() == "Completed", experiment.ToString());
        var samples = experiment.GetProperty("samples").EnumerateArray().ToList();
        Assert.Equal(
            [(1, "streaming-call"), (1, "client-wrapper"), (2, "client-wrapper"), (2, "streaming-call")],
            samples.Select(sample => (sample.GetProperty("repetition").GetInt32(), sample.GetProperty("arm").GetString()!)));
        var wallTimes = new Dictionary<(int, string), double>();
        foreach (var sample in samples)
        {
            var run = await system.Http.GetJsonAsync($"/api/runs/{sample.GetProperty("runId").GetString()}");
            Assert.Equal(("Completed", id, null, 0L), (run.GetProperty("state").GetString(), run.GetProperty("experimentId").GetString(), run.GetProperty("suiteId").GetString(),
                run.GetProperty("stats").GetProperty("failed").GetInt64()));
            Assert.Equal(2000, run.GetProperty("plan").GetProperty("count").GetInt32());
            Assert.Equal(200, run.GetProperty("stats").GetProperty("warmupCalls").GetInt32());
            var wallTime = run.GetProperty("stats").GetProperty("wallTimeMs").GetDouble();
            Assert.Equal(wallTime, sample.GetProperty("figures").GetProperty("wallTimeMs").GetDouble());
            wallTimes[(sample.GetProperty("repetition").GetInt32(), sample.GetProperty("arm").GetString()!)] = wallTime;
        }

        var ratios = new[] { 1, 2 }.Select(repetition => wallTimes[(repetition, "client-wrapper")] / wallTimes[(repetition, "streaming-call")]).ToArray();
        var verdict = experiment.GetProperty("verdict");
        Assert.Equal("above-1", verdict.GetProperty("expectedDirection").GetString());
        // Ratios are given to three decimals below 10 and to one above.
        static double Shown(double ratio) => Math.Round(ratio, ratio < 10 ? 3 : 1);
        Assert.Equal(Shown((ratios[0] + ratios[1]) / 2), verdict.GetProperty("measuredRatio").GetDouble(), 3);
        Assert.Equal(Shown(ratios.Min()), verdict.GetProperty("range").GetProperty("min").GetDouble(), 3);
        Assert.Equal(Shown(ratios.Max()), verdict.GetProperty("range").GetProperty("max").GetDouble(), 3);
        Assert.Equal((ratios[0] + ratios[1]) / 2 > 1, verdict.GetProperty("agrees").GetBoolean());
        var apart = ratios.All(ratio => ratio > 1) && Math.Min(wallTimes[(1, "client-wrapper")], wallTimes[(2, "client-wrapper")]) > Math.Max(wallTimes[(1, "streaming-call")], wallTimes[(2, "streaming-call")]);
        Assert.Equal(apart, verdict.GetProperty("beyondNoise").GetBoolean());
        Assert.Contains("(median of 2, ", verdict.GetProperty("sentence").GetString());

        // The lesson shows it as its latest, and its list has it.
        Assert.Equal(id, (await system.Http.GetJsonAsync("/api/lessons/streaming")).GetProperty("latest").GetProperty("id").GetString());
        var listed = await system.Http.GetJsonAsync("/api/lessons/streaming/experiments?limit=1");
        Assert.Equal(id, listed.GetProperty("experiments")[0].GetProperty("id").GetString());
    }

    [Fact]
    public async Task GrpcAgainstRestRunsEveryArmOverTlsAndJudgesTimeAndBytesFromThoseRunsOwnFigures()
    {
        var started = await system.Http.StartRunAsync("""{"repetitions": 1}""", "/api/lessons/grpc-vs-rest/experiments");
        var id = started.GetProperty("id").GetString()!;

        var experiment = await system.Http.WaitUntilFinishedAsync($"/api/lessons/grpc-vs-rest/experiments/{id}", TimeSpan.FromSeconds(180));

        Assert.True(experiment.GetProperty("state").GetString() == "Completed", experiment.ToString());
        var stats = new Dictionary<string, JsonElement>();
        foreach (var sample in experiment.GetProperty("samples").EnumerateArray())
        {
            var run = await system.Http.GetJsonAsync($"/api/runs/{sample.GetProperty("runId").GetString()}");
            var runStats = run.GetProperty("stats");
            Assert.Equal(0L, runStats.GetProperty("failed").GetInt64());
            // The same transport security on both sides, as the service itself saw it.
            Assert.Contains(runStats.GetProperty("serverSaw").GetProperty("tls").GetString(), new[] { "Tls12", "Tls13" });
            Assert.Equal(runStats.GetProperty("bytesReceivedPerCall").GetDouble(), sample.GetProperty("figures").GetProperty("bytesReceivedPerCall").GetDouble());
            stats[sample.GetProperty("arm").GetString()!] = runStats;
        }

        Assert.Equal(["grpc-big-list", "grpc-small-mixed", "rest-big-list", "rest-small-mixed"], stats.Keys.Order());
        static double P50(JsonElement runStats) => runStats.GetProperty("latency").GetProperty("p50Ms").GetDouble();
        static double Shown(double ratio) => Math.Round(ratio, ratio < 10 ? 3 : 1);
        var checks = experiment.GetProperty("checks").EnumerateArray().ToList();
        Assert.Equal(
            [(Shown(P50(stats["rest-big-list"]) / P50(stats["grpc-big-list"])), "above-1"),
             (Shown(stats["rest-big-list"].GetProperty("bytesReceivedPerCall").GetDouble() / stats["grpc-big-list"].GetProperty("bytesReceivedPerCall").GetDouble()), "above-1"),
             (Shown(P50(stats["rest-small-mixed"]) / P50(stats["grpc-small-mixed"])), "near-1")],
            checks.Select(check => (check.GetProperty("measuredRatio").GetDouble(), check.GetProperty("expectedDirection").GetString())));
        // Whatever this machine measured, the headline's verdict is that ratio's: agrees exactly when REST took longer.
        Assert.Equal(checks[0].GetProperty("measuredRatio").GetDouble() > 1, experiment.GetProperty("verdict").GetProperty("agrees").GetBoolean());
        Assert.Contains("one repetition cannot tell an effect from noise", experiment.GetProperty("verdict").GetProperty("sentence").GetString());
    }

    [Fact]
    public async Task TheProbedPayloadLessonSizesOneRealAnswerAndFollowersSeeItGrowUntilFinal()
    {
        // The probes take milliseconds: on a busy machine the follower may subscribe only after the end, and then sees the
        // final alone, as a late follower should; the experiment is then made once more, at the most repetitions.
        List<(string Event, JsonElement Data)> events = [];
        foreach (var repetitions in new[] { 2, LoadEngine.Lessons.LessonList.MaxRepetitions })
        {
            var started = await system.Http.StartRunAsync($$"""{"repetitions": {{repetitions}}}""", "/api/lessons/binary-payloads/experiments");
            events = await ReadEventsAsync(started.GetProperty("links").GetProperty("events").GetString()!);
            if (events is not [("final", _)])
            {
                break;
            }
        }

        Assert.Equal("final", events[^1].Event);
        Assert.Contains(events, happened => happened.Event == "experiment");
        var experiment = events[^1].Data;
        Assert.Equal("Completed", experiment.GetProperty("state").GetString());
        var size = experiment.GetProperty("verdict");
        // Base64 spends 4 characters on every 3 bytes; the message's other fields make the ratio a little less than 4/3.
        Assert.InRange(size.GetProperty("measuredRatio").GetDouble(), 1.30, 1.334);
        Assert.True(size.GetProperty("agrees").GetBoolean() && size.GetProperty("beyondNoise").GetBoolean(), size.ToString());
        var arms = experiment.GetProperty("arms").EnumerateArray().ToDictionary(arm => arm.GetProperty("arm").GetString()!, arm => arm.GetProperty("figures"));
        Assert.InRange(arms["bytes"].GetProperty("messageBytes").GetProperty("median").GetDouble(), 2 * 65_536, (2 * 65_536) + 100);
        Assert.True(arms["copy-from"].GetProperty("allocatedBytesPerOperation").GetProperty("min").GetDouble() >= 65_536);
        Assert.Equal(1, arms["unsafe-wrap"].GetProperty("sharesTheArray").GetProperty("min").GetDouble());
        Assert.All(experiment.GetProperty("samples").EnumerateArray(), sample => Assert.Equal(JsonValueKind.Null, sample.GetProperty("runId").ValueKind));
    }

    [Fact]
    public async Task ACancelledExperimentSaysSoAndJudgesNothingItDidNotMeasure()
    {
        var started = await system.Http.StartRunAsync("{}", "/api/lessons/keep-alive/experiments");

        using var response = await system.Http.PostAsync(started.GetProperty("links").GetProperty("cancel").GetString(), null);
        var cancelled = await response.ReadJsonAsync();

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(("Cancelled", "The experiment was cancelled on request."), (cancelled.GetProperty("state").GetString(), cancelled.GetProperty("error").GetString()));
        Assert.Equal(JsonValueKind.Null, cancelled.GetProperty("verdict").GetProperty("measuredRatio").ValueKind);
        Assert.False(cancelled.GetProperty("verdict").GetProperty("agrees").GetBoolean());
    }

    [Theory]
    [InlineData("/api/lessons/reuse-the-channel/experiments", "{}", 404, "There is no lesson 'reuse-the-channel'; the lessons are reuse-channel, stream-limit, keep-alive, streaming, binary-payloads, grpc-vs-rest")]
    [InlineData("/api/lessons/streaming/experiments", """{"repetitions": 0}""", 400, "repetitions was '0'; it must be a whole number from 1 to 10")]
    [InlineData("/api/lessons/streaming/experiments", """{"repetitions": "three"}""", 400, "repetitions was 'three'; it must be a whole number from 1 to 10")]
    [InlineData("/api/lessons/streaming/experiments", """{"count": 10}""", 400, "'count' is not a experiment setting; the body may hold: repetitions, target, call, data, streamCall.")]
    [InlineData("/api/lessons/streaming/experiments", "[1]", 400, "The body must be a JSON object")]
    public async Task BadExperimentRequestsAreProblemsSayingWhatIsAllowed(string path, string body, int status, string detail)
    {
        using var response = await system.Http.PostJsonAsync(path, body);
        var problem = await response.ReadJsonAsync();

        Assert.Equal(status, (int)response.StatusCode);
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        Assert.Contains(detail, problem.GetProperty("detail").GetString());
    }

    [Fact]
    public async Task AnUnknownExperimentIsANotFoundNamingWhereTheyAreListed()
    {
        using var response = await system.Http.GetAsync($"/api/lessons/streaming/experiments/{Guid.NewGuid()}");

        Assert.Equal(HttpStatusCode.NotFound, response.StatusCode);
        Assert.Contains("GET /api/lessons/streaming/experiments lists them", (await response.ReadJsonAsync()).GetProperty("detail").GetString());
    }

    [Fact]
    public async Task TheSharedSystemWarmedEveryStrategyAndTheLessonsContendersBeforeItListened()
    {
        var status = await system.Http.GetJsonAsync("/api/status");

        Assert.True(status.GetProperty("warmed").GetBoolean(), status.ToString());
        var warmed = status.GetProperty("warmedUp").EnumerateArray().Select(name => name.GetString()).ToList();
        Assert.Superset(new HashSet<string?>(["factory-client", "client-wrapper", "initialized-client", "streaming-call", "single-connection", "multiple-connections",
            "small-mixed on grpc-h2-tls", "small-mixed on rest-stj-h1-tls", "big-list on grpc-h2-tls", "big-list on rest-stj-h1-tls", "big-dto on grpc-h2-tls"]), warmed.ToHashSet());
        Assert.Contains(system.Gateway.Output.Split('\n'), line => line.Contains("Warmed at start in") && !line.Contains("Now listening"));
        Assert.True(system.Gateway.Output.IndexOf("Warmed at start in", StringComparison.Ordinal) < system.Gateway.Output.IndexOf("Now listening", StringComparison.Ordinal),
            "the gateway listened before it had warmed up");
    }

    [Fact]
    public async Task AGatewayWhoseServiceIsDownStillStartsAndSaysItIsNotWarmed()
    {
        var port = Ports.Unused();
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", $"http://127.0.0.1:{port}", "--Runs:WarmUpAtStart", "true"]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress };

        var status = await http.GetJsonAsync("/api/status");

        Assert.False(status.GetProperty("warmed").GetBoolean());
        Assert.StartsWith("Not warmed: factory-client did not complete", status.GetProperty("warmup").GetString());
    }

    [Fact]
    public async Task AFinishedExperimentIsKeptAcrossARestartOfTheGateway()
    {
        using var folder = new TemporaryFolder();
        var history = folder.File("history.db");
        string id;
        JsonElement before;
        await using (var gateway = await AppProcess.StartAsync("ApiGateway", [.. await SystemFixture.GatewayArgumentsAsync(system.Service), "--History:DatabasePath", history]))
        {
            using var http = new HttpClient { BaseAddress = gateway.BaseAddress };
            id = (await http.StartRunAsync("""{"repetitions": 1}""", "/api/lessons/binary-payloads/experiments")).GetProperty("id").GetString()!;
            before = await http.WaitUntilFinishedAsync($"/api/lessons/binary-payloads/experiments/{id}", TimeSpan.FromSeconds(60));
        }

        await using (var gateway = await AppProcess.StartAsync("ApiGateway", [.. await SystemFixture.GatewayArgumentsAsync(system.Service), "--History:DatabasePath", history]))
        {
            using var http = new HttpClient { BaseAddress = gateway.BaseAddress };
            var after = await http.GetJsonAsync($"/api/lessons/binary-payloads/experiments/{id}");

            Assert.Equal("Completed", after.GetProperty("state").GetString());
            Assert.Equal(before.GetProperty("verdict").ToString(), after.GetProperty("verdict").ToString());
            Assert.Equal(id, (await http.GetJsonAsync("/api/lessons/binary-payloads")).GetProperty("latest").GetProperty("id").GetString());
        }
    }

    [Fact]
    public async Task TheCliRunsTheNamedLessonsAndPrintsEachClaimsDirectionRatioAgreementAndNoise()
    {
        using var folder = new TemporaryFolder();
        var json = folder.File("lessons.json");

        var result = await CliProcess.RunAsync([.. system.CliTargets, "--lessons", "binary-payloads,streaming", "--repetitions", "2", "--json", json, "--plain"]);

        Assert.True(result.ExitCode is 0 or 99, result.ToString());
        Assert.Contains("Warmed at start in", result.Output);
        Assert.Contains("│ 5 binary-payloads │ The same data as base64 text is larger than in bytes fields.", result.Output);
        Assert.Contains("above 1", result.Output);
        var outcomes = JsonDocument.Parse(await File.ReadAllTextAsync(json)).RootElement;
        Assert.Equal(["binary-payloads", "streaming"], outcomes.EnumerateArray().Select(outcome => outcome.GetProperty("lesson").GetString()));
        var headlines = outcomes.EnumerateArray().Select(outcome => outcome.GetProperty("verdicts")[0]).ToList();
        Assert.All(headlines, verdict => Assert.Equal(2, verdict.GetProperty("ratios").GetArrayLength()));
        // The exit code is the verdicts': 0 only when every headline agrees beyond noise.
        var allHold = headlines.All(verdict => verdict.GetProperty("agrees").GetBoolean() && verdict.GetProperty("beyondNoise").GetBoolean());
        Assert.Equal(allHold ? 0 : 99, result.ExitCode);
        foreach (var verdict in headlines)
        {
            Assert.Contains(verdict.GetProperty("sentence").GetString()!, result.Output);
        }
    }

    private async Task<List<(string Event, JsonElement Data)>> ReadEventsAsync(string path)
    {
        using var cancel = new CancellationTokenSource(TimeSpan.FromSeconds(120));
        await using var stream = await system.Http.GetStreamAsync(path, cancel.Token);
        var events = new List<(string, JsonElement)>();
        await foreach (var item in System.Net.ServerSentEvents.SseParser.Create(stream).EnumerateAsync(cancel.Token))
        {
            events.Add((item.EventType, JsonDocument.Parse(item.Data).RootElement.Clone()));
        }

        return events;
    }
}
