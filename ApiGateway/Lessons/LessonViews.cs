using System.Text.Json.Serialization;
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
/// what changes on the user's own method (<see cref="LessonDefinition.OnTarget"/>), or why it runs on the built-in
/// service only (<see cref="LessonDefinition.NotOnTargets"/>). The lesson's own fields come first in its JSON, then these.
/// </summary>
public sealed record LessonView : LessonDefinition
{
    private LessonView(LessonDefinition lesson, IReadOnlyList<LessonArmView> arms, ExperimentView? latest)
        : base(lesson) => (Arms, Latest) = (arms, latest);

    /// <summary>Each arm with its run plan here (when it is a run), and why it cannot run here, if so.</summary>
    [JsonPropertyOrder(1)]
    public new IReadOnlyList<LessonArmView> Arms { get; }

    [JsonPropertyOrder(1)]
    public int DefaultRepetitions => LessonList.DefaultRepetitions;

    [JsonPropertyOrder(1)]
    public ExperimentView? Latest { get; }

    [JsonPropertyOrder(1)]
    public LessonLinks Links => new($"/api/lessons/{Id}", $"/api/lessons/{Id}/experiments");

    public static LessonView From(LessonDefinition lesson, LessonPlan plan, ExperimentView? latest) => new(lesson,
        [.. lesson.Arms.Select(arm => new LessonArmView(arm.Name, arm.Label, arm.Setup, plan.Plans.GetValueOrDefault(arm.Name), plan.Unavailable.GetValueOrDefault(arm.Name)))],
        latest);
}

public sealed record ExperimentLinks(string Self, string Events, string Cancel, string Lesson);

/// <summary>
/// One experiment of a lesson: its samples, each arm's figures over the repetitions, and the verdicts. <see cref="Verdict"/>
/// judges the lesson's headline claim; <see cref="Checks"/> every claim, the headline first.
/// </summary>
public sealed record ExperimentView : ExperimentRecord
{
    private ExperimentView(ExperimentRecord record, LessonDefinition lesson, ExperimentProgress? now) : base(record)
    {
        var path = $"/api/lessons/{lesson.Id}/experiments/{record.Id}";
        (Title, Checks, Now, Links) = (lesson.Title, LessonVerdicts.Judge(lesson, record), now, new(path, $"{path}/events", $"{path}/cancel", $"/api/lessons/{lesson.Id}"));
        Arms = [.. lesson.Arms.Select(arm => Summarize(arm, record))];
    }

    [JsonPropertyOrder(1)]
    public string Title { get; }

    [JsonPropertyOrder(1)]
    public LessonVerdict Verdict => Checks[0];

    [JsonPropertyOrder(1)]
    public IReadOnlyList<LessonVerdict> Checks { get; }

    [JsonPropertyOrder(1)]
    public IReadOnlyList<ArmSummary> Arms { get; }

    [JsonPropertyOrder(1)]
    public ExperimentProgress? Now { get; }

    [JsonPropertyOrder(1)]
    public ExperimentLinks Links { get; }

    /// <summary>The experiment, with the step running now (which of how many, the repetition, the arm or null for the probe, and its run's live progress).</summary>
    public static ExperimentView From(ExperimentRecord record, ActiveExperiment? active = null) =>
        new(record, LessonList.Find(record.Lesson)!, active?.CurrentStep is { } step && record.State == RunState.Running
            ? new ExperimentProgress(step, step.IsProbe ? null : active.Current?.Id, step.IsProbe ? null : active.Current?.Live.Latest)
            : null);

    private static ArmSummary Summarize(LessonArm arm, ExperimentRecord record)
    {
        var completed = record.Samples.Where(sample => sample.Arm == arm.Name && sample.State == RunState.Completed).ToList();
        var figures = completed.SelectMany(sample => sample.Figures.Keys).Distinct().ToDictionary(figure => figure, figure =>
            FigureRange.Of([.. completed.Where(sample => sample.Figures.ContainsKey(figure)).Select(sample => sample.Figures[figure])])!);
        return new ArmSummary(arm.Name, arm.Label, completed.Count, figures);
    }
}

public sealed record ExperimentPage(int Total, int Limit, int Offset, IReadOnlyList<ExperimentView> Experiments);
