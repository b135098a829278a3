using System.Diagnostics;
using System.Net;
using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.Hostile;

/// <summary>
/// A target whose descriptors change on every describe (hostile-reflection.js --changing: a new message each time), so
/// every refresh compiles a new set: the compiled code of the set it replaces must go, or the gateway grows with each.
/// </summary>
[Trait("Category", "Process")]
public sealed class HostileRefreshMemoryTests(ITestOutputHelper output)
{
    private const int Refreshes = 200;

    // 100 KiB a refresh, as when it was 30 MiB over 300: a busy run grew 6.8 MiB over 300.
    private const long Allowed = 20L * 1024 * 1024;

    [Fact]
    public async Task TwoHundredRefreshesOfASetThatChangesEachTimeLeaveTheGatewayWithin20MBOfWhereItBegan()
    {
        using var folder = new TemporaryFolder();
        await using var service = await AppProcess.StartAsync("PerformanceService");
        await using var server = await HostileReflectionServer.StartAsync(HostileDescriptors.Tiny(), "--changing");
        await using var gateway = await AppProcess.StartAsync("ApiGateway",
            [.. await SystemFixture.GatewayArgumentsAsync(service), "--Targets:changing:Address", server.Url], HostileTool.Environment(folder.Path));
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(60) };
        async Task RefreshAsync()
        {
            using var response = await http.PostAsync("/api/targets/changing/refresh", null);
            var body = await response.Content.ReadAsStringAsync();
            Assert.True(response.StatusCode == HttpStatusCode.OK, $"POST /api/targets/changing/refresh answered {(int)response.StatusCode}: {body}");
            var view = JsonDocument.Parse(body).RootElement;
            Assert.True(view.GetProperty("problem").ValueKind == JsonValueKind.Null, body);
            Assert.Contains(view.GetProperty("methods").EnumerateArray(), method => method.GetProperty("call").GetString() == HostileDescriptors.Call);
        }

        // Where it began: protoc, the compiler and the JIT warmed by a few refreshes.
        for (var i = 0; i < 10; i++)
        {
            await RefreshAsync();
        }

        var before = ProcessMemory.ResidentBytes(gateway.Id);
        var started = Stopwatch.GetTimestamp();
        for (var i = 0; i < Refreshes; i++)
        {
            await RefreshAsync();
        }

        var after = ProcessMemory.ResidentBytes(gateway.Id);
        output.WriteLine($"{Refreshes} refreshes in {Stopwatch.GetElapsedTime(started).TotalSeconds:0.0} s: RSS {before / 1048576.0:0.0} MiB before, {after / 1048576.0:0.0} MiB after, peak {ProcessMemory.PeakResidentBytes(gateway.Id) / 1048576.0:0.0} MiB.");

        Assert.True(after - before <= Allowed, $"The gateway grew by {(after - before) / 1048576.0:0.0} MiB over {Refreshes} refreshes ({before / 1048576.0:0.0} to {after / 1048576.0:0.0} MiB).");
        HostileAssert.DidNotCrash("The gateway", null, gateway.Output);
        await HostileAssert.KeepsNoDescribeFolderAsync(folder.Path, "The gateway", TimeSpan.FromSeconds(60));
    }
}
