using System.Net;
using System.Text.Json;
using GrpcBestPractices.Tests.EndToEnd;
using GrpcBestPractices.Tests.Infrastructure;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.Targets;

/// <summary>
/// The lessons on a user's method through POST /api/lessons/{id}/experiments: against the grpc-js Monitor server (a server
/// the project did not write, described by performance.proto) and the PerformanceService configured again under another
/// name (described by its reflection). Each arm's run calls the method; what cannot apply is one sentence.
/// </summary>
[Trait("Category", "Process")]
public sealed class LessonTargetApiTests(TargetApiTests.Fixture system, ITestOutputHelper output) : IClassFixture<TargetApiTests.Fixture>
{
    private const string Unary = "performance.Monitor/GetPerformance";

    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(240);

    [Fact]
    public async Task ReuseChannelRunsEachStrategyArmOnTheGrpcJsServersMethodAndLeavesTheBuiltInTlsArmsOut()
    {
        var started = await system.Http.StartRunAsync(
            $$$"""{"repetitions": 1, "target": "grpcjs", "call": "{{{Unary}}}", "data": {"clientName": "lesson"}}""", "/api/lessons/reuse-channel/experiments");
        Assert.Equal(("grpcjs", Unary), (started.GetProperty("target").GetString(), started.GetProperty("call").GetString()));

        var experiment = await system.Http.WaitUntilFinishedAsync($"/api/lessons/reuse-channel/experiments/{started.GetProperty("id").GetString()}", Patience);

        Assert.True(experiment.GetProperty("state").GetString() == "Completed", experiment.ToString());
        output.WriteLine(experiment.GetProperty("verdict").GetProperty("sentence").GetString());
        var samples = experiment.GetProperty("samples").EnumerateArray().ToList();
        Assert.Equal(["client-wrapper", "factory-client", "initialized-client"], samples.Select(sample => sample.GetProperty("arm").GetString()).Order());
        foreach (var sample in samples)
        {
            var run = await system.Http.GetJsonAsync($"/api/runs/{sample.GetProperty("runId").GetString()}");
            Assert.Equal(("grpcjs", Unary, 1000L, 0L), (run.GetProperty("plan").GetProperty("target").GetString(), run.GetProperty("plan").GetProperty("call").GetString(),
                run.GetProperty("stats").GetProperty("calls").GetInt64(), run.GetProperty("stats").GetProperty("failed").GetInt64()));
            Assert.Contains("connectionId", run.GetProperty("stats").GetProperty("firstAnswer").GetString());
        }

        var unavailable = experiment.GetProperty("unavailable");
        Assert.Equal(
            $"This arm loads the built-in service's big-dto workload on its own TLS listener; on grpcjs the strategy arms call {Unary}.",
            unavailable.GetProperty("tls-new").GetString());
        Assert.StartsWith("Not judged: a reused channel over TLS could not run here.", experiment.GetProperty("checks")[1].GetProperty("sentence").GetString());
    }

    [Fact]
    public async Task StreamLimitOnAnotherServiceSaysItsConnectionsWereNotMeasuredRatherThanCountingItsAnswersIds()
    {
        var started = await system.Http.StartRunAsync($$"""{"repetitions": 1, "target": "grpcjs", "call": "{{Unary}}"}""", "/api/lessons/stream-limit/experiments");

        var experiment = await system.Http.WaitUntilFinishedAsync($"/api/lessons/stream-limit/experiments/{started.GetProperty("id").GetString()}", Patience);

        Assert.True(experiment.GetProperty("state").GetString() == "Completed", experiment.ToString());
        output.WriteLine(experiment.GetProperty("verdict").GetProperty("sentence").GetString());
        // The grpc-js server's answers carry connection_id too: the lesson still trusts only the built-in service's own count.
        Assert.StartsWith("Not judged: connections used were not measured on grpcjs", experiment.GetProperty("checks")[1].GetProperty("sentence").GetString());
        Assert.All(experiment.GetProperty("samples").EnumerateArray(), sample => Assert.False(sample.GetProperty("figures").TryGetProperty("connectionsUsed", out _)));
    }

