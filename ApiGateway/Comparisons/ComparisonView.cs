using ApiGateway.Runs;

namespace ApiGateway.Comparisons;

/// <summary>One place in a comparison's schedule: the repetition, the contender, and its run once it has started.</summary>
public sealed record ScheduledRun(int Repetition, string Contender, Guid? RunId, RunState? State);

public sealed record ComparisonLinks(string Self, string Events, string Cancel, string Suite);

/// <summary>
/// A protocol comparison as the API answers it: what it compares, its schedule and runs, the summary per contender, the
/// ranking and the sentence. <see cref="Plan"/> holds the settings every run shared (its strategy is the workload; each
/// run's own plan names its contender).
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
    ComparisonLinks Links)
{
    /// <summary><paramref name="runs"/>: the suite's runs in the order they started, which is the schedule's.</summary>
    public static ComparisonView From(SuiteRecord suite, IReadOnlyList<RunRecord> runs, ActiveSuite? active)
    {
        var comparison = suite.Comparison!;
        var outcome = ComparisonSummary.Of(suite, runs);
        var schedule = comparison.Schedule().Select((step, index) =>
        {
            var run = index < runs.Count && runs[index].Plan.Strategy == step.Contender ? runs[index] : null;
            return new ScheduledRun(step.Repetition, step.Contender, run?.Id, run?.State);
        }).ToList();
        var current = active?.Current;
        var path = $"/api/comparisons/{suite.Id}";
        return new ComparisonView(
            suite.Id,
            suite.Plan.Workload?.Id ?? string.Empty,
            suite.State,
            suite.StartedAt,
            suite.FinishedAt,
            suite.Error,
            comparison.Contenders,
            comparison.Repetitions,
            suite.Plan with { Strategy = suite.Plan.Workload?.Id ?? suite.Plan.Strategy, Called = suite.Plan.Workload is { } workload ? workload with { Contender = null } : suite.Plan.Called },
            current?.Id,
            schedule,
            [.. runs.Select(run => current?.Id == run.Id ? run with { Progress = current.Live.Latest } : run)],
            outcome.RankedBy,
            outcome.Contenders,
            outcome.Ranking,
            outcome.Sentence,
            new ComparisonLinks(path, $"{path}/events", $"{path}/cancel", $"/api/suites/{suite.Id}"));
    }
}

public sealed record ComparisonPage(int Total, int Limit, int Offset, IReadOnlyList<ComparisonView> Comparisons);
