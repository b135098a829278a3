using System.Diagnostics;
using System.Text.RegularExpressions;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.Faults;

/// <summary>Issue 20, item 6: after a peak, the idle gateway gives its memory back within a minute.</summary>
[Trait("Category", "Process")]
public sealed class MemoryReleaseTests
{
    private const long MiB = 1024 * 1024;

    [Fact]
    public async Task AfterARunWithTenThousandCallsInFlightTheIdleGatewayIsBackUnder300MiBWithinAMinute()
    {
        await using var service = await AppProcess.StartAsync("PerformanceService");
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", service.Url]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = TimeSpan.FromMinutes(3) };

        var run = await http.StartRunAsync("""{"strategy": "multiple-connections", "load": "closed", "count": 30000, "concurrency": 10000, "payloadBytes": 16384}""");
        var ended = await http.WaitUntilFinishedAsync($"/api/runs/{run.GetProperty("id").GetString()}", TimeSpan.FromMinutes(3));
        var idleSince = Stopwatch.GetTimestamp();
        var peak = Status(gateway.Id, "VmHWM");

        Assert.Equal("Completed", ended.GetProperty("state").GetString());
        // Without a peak worth giving back, this test would prove nothing.
        Assert.True(peak > 500 * MiB, $"The run took the gateway to {peak / MiB} MiB only.");
        long resident;
        while ((resident = Status(gateway.Id, "VmRSS")) >= 300 * MiB && Stopwatch.GetElapsedTime(idleSince) < TimeSpan.FromSeconds(60))
        {
            await Task.Delay(500);
        }

        Assert.True(resident < 300 * MiB, $"A minute after a peak of {peak / MiB} MiB the idle gateway still held {resident / MiB} MiB.");
        Assert.Contains("Gave memory back after a peak", gateway.Output);
    }

    private static long Status(int processId, string field) =>
        long.Parse(Regex.Match(File.ReadAllText($"/proc/{processId}/status"), $@"{field}:\s+(\d+) kB").Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture) * 1024;
}
