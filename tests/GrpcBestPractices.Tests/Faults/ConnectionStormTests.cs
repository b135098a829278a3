using System.Globalization;
using System.Text.RegularExpressions;
using GrpcBestPractices.Tests.Infrastructure;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.Faults;

/// <summary>
/// A connection storm the service's accept queue cannot take: some calls fail to connect while the others are answered.
/// That is the strategy's cost under the storm, counted and stated, never a run failed as if the service were dead.
/// </summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class ConnectionStormTests(ITestOutputHelper output)
{
    private const int Count = 3000;

    [Fact]
    public async Task AStormThatOverflowsTheServicesAcceptQueueCompletesWithTheCallsThatFailedToConnectCountedAndANoteThatSaysSo()
    {
        // One set-up connection may wait to be accepted: 200 new connections at a time overflow the queue, Linux drops
        // their connection attempts, and a 0.9 s connect timeout ends each before its retry at 1 s.
        await using var service = await AppProcess.StartAsync("PerformanceService", ["--Protocols:ListenBacklog", "1"]);
        // A generous silence window: the storm is what this test is about, not a machine too busy to answer for 5 s.
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", service.Url, "--Runs:ConnectTimeoutSeconds", "0.9", "--Runs:SilenceSeconds", "60"]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(60) };
        // Both sides warmed, one call at a time, so the storm's first answers come well within the connect timeout.
        var warm = await http.WaitUntilFinishedAsync($"/api/runs/{(await http.StartRunAsync("""{"strategy": "initialized-client", "count": 20}""")).GetProperty("id").GetString()}");
        Assert.True(warm.GetProperty("state").GetString() == "Completed", warm.ToString());
        var overflowsBefore = ListenOverflows();

        var id = (await http.StartRunAsync($$"""{"strategy": "initialized-client", "load": "closed", "concurrency": 200, "count": {{Count}}}""")).GetProperty("id").GetString();
        var run = await http.WaitUntilFinishedAsync($"/api/runs/{id}", TimeSpan.FromSeconds(300));

        var overflows = ListenOverflows() - overflowsBefore;
        output.WriteLine($"TcpExtListenOverflows +{overflows}; {run.GetProperty("state")}: {run.GetProperty("note")}{run.GetProperty("error")}");
        Assert.True(run.GetProperty("state").GetString() == "Completed", run.ToString());
        Assert.True(overflows > 0, "the accept queue never overflowed");
        var stats = run.GetProperty("stats");
        var statuses = stats.GetProperty("statusCounts");
        var (calls, succeeded, failed) = (stats.GetProperty("calls").GetInt64(), stats.GetProperty("succeeded").GetInt64(), stats.GetProperty("failed").GetInt64());
        var failedToConnect = statuses.TryGetProperty("Unavailable", out var unavailable) ? unavailable.GetInt64() : 0;
        Assert.Equal(Count, calls);
        Assert.Equal(calls, succeeded + failed);
        Assert.Equal(succeeded, statuses.GetProperty("OK").GetInt64());
        Assert.InRange(failedToConnect, 1, failed);
        Assert.InRange(succeeded, 1, Count - 1);
        // The note's figures are the run's own.
        var note = Regex.Match(
            run.GetProperty("note").GetString() ?? "",
            @"^(?<failed>[\d,]+) of (?<calls>[\d,]+) calls failed to connect \(Unavailable: Error connecting to subchannel \(A connection could not be established within the configured ConnectTimeout\)\) " +
            @"while the service kept answering: (the other )?(?<succeeded>[\d,]+) succeeded, the last of them (?<before>[\d.]+) s before the run ended(; .+)?\.$");
        Assert.True(note.Success, run.GetProperty("note").ToString());
        Assert.Equal(failedToConnect, Whole(note.Groups["failed"].Value));
        Assert.Equal(calls, Whole(note.Groups["calls"].Value));
        Assert.Equal(succeeded, Whole(note.Groups["succeeded"].Value));
        Assert.InRange(double.Parse(note.Groups["before"].Value, CultureInfo.InvariantCulture) * 1000, 0, stats.GetProperty("wallTimeMs").GetDouble());
        // Stored with the run: the history list says the same.
        var listed = (await http.GetJsonAsync("/api/runs?limit=5")).GetProperty("runs").EnumerateArray().Single(stored => stored.GetProperty("id").GetString() == id);
        Assert.Equal(run.GetProperty("note").GetString(), listed.GetProperty("note").GetString());
    }

    private static long Whole(string figure) => long.Parse(figure, NumberStyles.AllowThousands, CultureInfo.InvariantCulture);

    /// <summary>The kernel's count of connection attempts dropped because a listener's accept queue was full (nstat's TcpExtListenOverflows).</summary>
    private static long ListenOverflows()
    {
        var lines = File.ReadAllLines("/proc/net/netstat").Where(line => line.StartsWith("TcpExt:", StringComparison.Ordinal)).ToArray();
        var names = lines[0].Split(' ', StringSplitOptions.RemoveEmptyEntries);
        var values = lines[1].Split(' ', StringSplitOptions.RemoveEmptyEntries);
        return long.Parse(values[Array.IndexOf(names, "ListenOverflows")], CultureInfo.InvariantCulture);
    }
}
