using LoadEngine;
using LoadEngine.Lessons;
using LoadEngine.Protocols;
using GrpcBestPractices.Tests.Fakes;
using LoadEngine.Runs;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>How a lesson's claims are judged from an experiment's samples, and how an experiment is planned, without a socket.</summary>
public sealed class LessonVerdictTests
{
    private static readonly LessonDefinition Lesson = LessonList.ReuseChannel;

    [Fact]
    public void AChannelPerCallSlowerInEveryRepetitionAgreesAndIsBeyondNoise()
    {
        var verdict = LessonVerdicts.Judge(Lesson, Lesson.Claims[0], Experiment(("client-wrapper", [0.20, 0.22, 0.21]), ("initialized-client", [0.90, 0.80, 1.00])));

        Assert.Equal(ExpectedDirection.Above1, verdict.ExpectedDirection);
        Assert.Equal([4.5, 0.8 / 0.22, 1.0 / 0.21], verdict.Ratios, new RoundedTo(3));
        Assert.Equal(4.5, verdict.MeasuredRatio);
        Assert.Equal(new RatioRange(Math.Round(0.8 / 0.22, 3), 4.762), verdict.Range);
        Assert.True(verdict.Agrees);
        Assert.True(verdict.BeyondNoise);
        Assert.Equal(
            "A channel per call (initialized-client) was 4.5× slower than a reused channel (client-wrapper) in median time per call (median of 3, 3.6–4.8×): " +
            "as the lesson says, and beyond the run-to-run spread.",
            verdict.Sentence);
    }

    [Fact]
    public void AMedianAboveOneWhoseArmsOverlapAgreesButIsWithinNoise()
    {
        // Repetition 2 goes the other way, and the arms' ranges overlap: the direction holds, the effect is not shown.
        var verdict = LessonVerdicts.Judge(Lesson, Lesson.Claims[0], Experiment(("client-wrapper", [0.20, 0.30, 0.20]), ("initialized-client", [0.25, 0.25, 0.24])));

        Assert.True(verdict.Agrees);
        Assert.False(verdict.BeyondNoise);
        Assert.Contains("within the run-to-run spread", verdict.Sentence);
    }

    [Fact]
    public void TheOppositeOfTheLessonBeyondNoiseDisagreesAndSaysWhy()
    {
        var verdict = LessonVerdicts.Judge(Lesson, Lesson.Claims[0], Experiment(("client-wrapper", [1.0, 1.1, 1.2]), ("initialized-client", [0.5, 0.5, 0.6])));

        Assert.False(verdict.Agrees);
        Assert.True(verdict.BeyondNoise);
        Assert.StartsWith("A channel per call (initialized-client) was not slower than a reused channel (client-wrapper): 0.50× its median time per call", verdict.Sentence);
        Assert.EndsWith(Lesson.WhenItDoesNotHold, verdict.Sentence);
    }

    [Theory]
    [InlineData(0.20, 0.21, true)]
    [InlineData(0.20, 0.19, true)]
    [InlineData(0.20, 0.30, false)]
    [InlineData(0.30, 0.20, false)]
    public void AboutTheSameMeansWithinAQuarterEitherWay(double wrapper, double factory, bool agrees)
    {
        var check = LessonVerdicts.Judge(Lesson, Lesson.Claims[2], Experiment(("client-wrapper", [wrapper, wrapper]), ("factory-client", [factory, factory])));

        Assert.Equal(ExpectedDirection.Near1, check.ExpectedDirection);
        Assert.Equal(agrees, check.Agrees);
    }

    [Fact]
    public void OneRepetitionCanAgreeButNeverBeBeyondNoise()
    {
        var verdict = LessonVerdicts.Judge(Lesson, Lesson.Claims[0], Experiment(("client-wrapper", [0.2]), ("initialized-client", [2.0])));

        Assert.True(verdict.Agrees);
        Assert.False(verdict.BeyondNoise);
        Assert.Contains("one repetition cannot tell an effect from noise", verdict.Sentence);
    }

