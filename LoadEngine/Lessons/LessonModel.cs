using System.Text.Json.Serialization;
using LoadEngine.Protocols;
using LoadEngine.Runs;

namespace LoadEngine.Lessons;

/// <summary>Which way a lesson says the ratio of its claim goes: the other arm's figure above the baseline's, or about equal.</summary>
[JsonConverter(typeof(JsonStringEnumConverter<ExpectedDirection>))]
public enum ExpectedDirection
{
    /// <summary>The other arm's figure is larger: the ratio other ÷ baseline is above 1.</summary>
    [JsonStringEnumMemberName("above-1")]
    Above1,

    /// <summary>Neither matters: the ratio is within <see cref="LessonVerdicts.SimilarWithin"/> of 1.</summary>
    [JsonStringEnumMemberName("near-1")]
    Near1,
}

/// <summary>
/// One side of a lesson's comparison. <see cref="Run"/> is the plan of a stored run (its strategy or workload and
/// contender); without it, the lesson's probe measures the arm (a keep-alive pause, a payload's sizes).
/// </summary>
public sealed record LessonArm(string Name, string Label, string Setup)
{
    [JsonIgnore]
    public RunPlanInput? Run { get; init; }

    /// <summary>The contender of a workload arm, whose listener must be configured for the arm to run.</summary>
    [JsonIgnore]
    public Contender? Contender { get; init; }

    /// <summary>A probed arm that measures over whichever transport the target has, rather than over TLS (with a <see cref="Contender"/>) or h2c only.</summary>
    [JsonIgnore]
    public bool AnyTransport { get; init; }
}

/// <summary>
/// What a lesson claims, as a ratio that can be measured: <see cref="Other"/>'s <see cref="Figure"/> ÷ <see cref="Baseline"/>'s,
/// expected <see cref="Expected"/>. Every figure is a cost (time, bytes, connections), so above 1 means "more".
/// </summary>
public sealed record LessonClaim(string Statement, string Figure, string FigureTitle, string Baseline, string Other, ExpectedDirection Expected, string Word);

/// <summary>
/// One lesson of the chapter as an experiment: the arms it compares, the settings that make the effect exist, and the
/// claims it judges (the first is the headline verdict). <see cref="LookAt"/> and <see cref="Why"/> are the page's text;
/// <see cref="WhenItDoesNotHold"/> is said when the measurement disagrees. The gateway's view adds its arms' plans and latest experiment.
/// </summary>
public record LessonDefinition(
    string Id,
    int Number,
    string Title,
    string Lesson,
    string Link,
    string Design,
    string LookAt,
    string Why,
    string WhenItDoesNotHold,
    IReadOnlyList<LessonArm> Arms,
    IReadOnlyList<LessonClaim> Claims)
{
    /// <summary>The probe that measures the arms without a run plan, once per repetition; null when every arm is a run.</summary>
    [JsonIgnore]
    public Type? Probe { get; init; }

    /// <summary>What changes when the lesson runs on the user's own method (a target and a unary call); null when it does not.</summary>
    public string? OnTarget { get; init; }

    /// <summary>Why the lesson runs on the built-in service only, in one sentence; null when it runs on a target's method too.</summary>
    public string? NotOnTargets { get; init; }

    /// <summary>The figure each arm shows on the lesson's chart (the headline claim's).</summary>
    public string ChartFigure => Claims[0].Figure;

    public LessonArm Arm(string name) => Arms.First(arm => arm.Name == name);
}

/// <summary>Measures a lesson's arms that are not runs, once per repetition, all in one go (they share a pause, or one answer).</summary>
public interface ILessonProbe
{
    Task<IReadOnlyList<ExperimentSample>> MeasureAsync(LessonPlan plan, int repetition, CancellationToken cancellation);
}

/// <summary>What one arm measured in one repetition: its run (when it is one), how it ended, and its figures.</summary>
public sealed record ExperimentSample(int Repetition, string Arm, Guid? RunId, RunState State, IReadOnlyDictionary<string, double> Figures, string? Error)
{
    /// <summary>A completed sample with the figures that were measured; a figure without a value was not, and is left out.</summary>
    public static ExperimentSample Measured(int repetition, string arm, Guid? runId, params (string Figure, double? Value)[] figures) =>
        new(repetition, arm, runId, RunState.Completed, figures.Where(figure => figure.Value is not null).ToDictionary(figure => figure.Figure, figure => figure.Value!.Value), null);
}

/// <summary>A ratio's median over the repetitions, with the smallest and largest.</summary>
public sealed record RatioRange(double Min, double Max);

/// <summary>
/// One claim judged. <see cref="MeasuredRatio"/> is the median over the repetitions of other ÷ baseline (null when no
/// repetition measured both); <see cref="Agrees"/> says whether it goes the way the lesson says; <see cref="BeyondNoise"/>
/// whether the measured difference is larger than the run-to-run spread (every repetition on the same side of 1, and
/// the two arms' ranges apart).
/// </summary>
public sealed record LessonVerdict(
    string Claim,
    string Figure,
    string RatioOf,
    ExpectedDirection ExpectedDirection,
    double? MeasuredRatio,
    RatioRange? Range,
    IReadOnlyList<double> Ratios,
    bool Agrees,
    bool BeyondNoise,
    string Sentence);

/// <summary>
/// One lesson experiment: its samples as they arrive, and (computed from them) the headline verdict and every claim's.
/// Stored whole when it ends, like a run; the gateway's view adds the lesson's title, the verdicts and each arm's figures.
/// </summary>
public record ExperimentRecord(
    Guid Id,
    string Lesson,
    RunState State,
    DateTimeOffset StartedAt,
    DateTimeOffset? FinishedAt,
    string? Error,
    int Repetitions,
    IReadOnlyList<ExperimentSample> Samples)
{
    /// <summary>Why an arm could not run on this system (a listener that is not configured), by arm.</summary>
    public IReadOnlyDictionary<string, string> Unavailable { get; init; } = new Dictionary<string, string>();

    /// <summary>The configured target the experiment ran on; null for the built-in service (or its descriptors, with <see cref="Call"/>).</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? Target { get; init; }

    /// <summary>The unary method the experiment ran on, "pkg.Service/Method"; null for the built-in service's own.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? Call { get; init; }

    /// <summary>The bidirectional method the streaming lesson's stream arm called on the target.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? StreamCall { get; init; }
}
