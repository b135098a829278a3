using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;
using LoadTest;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.Checkup;

/// <summary>Tests whose figures are the test (a capacity, a knee, a ratio beyond noise): they run with no other test beside them.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class MeasuredAloneCollection
{
    public const string Name = "Measurements, alone";
}

/// <summary>
/// The Python grpcio server the checkup is proven against answers at the capacity it is set to (workers ÷ service time),
/// measured by <c>loadtest run</c> from its .proto: the checkup's sweep is judged against that figure, so it is checked first.
/// </summary>
[Trait("Category", "Process")]
[Collection(MeasuredAloneCollection.Name)]
public sealed class GrpcioTargetTests(ITestOutputHelper output)
{
    [Fact]
    public async Task FourWorkersOfTwentyMillisecondsAnswerAtMostTwoHundredCallsASecondAndQueueTheRest()
    {
        await using var target = await GrpcioTarget.StartAsync(workers: 4, serviceMs: 20);
        using var folder = new TemporaryFolder();

        // 16 in flight on one connection: four times the workers, so every worker is always busy and calls queue.
        var result = await CliProcess.RunAsync("run", "--target", target.Url, "--proto", GrpcioTarget.ProtoFile, "--call", GrpcioTarget.Work,
            "-d", """{"name":"paced","number":7}""", "--strategy", "single-connection", "-c", "16", "--warmup", "32", "-z", "5s", "--quiet", "--json", folder.File("run.json"));

        Assert.True(result.ExitCode == ExitCodes.Passed, result.ToString());
        using var run = JsonDocument.Parse(File.ReadAllText(folder.File("run.json")));
        var stats = run.RootElement.GetProperty("stats");
        var callsPerSecond = stats.GetProperty("throughputPerSecond").GetDouble();
        var p50Ms = stats.GetProperty("latency").GetProperty("p50Ms").GetDouble();
        output.WriteLine($"{callsPerSecond:F1} calls/s at 16 in flight (capacity {target.CapacityPerSecond:F0}), p50 {p50Ms:F1} ms, {Environment.ProcessorCount} cores");
        // A sleep is never shorter than asked, so the ceiling is firm (5% for the edges of the measured window); the floor
        // is half of it, room for a busy 2-core machine where the interpreter waits for a core.
        Assert.InRange(callsPerSecond, target.CapacityPerSecond * 0.5, target.CapacityPerSecond * 1.05);
        // Little's law: 16 in flight at 200 calls/s wait 80 ms each; a server with more workers than four would answer in about 20.
        Assert.True(p50Ms >= 3 * target.ServiceMs, $"p50 was {p50Ms:F1} ms: the calls did not queue behind {target.Workers} workers");
        Assert.Equal(0, stats.GetProperty("failed").GetInt64());
    }
}