    [Fact]
    public void ARunWithAFailedCallIsNoMeasurementAndTheClaimIsNotJudged()
    {
        var failed = LessonExperiment.Sample(
            new ExperimentStep(2, 6, 1, "initialized-client"),
            new RunRecord(Guid.NewGuid(), new RunPlan { Strategy = "initialized-client" }, RunState.Completed, DateTimeOffset.UtcNow, DateTimeOffset.UtcNow,
                SampleRuns.Stats(1, 1) with { Calls = 10, Succeeded = 9, StatusCounts = new Dictionary<string, long> { ["OK"] = 9, ["Unavailable"] = 1 } },
                null, null));
        var experiment = Experiment(("client-wrapper", [0.2])) with { Samples = [.. Experiment(("client-wrapper", [0.2])).Samples, failed] };

        var verdict = LessonVerdicts.Judge(Lesson, Lesson.Claims[0], experiment);

        Assert.Equal(RunState.Failed, failed.State);
        Assert.Equal("1 of 10 calls failed (Unavailable 1)", failed.Error);
        Assert.Empty(failed.Figures);
        Assert.Null(verdict.MeasuredRatio);
        Assert.False(verdict.Agrees);
        Assert.StartsWith("Not judged: a channel per call (initialized-client) did not complete in repetition 1", verdict.Sentence);
    }

    [Fact]
    public void AWorkloadRunsSampleKeepsItsBytesOnTheWireAndAStrategyRunsHasNone()
    {
        var stats = SampleRuns.Stats(1, 0);
        RunRecord Run(RunStats runStats) => new(Guid.NewGuid(), new RunPlan { Strategy = "client-wrapper" }, RunState.Completed, DateTimeOffset.UtcNow, DateTimeOffset.UtcNow, runStats, null, null);

        var workload = LessonExperiment.Sample(new ExperimentStep(1, 2, 1, "rest"), Run(stats with { BytesSentPerCall = 77, BytesReceivedPerCall = 135_035 }));
        var strategy = LessonExperiment.Sample(new ExperimentStep(2, 2, 1, "client-wrapper"), Run(stats));

        Assert.Equal((77, 135_035), (workload.Figures["bytesSentPerCall"], workload.Figures["bytesReceivedPerCall"]));
        Assert.Equal(stats.Latency!.P50Ms, workload.Figures["p50Ms"]);
        Assert.DoesNotContain("bytesReceivedPerCall", strategy.Figures.Keys);
    }

    [Fact]
    public void GrpcAgainstRestIsJudgedByALargeAnswersTimeOverTlsOnBothSidesWithItsBytesAndASmallAnswerBeside()
    {
        var lesson = LessonList.GrpcVsRest;

        // The 2019 study's claim: its big-list, REST ÷ gRPC in time, then in bytes; one book only "about the same".
        Assert.Equal(
            [("p50Ms", "grpc-big-list", "rest-big-list", ExpectedDirection.Above1), ("bytesReceivedPerCall", "grpc-big-list", "rest-big-list", ExpectedDirection.Above1),
             ("p50Ms", "grpc-small-mixed", "rest-small-mixed", ExpectedDirection.Near1)],
            lesson.Claims.Select(claim => (claim.Figure, claim.Baseline, claim.Other, claim.Expected)));
        Assert.Equal(
            [("big-list", "grpc-h2-tls"), ("big-list", "rest-stj-h1-tls"), ("small-mixed", "grpc-h2-tls"), ("small-mixed", "rest-stj-h1-tls")],
            lesson.Arms.Select(arm => (arm.Run!.Workload, arm.Contender!.Name)));
        Assert.All(lesson.Arms, arm => Assert.Equal((WireSecurity.Tls, (int?)100), (arm.Contender!.Security, arm.Run!.Warmup)));
    }

    [Fact]
    public void TheBytesCheckIsJudgedFromEachRepetitionsBytesReceivedAndSaysItInBytes()
    {
        var lesson = LessonList.GrpcVsRest;
        var experiment = Experiment(lesson, "bytesReceivedPerCall", ("grpc-big-list", [65_416, 65_420, 65_416]), ("rest-big-list", [135_035, 135_035, 135_040]));

        var verdict = LessonVerdicts.Judge(lesson, lesson.Claims[1], experiment);

        Assert.Equal(2.064, verdict.MeasuredRatio);
        Assert.True(verdict.Agrees && verdict.BeyondNoise);
        Assert.Equal(
            "REST with System.Text.Json fetching 1 000 books was 2.1× larger than gRPC fetching 1 000 books in bytes received per call (median of 3, 2.1–2.1×): " +
            "as the lesson says, and beyond the run-to-run spread.",
            verdict.Sentence);
    }

