using ApiGateway.Runs;
using LoadEngine.Lessons;

namespace ApiGateway.Lessons;

/// <summary>One arm as the API shows it: what it does, its run plan (when it is a run), and why it cannot run here, if so.</summary>
public sealed record LessonArmView(string Name, string Label, string Setup, RunPlan? Plan, string? Unavailable);

/// <summary>An arm's figures over an experiment's completed repetitions: the median, the smallest and the largest of each.</summary>
public sealed record ArmSummary(string Arm, string Label, int Repetitions, IReadOnlyDictionary<string, FigureRange> Figures);

public sealed record LessonLinks(string Self, string Experiments);

/// <summary>
/// A lesson: its text, its experiment's design and arms, what it claims, and its latest experiment (running or stored);
/// what changes on the user's own method (<see cref="OnTarget"/>), or why it runs on the built-in service only (<see cref="NotOnTargets"/>).
/// </summary>
public sealed record LessonView(
    string Id,
    int Number,
    string Title,
    string Lesson,
    string Link,
    string Design,
    string LookAt,
    string Why,
    string WhenItDoesNotHold,
    IReadOnlyList<LessonArmView> Arms,
    IReadOnlyList<LessonClaim> Claims,
    string ChartFigure,
    int DefaultRepetitions,
    ExperimentView? Latest,
    LessonLinks Links,
    string? OnTarget,
    string? NotOnTargets)
{
    public static LessonView From(LessonDefinition lesson, LessonPlan plan, ExperimentView? latest) => new(
        lesson.Id,
        lesson.Number,
        lesson.Title,
        lesson.Lesson,
        lesson.Link,
        lesson.Design,
        lesson.LookAt,
        lesson.Why,
        lesson.WhenItDoesNotHold,
        [.. lesson.Arms.Select(arm => new LessonArmView(arm.Name, arm.Label, arm.Setup, plan.Plans.GetValueOrDefault(arm.Name), plan.Unavailable.GetValueOrDefault(arm.Name)))],
        lesson.Claims,
        lesson.ChartFigure,
        LessonList.DefaultRepetitions,
        latest,
        new LessonLinks($"/api/lessons/{lesson.Id}", $"/api/lessons/{lesson.Id}/experiments"),
        lesson.OnTarget,
        lesson.NotOnTargets);
}

public sealed record ExperimentLinks(string Self, string Events, string Cancel, string Lesson);

/// <summary>The step running now: which of how many, the repetition, the arm (null for the probe), and its run's live progress.</summary>
public sealed record ExperimentNow(ExperimentStep Step, Guid? RunId, ProgressSnapshot? Progress);

/// <summary>
/// One experiment of a lesson: its samples, each arm's figures over the repetitions, and the verdicts. <see cref="Verdict"/>
/// judges the lesson's headline claim; <see cref="Checks"/> every claim, the headline first.
/// </summary>
public sealed record ExperimentView(
    Guid Id,
    string Lesson,
    string Title,
    RunState State,
    DateTimeOffset StartedAt,
    DateTimeOffset? FinishedAt,
    string? Error,
    int Repetitions,
    LessonVerdict Verdict,
    IReadOnlyList<LessonVerdict> Checks,
    IReadOnlyList<ArmSummary> Arms,
    IReadOnlyDictionary<string, string> Unavailable,
    ExperimentNow? Now,
    IReadOnlyList<ExperimentSample> Samples,
    ExperimentLinks Links)
{
    /// <summary>The configured target the experiment ran on; null for the built-in service.</summary>
    public string? Target { get; init; }

    /// <summary>The user's unary method the experiment ran on; null for the built-in service's own.</summary>
    public string? Call { get; init; }

    /// <summary>The bidirectional method the streaming lesson's stream arm called.</summary>
    public string? StreamCall { get; init; }

    public static ExperimentView From(ExperimentRecord record, ActiveExperiment? active = null, ProgressSnapshot? progress = null)
    {
        var lesson = LessonList.Find(record.Lesson)!;
        var checks = LessonVerdicts.Judge(lesson, record);
        var path = $"/api/lessons/{lesson.Id}/experiments/{record.Id}";
        var now = active?.CurrentStep is { } step && record.State == RunState.Running
            ? new ExperimentNow(step, step.IsProbe ? null : active.Current?.Id, progress ?? (step.IsProbe ? null : active.Current?.Live.Latest))
            : null;
        return new ExperimentView(
            record.Id,
            lesson.Id,
            lesson.Title,
            record.State,
            record.StartedAt,
            record.FinishedAt,
            record.Error,
            record.Repetitions,
            checks[0],
            checks,
            [.. lesson.Arms.Select(arm => Summarize(arm, record))],
            record.Unavailable,
            now,
            record.Samples,
            new ExperimentLinks(path, $"{path}/events", $"{path}/cancel", $"/api/lessons/{lesson.Id}"))
        {
            Target = record.Target,
            Call = record.Call,
            StreamCall = record.StreamCall,
        };
    }

    private static ArmSummary Summarize(LessonArm arm, ExperimentRecord record)
    {
        var completed = record.Samples.Where(sample => sample.Arm == arm.Name && sample.State == RunState.Completed).ToList();
        var figures = completed.SelectMany(sample => sample.Figures.Keys).Distinct().ToDictionary(figure => figure, figure =>
            FigureRange.Of([.. completed.Where(sample => sample.Figures.ContainsKey(figure)).Select(sample => sample.Figures[figure])])!);
        return new ArmSummary(arm.Name, arm.Label, completed.Count, figures);
    }
}

public sealed record ExperimentPage(int Total, int Limit, int Offset, IReadOnlyList<ExperimentView> Experiments);
