using Google.Protobuf;
using LoadEngine.Targets;
using Performance;

namespace GrpcBestPractices.Tests.Unit;

public sealed class RunMemoryEstimateTests
{
    private static readonly PlanLimits TwoGibibytes = PlanLimits.Defaults with { MaxRunMemoryBytes = 2L << 30 };

    [Fact]
    public void EachKeptStatusCountsItsTwoPayloadsAsBase64()
    {
        var estimate = RunMemoryEstimate.For(new RunPlan { Strategy = "client-wrapper", Count = 1000, Called = new BuiltInCall(PayloadBytes: 3000), IncludeStatuses = true });

        Assert.Equal(1000 * (2 * 4000 + RunMemoryEstimate.StatusOverheadBytes), estimate.StatusesBytes);
    }

    [Fact]
    public void EachCallInFlightHoldsFourPayloadsAndItsStream()
    {
        var estimate = RunMemoryEstimate.For(new RunPlan { Strategy = "single-connection", Count = 100, Concurrency = 100, Called = new BuiltInCall(PayloadBytes: 1024 * 1024) });

        Assert.Equal(0, estimate.StatusesBytes);
        Assert.Equal(100 * (4L * 1024 * 1024 + RunMemoryEstimate.CallOverheadBytes), estimate.InFlightBytes);
    }

    [Fact]
    public void EachPhaseHasItsHistogramsAndAnArrivalRateThreeOfThem()
    {
        Assert.Equal(RunMemoryEstimate.HistogramBytesEach, RunMemoryEstimate.For(new RunPlan { Strategy = "client-wrapper", Count = 1 }).HistogramBytes);
        Assert.Equal(2 * RunMemoryEstimate.HistogramBytesEach, RunMemoryEstimate.For(new RunPlan { Strategy = "client-wrapper", Count = 1, Warmup = 5 }).HistogramBytes);
        Assert.Equal(3 * RunMemoryEstimate.HistogramBytesEach, RunMemoryEstimate.For(new RunPlan { Strategy = "client-wrapper", Load = LoadKind.Open, Rate = 10, Count = 1 }).HistogramBytes);
    }

    [Fact]
    public void TheIssuesRequestIsRefusedWithTheEstimateTheLimitAndHowToFit()
    {
        var fits = PlanText.TryCreate(new PlanText("client-wrapper", "100000", PayloadBytes: "1048576"), TwoGibibytes, ["client-wrapper"], out _, out var error);

        Assert.False(fits);
        Assert.Contains("266,687 MiB", error);
        Assert.Contains("2,048 MiB", error);
        Assert.Contains("Runs:MaxRunMemoryMegabytes", error);
        Assert.Contains("includeStatuses=false", error);
        Assert.Contains("a count of at most 766", error);
    }

    [Fact]
    public void TheSameRunWithoutStatusesFits()
    {
        Assert.True(PlanText.TryCreate(new PlanText("client-wrapper", "100000", PayloadBytes: "1048576", IncludeStatuses: "false"), TwoGibibytes, ["client-wrapper"], out _, out var error), error);
    }

    [Fact]
    public void TooManyLargeCallsInFlightAreRefusedEvenWithoutStatuses()
    {
        var input = new PlanText("single-connection", "10000", Concurrency: "10000", PayloadBytes: "1048576", IncludeStatuses: "false");

        Assert.False(PlanText.TryCreate(input, TwoGibibytes, ["single-connection"], out _, out var error));
        Assert.Contains("a smaller concurrency", error);
    }

    [Fact]
    public void TheSpoolGivesBackEachKeptAnswerInCallOrderAndLeavesNoFile()
    {
        List<PerformanceStatus> read;
        IReadOnlyList<string> held;
        using (var spool = new StatusSpool(count: 50, payloadBytes: 3))
        {
            Parallel.For(0, 50, index =>
            {
                // Call 7 failed: it has no answer to keep.
                if (index != 7)
                {
                    spool.Write(index, new PerformanceStatusResponse
                    {
                        CpuPercentageUsage = index, ProcessesRunning = index, DataLoad1 = ByteString.CopyFrom(1, 2, (byte)index), DataLoad2 = ByteString.CopyFrom(9, 9, 9),
                    });
                }
            });
            // Unlinked as soon as it is open (on Linux), so even a killed process leaves no file behind. Only this process's
            // files are looked at: gateways of other tests make and unlink their own in the same temp folder.
            held = SpoolsHeld();
            Assert.NotEmpty(held);
            Assert.All(held, target => Assert.EndsWith(" (deleted)", target));
            read = spool.ReadAsync().ToBlockingEnumerable().ToList();
        }

        Assert.Equal([.. Enumerable.Range(0, 50).Where(index => index != 7)], read.Select(status => status.ProcessesRunning));
        Assert.Equal([1, 2, 49], read[^1].DataLoad1);
        Assert.Equal([9, 9, 9], read[^1].DataLoad2);
        Assert.All(held, target => Assert.False(File.Exists(target[..^" (deleted)".Length]), target));
    }

    /// <summary>What each of this process's open files that is a status spool points at ("… (deleted)" once unlinked).</summary>
    private static List<string> SpoolsHeld() =>
        [.. new DirectoryInfo("/proc/self/fd").EnumerateFileSystemInfos().Select(fd => fd.LinkTarget).OfType<string>().Where(target => target.Contains("grpc-statuses-", StringComparison.Ordinal))];
}