    [Fact]
    public void AnArmThisHostCannotRunIsNamedWithItsReason()
    {
        var engine = new EngineOptions { ServerUri = new Uri("http://127.0.0.1:5000"), TlsUri = null };

        Assert.True(LessonPlan.TryCreate(Lesson, null, PlanLimits.Defaults, engine, null, out var plan, out _));
        var verdict = LessonVerdicts.Judge(Lesson, Lesson.Claims[1], plan.NewRecord() with { State = RunState.Completed });

        Assert.Equal(["tls-kept", "tls-new"], plan.Unavailable.Keys.Order());
        Assert.DoesNotContain("tls-new", plan.Plans.Keys);
        Assert.StartsWith("Not judged: a reused channel over TLS could not run here. grpc-h2-tls calls the service's TLS listener, and Protocols:TlsUrl gives none.", verdict.Sentence);
    }

    [Fact]
    public void RepetitionsRotateTheArmsAndTheProbeEndsEachRepetition()
    {
        var engine = new EngineOptions { ServerUri = new Uri("http://127.0.0.1:5000") };
        Assert.True(LessonPlan.TryCreate(LessonList.Streaming, 3, PlanLimits.Defaults, engine, null, out var streaming, out _));
        Assert.True(LessonPlan.TryCreate(LessonList.BinaryPayloads, 2, PlanLimits.Defaults, engine, null, out var payloads, out _));

        Assert.Equal(
            [(1, "streaming-call"), (1, "client-wrapper"), (2, "client-wrapper"), (2, "streaming-call"), (3, "streaming-call"), (3, "client-wrapper")],
            streaming.Schedule().Select(step => (step.Repetition, step.Arm!)));
        Assert.All(streaming.Schedule(), step => Assert.Equal(6, step.Of));
        Assert.Equal([(1, true), (2, true)], payloads.Schedule().Select(step => (step.Repetition, step.IsProbe)));
    }

    [Theory]
    [InlineData(0)]
    [InlineData(11)]
    public void RepetitionsOutsideOneToTenAreRefusedWithTheRange(int repetitions)
    {
        Assert.False(LessonPlan.TryCreate(Lesson, repetitions, PlanLimits.Defaults, new EngineOptions(), null, out _, out var error));
        Assert.Equal($"repetitions was '{repetitions}'; it must be a whole number from 1 to 10 (each repetition runs every arm of the lesson once).", error);
    }

    [Fact]
    public void EveryLessonsClaimsNameItsOwnArmsAndEveryArmRunsOrIsProbed()
    {
        Assert.Equal(["reuse-channel", "stream-limit", "keep-alive", "streaming", "binary-payloads", "grpc-vs-rest"], LessonList.Ids);
        Assert.All(LessonList.All, lesson =>
        {
            var arms = lesson.Arms.Select(arm => arm.Name).ToHashSet();
            Assert.All(lesson.Claims, claim => Assert.True(arms.Contains(claim.Baseline) && arms.Contains(claim.Other), $"{lesson.Id}: {claim.Statement}"));
            Assert.True(lesson.Arms.All(arm => arm.Run is not null) || lesson.Probe is not null, $"{lesson.Id} has arms without a run and no probe");
            Assert.True(RunPlanRules.TryCreate(lesson.Arms.First(arm => arm.Run is not null || lesson.Probe is not null).Run ?? new RunPlanInput("client-wrapper", 1),
                PlanLimits.Defaults, LoadEngine.Strategies.StrategyList.Names, out _, out var refusal), refusal);
        });
    }

    private static ExperimentRecord Experiment(params (string Arm, double[] P50s)[] arms) => Experiment(Lesson, "p50Ms", arms);

    private static ExperimentRecord Experiment(LessonDefinition lesson, string figure, params (string Arm, double[] Values)[] arms) => new(
        Guid.NewGuid(),
        lesson.Id,
        RunState.Completed,
        DateTimeOffset.UtcNow,
        DateTimeOffset.UtcNow,
        null,
        arms.Max(arm => arm.Values.Length),
        [.. arms.SelectMany(arm => arm.Values.Select((value, index) =>
            new ExperimentSample(index + 1, arm.Arm, Guid.NewGuid(), RunState.Completed, new Dictionary<string, double> { [figure] = value }, null)))]);

    private sealed class RoundedTo(int digits) : IEqualityComparer<double>
    {
        public bool Equals(double x, double y) => Math.Round(x, digits) == Math.Round(y, digits);

        public int GetHashCode(double value) => Math.Round(value, digits).GetHashCode();
    }
}
