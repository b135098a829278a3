using System.Text.Json;
using GrpcBestPractices.Tests.Fakes;
using LoadEngine.Runs;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>
/// Connections are counted from the built-in service's answers (and by a workload's contender): a run of another
/// service's method whose calls succeeded counted none, and says "not measured" rather than 0.
/// </summary>
public sealed class ConnectionsCountedTests
{
    [Theory]
    [InlineData(1, 0, true)]
    [InlineData(0, 0, false)]
    [InlineData(0, 1000, true)]
    public void ARunThatSucceededWithNoConnectionCountedDidNotCountThem(int connections, long failed, bool counted)
    {
        var stats = SampleRuns.Stats(1, failed) with { ConnectionsUsed = connections };

        Assert.Equal(counted, stats.ConnectionsCounted);
        // The page reads it from the run's JSON.
        Assert.Equal(counted, JsonDocument.Parse(JsonSerializer.Serialize(stats, RunJson.Options)).RootElement.GetProperty("connectionsCounted").GetBoolean());
    }
}
