using System.Diagnostics;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.Faults;

/// <summary>Issue 20, item 6: after a peak, the idle gateway gives its memory back within a minute.</summary>
[Trait("Category", "Process")]
public sealed class MemoryReleaseTests
{
    private const long MiB = 1024 * 1024;

    [Fact]
    public async Task AfterARunWithTwoThousandCallsInFlightTheIdleGatewayIsBackUnder300MiBWithinAMinute()
    {
        await using var service = await AppProcess.StartAsync("PerformanceService");
        // A busy machine can leave 2 000 calls without an answer for the default 5 s of silence (seen once in a CI run with
        // a browser test beside it); the service's silence is not what this test is about.
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", service.Url, "--Runs:SilenceSeconds", "60"]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = TimeSpan.FromMinutes(3) };

        // 2 000 calls in flight with 32 KiB answers took the gateway to 632 MiB, and 220 MiB after the collection (measured
        // alone); 10 000 in flight once ended Failed during a full test run on a busy machine, which is not what this test is about.
        var run = await http.StartRunAsync("""{"strategy": "multiple-connections", "load": "closed", "count": 20000, "concurrency": 2000, "payloadBytes": 32768}""");
        var ended = await http.WaitUntilFinishedAsync($"/api/runs/{run.GetProperty("id").GetString()}", TimeSpan.FromMinutes(3));
        var idleSince = Stopwatch.GetTimestamp();
        var peak = ProcessMemory.PeakResidentBytes(gateway.Id);

        Assert.True(ended.GetProperty("state").GetString() == "Completed", $"The run ended {ended.GetProperty("state")}: {(ended.TryGetProperty("error", out var error) ? error : "")}");
        // Without a peak worth giving back, this test would prove nothing (a busy machine keeps fewer answers in flight:
        // 470-632 MiB were measured, so 400 leaves room and still asks for a hundred back).
        Assert.True(peak > 400 * MiB, $"The run took the gateway to {peak / MiB} MiB only.");
        long resident;
        // Both: the RSS can fall under the bound as the run's last collections decommit, before the gateway's own
        // collection comes after its 5 quiet seconds.
        while (((resident = ProcessMemory.ResidentBytes(gateway.Id)) >= 300 * MiB || !gateway.Output.Contains("Gave memory back after a peak", StringComparison.Ordinal))
            && Stopwatch.GetElapsedTime(idleSince) < TimeSpan.FromSeconds(60))
        {
            await Task.Delay(500);
        }

        Assert.True(resident < 300 * MiB, $"A minute after a peak of {peak / MiB} MiB the idle gateway still held {resident / MiB} MiB.");
        Assert.Contains("Gave memory back after a peak", gateway.Output);
    }
}
