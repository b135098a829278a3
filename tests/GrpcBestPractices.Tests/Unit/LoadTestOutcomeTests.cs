using GrpcBestPractices.Tests.Fakes;
using LoadEngine;
using LoadEngine.Calls;
using LoadEngine.Strategies;
using LoadTest;
using LoadTest.Output;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>How the CLI ends: the exit code and last line for every way a command can end, and its plain progress lines.</summary>
public sealed class LoadTestOutcomeTests
{
    [Fact]
    public void EveryRunCompletedWithEveryThresholdHeldIsZero()
    {
        var outcome = Outcome.Of(Result(Run(RunState.Completed, passed: true), Run(RunState.Completed, passed: true)), filesNotWritten: 0);

        Assert.Equal(ExitCodes.Passed, outcome.ExitCode);
        Assert.Equal("PASSED: every threshold held (2 in 2 runs).", outcome.Sentence);
    }

    [Fact]
    public void EveryRunCompletedWithoutThresholdsIsZero()
    {
        Assert.Equal(new Outcome(ExitCodes.Passed, "COMPLETED: 1 run, no thresholds set."), Outcome.Of(Result(Run(RunState.Completed)), 0));
    }

    [Fact]
    public void AFailedThresholdIs99AndSaysHowManyFailed()
    {
        var outcome = Outcome.Of(Result(Run(RunState.Completed, passed: true), Run(RunState.Completed, passed: false)), 0);

        Assert.Equal(new Outcome(ExitCodes.ThresholdFailed, "FAILED: 1 of 2 thresholds failed."), outcome);
    }

    [Fact]
    public void WithThresholdsARunThatDidNotCompleteFailsThemAndIs99()
    {
        Assert.Equal(ExitCodes.ThresholdFailed, Outcome.Of(Result(Run(RunState.Failed, passed: false)), 0).ExitCode);
    }

    [Fact]
    public void WithoutThresholdsARunThatDidNotCompleteIsOne()
    {
        Assert.Equal(new Outcome(ExitCodes.NotCompleted, "NOT COMPLETED: 1 of 2 runs did not complete."), Outcome.Of(Result(Run(RunState.Completed), Run(RunState.Failed)), 0));
    }

    [Fact]
    public void AResultFileThatCouldNotBeWrittenIsOneEvenWhenEveryThresholdHeld()
    {
        Assert.Equal(new Outcome(ExitCodes.NotCompleted, "NOT COMPLETED: a result file could not be written."), Outcome.Of(Result(Run(RunState.Completed, passed: true)), 1));
    }

    [Fact]
    public void AnInterruptionIs105WhateverTheThresholdsSay()
    {
        var outcome = Outcome.Of(Result(Run(RunState.Cancelled, passed: false)) with { Interruption = "Ctrl+C (SIGINT)" }, 0);

        Assert.Equal(new Outcome(ExitCodes.Interrupted, "INTERRUPTED by Ctrl+C (SIGINT): a cancelled run is not a pass."), outcome);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    public async Task PlainProgressWritesAtMostOneLineASecondOfItsClockAndNoAnsi(int secondsPerReading)
    {
        using var output = new StringWriter();
        var display = new PlainProgress(output, new SteppingClock(TimeSpan.FromSeconds(secondsPerReading)));
        var client = new FakeMonitorClient { Answer = async (request, _) => { await Task.Delay(1); return FakeMonitorClient.Respond(request); } };
        var run = new RunRecord(Guid.NewGuid(), new RunPlan { Strategy = "factory-client", Count = 300 }, RunState.Running, DateTimeOffset.UtcNow, null, null, null, null);
        var live = new LiveRun();

        var following = display.FollowAsync(run, 2, 6, live);
        var ended = await new RunEngine(Options.Create(new EngineOptions { SilenceTimeout = TimeSpan.FromMinutes(2), CallTimeout = TimeSpan.FromMinutes(2) })).ExecuteAsync(RunCallsFactory.Compose(client.As(FactoryClientStrategy.Definition), run.Plan), run, live, default);
        await following;
        display.Ended(ended, 2, 6);

        var lines = output.ToString().Split(Environment.NewLine, StringSplitOptions.RemoveEmptyEntries);
        // The plan as the page and the report word it (PlanWords): the calls first, then the load.
        Assert.Equal("[2/6] factory-client: 300 calls, sequential, delay 0 ms, payload 100 B", lines[0]);
        Assert.StartsWith("[2/6] factory-client: Completed: 300 calls in ", lines[^1]);
        var progress = lines[1..^1];
        // A clock that stands still allows no progress line; one a second past each reading allows one per snapshot.
        if (secondsPerReading == 0)
        {
            Assert.Empty(progress);
        }
        else
        {
            Assert.NotEmpty(progress);
            Assert.All(progress, line => Assert.Matches(@"^\[2/6\] factory-client: measured \d+/300 calls, [\d,]+ calls/s, p50 ([\d.]+ ms|-), p99 ([\d.]+ ms|-), 0 failed$", line));
        }

        Assert.DoesNotContain('\u001b', output.ToString());
    }

    private static LoadTestResult Result(params RunRecord[] runs) => new(null, runs, null);

    private static RunRecord Run(RunState state, bool? passed = null) =>
        new(Guid.NewGuid(), new RunPlan { Strategy = "client-wrapper", Thresholds = passed is null ? [] : ["p99 < 5ms"] }, state, DateTimeOffset.UnixEpoch, DateTimeOffset.UnixEpoch, null, null, null)
        {
            Verdict = passed is { } held ? new Verdict(held, [new ThresholdResult("p99 < 5ms", "p99", "<", 5, "ms", 1, held)]) : null,
        };

    /// <summary>A clock that moves on by <paramref name="step"/> each time it is read.</summary>
    private sealed class SteppingClock(TimeSpan step) : TimeProvider
    {
        private long _ticks;

        public override long TimestampFrequency => TimeSpan.TicksPerSecond;

        public override long GetTimestamp() => Interlocked.Add(ref _ticks, step.Ticks);
    }
}
