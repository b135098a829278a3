namespace ApiGateway.Comparisons;

/// <summary>One place in a comparison's schedule: the repetition, the contender, and its run once it has started.</summary>
public sealed record ScheduledRun(int Repetition, string Contender, Guid? RunId, RunState? State);

public sealed record ComparisonLinks(string Self, string Events, string Cancel, string Suite);

/// <summary>
/// A protocol comparison as the API answers it (made by <see cref="ComparisonSummary.Of"/>): what it compares, its schedule
/// and runs, the summary per contender, the ranking and the sentence. <see cref="Plan"/> holds the settings every run shared
/// (its strategy is the workload; each run's own plan names its contender).
/// </summary>
public sealed record ComparisonView(
    Guid Id,
    string Workload,
    RunState State,
    DateTimeOffset StartedAt,
    DateTimeOffset? FinishedAt,
    string? Error,
    IReadOnlyList<string> Contenders,
    int Repetitions,
    RunPlan Plan,
    Guid? CurrentRunId,
    IReadOnlyList<ScheduledRun> Schedule,
    IReadOnlyList<RunRecord> Runs,
    string RankedBy,
    IReadOnlyList<ContenderSummary> Summary,
    ComparisonRanking? Ranking,
    string Sentence,
    ComparisonLinks Links);

public sealed record ComparisonPage(int Total, int Limit, int Offset, IReadOnlyList<ComparisonView> Comparisons);
