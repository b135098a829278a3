using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;
using LoadTest;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>
/// <c>loadtest lessons --call …</c> against the grpc-js Monitor server, a server the project did not write, described by
/// performance.proto: the lessons run on its method, and those that cannot say why in one sentence.
/// </summary>
[Trait("Category", "Process")]
public sealed class LessonsCliTargetTests
{
    private const string GetPerformance = "performance.Monitor/GetPerformance";

    private static readonly string Proto = Path.Combine(AppProcess.RepositoryRoot, "GrpcDependencies", "Protos", "performance.proto");

    [Fact]
    public async Task ReuseChannelRunsOnTheGrpcJsServersMethodAndBinaryPayloadsSaysWhyItDoesNot()
    {
        await using var node = await GrpcJsInteropTests.NodeServer.StartAsync();
        using var folder = new TemporaryFolder();
        var json = folder.File("lessons.json");

        var result = await CliProcess.RunAsync("lessons", "reuse-channel,binary-payloads", "--target", node.Url, "--proto", Proto, "--call", GetPerformance,
            "-d", "{\"clientName\":\"cli lesson\"}", "--repetitions", "1", "--json", json, "--plain");

        // One repetition is never beyond noise, so the headline cannot pass: 99, not a failure to run.
        Assert.True(result.ExitCode == ExitCodes.ThresholdFailed, result.ToString());
        Assert.Contains(
            $"Lesson 5, Binary payloads, does not apply to {GetPerformance}: The binary-payloads lesson measures the built-in service's answer with two 64 KiB bytes fields",
            result.Output);
        Assert.Contains("(1 repetition)…", result.Output);
        // The TLS arms need the service's TLS listener, which a target does not have: those claims say so, never "no".
        Assert.Contains("not measured: a reused channel over TLS could not run here.", result.Output);
        Assert.Matches(@"[|│] not measured +[|│] not measured +[|│]", result.Output);
        using var outcomes = JsonDocument.Parse(File.ReadAllText(json));
        var outcome = Assert.Single(outcomes.RootElement.EnumerateArray());
        var experiment = outcome.GetProperty("experiment");
        Assert.Equal(("reuse-channel", "Completed", GetPerformance), (outcome.GetProperty("lesson").GetString(), experiment.GetProperty("state").GetString(), experiment.GetProperty("call").GetString()));
        Assert.Equal(["client-wrapper", "factory-client", "initialized-client"], experiment.GetProperty("samples").EnumerateArray().Select(sample => sample.GetProperty("arm").GetString()).Order());
        Assert.Equal(["tls-kept", "tls-new"], experiment.GetProperty("unavailable").EnumerateObject().Select(arm => arm.Name).Order());
    }

    [Fact]
    public async Task LessonsThatCannotRunOnTheMethodAreAUsageErrorWhenNoneCan()
    {
        var none = await CliProcess.RunAsync("lessons", "binary-payloads,grpc-vs-rest", "--target", "http://127.0.0.1:1", "--proto", Proto, "--call", GetPerformance);
        var streamOnly = await CliProcess.RunAsync("lessons", "streaming", "--target", "http://127.0.0.1:1", "--stream-call", "performance.Monitor/GetManyPerformanceStats");

        Assert.True(none.ExitCode == ExitCodes.Usage, none.ToString());
        Assert.Contains("The binary-payloads lesson measures", none.Error);
        Assert.Contains("The gRPC-against-REST lesson compares", none.Error);
        Assert.True(streamOnly.ExitCode == ExitCodes.Usage, streamOnly.ToString());
        Assert.Contains("--stream-call names the streaming lesson's method on the user's service; give --call", streamOnly.Error);
    }
}