    [Fact]
    public async Task KeepAliveProbesTheDescribedMethodAndCountsEachChannelsConnectionsOnTheClient()
    {
        var started = await system.Http.StartRunAsync($$"""{"repetitions": 1, "target": "again", "call": "{{Unary}}"}""", "/api/lessons/keep-alive/experiments");

        var experiment = await system.Http.WaitUntilFinishedAsync($"/api/lessons/keep-alive/experiments/{started.GetProperty("id").GetString()}", Patience);

        Assert.True(experiment.GetProperty("state").GetString() == "Completed", experiment.ToString());
        output.WriteLine(experiment.GetProperty("checks")[1].GetProperty("sentence").GetString());
        var figures = experiment.GetProperty("samples").EnumerateArray().ToDictionary(sample => sample.GetProperty("arm").GetString()!, sample => sample.GetProperty("figures"));
        Assert.Equal(["with-pings", "without-pings"], figures.Keys.Order());
        Assert.Equal(["with-pings-tls", "without-pings-tls"], experiment.GetProperty("unavailable").EnumerateObject().Select(arm => arm.Name).Order());
        // The service closes a connection idle for 5 s; the 8 s pause closed every unpinged one, and the pinged ones stayed.
        Assert.Equal(3, figures["without-pings"].GetProperty("newConnectionsAfterPause").GetDouble());
        Assert.Equal(0, figures["with-pings"].GetProperty("newConnectionsAfterPause").GetDouble());
    }

    [Theory]
    [InlineData("binary-payloads", "The binary-payloads lesson measures the built-in service's answer with two 64 KiB bytes fields")]
    [InlineData("grpc-vs-rest", "The gRPC-against-REST lesson compares the built-in service's gRPC and REST endpoints")]
    [InlineData("streaming", "streamCall performance.Monitor/GetPerformance must be a bidirectional method")]
    [InlineData("reuse-channel", "The lessons compare ways of making unary calls, and performance.Monitor/GetManyPerformanceStats is bidi-streaming")]
    public async Task ALessonThatCannotRunOnTheMethodIsA400SayingWhy(string lesson, string sentence)
    {
        var call = lesson == "reuse-channel" ? "performance.Monitor/GetManyPerformanceStats" : Unary;
        using var response = await system.Http.PostJsonAsync($"/api/lessons/{lesson}/experiments", $$"""{"target": "grpcjs", "call": "{{call}}", "streamCall": "{{Unary}}"}""");

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        Assert.Contains(sentence, (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString());
    }

    [Fact]
    public async Task TheStreamingLessonFindsTheBidirectionalMethodOfTheSameTypesAndTheCardsSayWhatChanges()
    {
        var started = await system.Http.StartRunAsync($$"""{"repetitions": 1, "target": "grpcjs", "call": "{{Unary}}"}""", "/api/lessons/streaming/experiments");
        var path = $"/api/lessons/streaming/experiments/{started.GetProperty("id").GetString()}";
        using (await system.Http.PostAsync($"{path}/cancel", null))
        {
        }

        var lessons = (await system.Http.GetJsonAsync("/api/lessons")).EnumerateArray().ToDictionary(lesson => lesson.GetProperty("id").GetString()!);

        Assert.Equal("performance.Monitor/GetManyPerformanceStats", started.GetProperty("streamCall").GetString());
        Assert.StartsWith("On your method", lessons["streaming"].GetProperty("onTarget").GetString());
        Assert.EndsWith("so it runs on the built-in service only.", lessons["grpc-vs-rest"].GetProperty("notOnTargets").GetString());
        Assert.True(!lessons["binary-payloads"].TryGetProperty("onTarget", out var none) || none.ValueKind == JsonValueKind.Null);
    }
}
