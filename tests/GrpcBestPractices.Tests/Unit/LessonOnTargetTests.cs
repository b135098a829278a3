using GrpcBestPractices.Tests.Fakes;
using LoadEngine;
using LoadEngine.Lessons;
using LoadEngine.Runs;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>The lessons that stay on the built-in service say why, in one sentence, before any target is described.</summary>
public sealed class LessonOnTargetTests
{
    private static readonly LessonCall Inventory = new("inventory", new Uri("http://127.0.0.1:50051"), LoadEngine.Targets.Described.DescribedTarget.FromGenerated([]), "interop.inventory.Inventory/GetItem", null);

    [Theory]
    [InlineData("binary-payloads", "The binary-payloads lesson measures the built-in service's answer with two 64 KiB bytes fields")]
    [InlineData("grpc-vs-rest", "The gRPC-against-REST lesson compares the built-in service's gRPC and REST endpoints serving the same books, and a target serves gRPC only")]
    public void ALessonOfTheBuiltInServicesOwnDataIsRefusedOnATargetWithOneSentence(string id, string sentence)
    {
        var lesson = LessonList.Find(id)!;

        Assert.False(LessonPlan.TryCreate(lesson, null, PlanLimits.Defaults, new EngineOptions(), Inventory, out _, out var error));

        Assert.StartsWith(sentence, error);
        Assert.EndsWith("so it runs on the built-in service only.", error);
        Assert.Equal(lesson.NotOnTargets, error);
        Assert.Null(lesson.OnTarget);
    }

    [Fact]
    public void EveryOtherLessonSaysWhatChangesOnTheUsersMethodAndRunsOnTheBuiltInServiceAsBefore()
    {
        var onTargets = LessonList.All.Where(lesson => lesson.NotOnTargets is null).ToList();

        Assert.Equal(["reuse-channel", "stream-limit", "keep-alive", "streaming"], onTargets.Select(lesson => lesson.Id));
        Assert.All(onTargets, lesson => Assert.StartsWith("On your method", lesson.OnTarget));
        Assert.Contains("within the run-to-run spread", LessonList.StreamLimit.OnTarget);
        Assert.True(LessonPlan.TryCreate(LessonList.BinaryPayloads, null, PlanLimits.Defaults, new EngineOptions(), null, out var builtIn, out _));
        Assert.Null(builtIn.Call);
    }

    [Fact]
    public void ConnectionsNoRunCouldCountAreNotMeasuredRatherThanZero()
    {
        var lesson = LessonList.StreamLimit;
        var stats = SampleRuns.Stats(1, 0) with { ConnectionsUsed = 0 };
        var run = new RunRecord(Guid.NewGuid(), new RunPlan { Strategy = "single-connection" }, RunState.Completed, DateTimeOffset.UtcNow, DateTimeOffset.UtcNow, stats, null, null);
        var sample = LessonExperiment.Sample(new ExperimentStep(1, 2, 1, "single-connection"), run);
        // Another service's answers may carry a connection_id field of the same name: it is not the built-in service's count.
        var untrusted = LessonExperiment.Sample(new ExperimentStep(1, 2, 1, "single-connection"), run with { Stats = stats with { ConnectionsUsed = 1 } }, connectionsCounted: false);
        var experiment = new ExperimentRecord(Guid.NewGuid(), lesson.Id, RunState.Completed, DateTimeOffset.UtcNow, DateTimeOffset.UtcNow, null, 1,
            [sample, sample with { Arm = "multiple-connections" }]) { Target = "inventory", Call = "interop.inventory.Inventory/GetItem" };

        var verdict = LessonVerdicts.Judge(lesson, lesson.Claims[1], experiment);

        Assert.DoesNotContain("connectionsUsed", sample.Figures.Keys);
        Assert.DoesNotContain("connectionsUsed", untrusted.Figures.Keys);
        Assert.Null(verdict.MeasuredRatio);
        Assert.Equal(
            "Not judged: connections used were not measured on inventory: they are counted from the built-in service's own answers, " +
            "which say which connection carried each call, and inventory is another service.",
            verdict.Sentence);
    }
}
