using HistoryStore;
using ApiGateway.History;
using ApiGateway.Runs;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>The real gateway opening its history file at start.</summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class HistoryStartupTests
{
    [Fact]
    public async Task UnusableDatabasePathStopsTheGatewayAtStartWithOneLineNamingTheKey()
    {
        using var folder = new TemporaryFolder();
        var file = folder.File("not-a-folder");
        await File.WriteAllTextAsync(file, "plain text");
        var unusable = Path.Combine(file, "history.db");

        await using var gateway = await AppProcess.RunToExitAsync(
            "ApiGateway", ["--urls", "http://127.0.0.1:0", "--History:DatabasePath", unusable], TimeSpan.FromSeconds(60));

        Assert.Equal(2, gateway.ExitCode);
        Assert.Contains($"Invalid configuration: History:DatabasePath '{unusable}' cannot be used: ", gateway.Output);
        Assert.Contains("Point History:DatabasePath at a writable file.", gateway.Output);
        Assert.DoesNotContain("   at ", gateway.Output);
        Assert.DoesNotContain("Now listening", gateway.Output);
    }

    [Fact]
    public async Task GatewayCreatesItsHistoryFileAndFolderAtStart()
    {
        using var folder = new TemporaryFolder();
        var path = Path.Combine(folder.Path, "not-yet", "history.db");

        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--History:DatabasePath", path]);

        Assert.True(File.Exists(path), "the gateway is listening but did not create " + path);
    }

    [Fact]
    public async Task GatewayStartMarksRunsLeftRunningByTheLastStopAsFailed()
    {
        using var folder = new TemporaryFolder();
        var path = folder.File("history.db");
        var cutOff = new RunRecord(Guid.NewGuid(), new RunPlan { Strategy = "client-wrapper", Count = 1000, Concurrency = 1, Warmup = 0, IncludeStatuses = true }, RunState.Running, DateTimeOffset.UtcNow, null, null, null, null);
        using (var before = new RunStore(HistoryDatabase.OpenSqlite(path)))
        {
            await before.InitializeAsync();
            await before.SaveAsync(cutOff);
        }

        await using (var gateway = await AppProcess.StartAsync("ApiGateway", ["--History:DatabasePath", path]))
        {
            Assert.Contains("marked 1 runs and suites left Running by the last stop as Failed", gateway.Output);
        }

        using var after = new RunStore(HistoryDatabase.OpenSqlite(path));
        var run = await after.GetAsync(cutOff.Id);
        Assert.Equal(RunState.Failed, run?.State);
        Assert.Equal(RunStore.InterruptedError, run?.Error);
    }
}
