namespace LoadTest;

/// <summary>What a command line ran: its runs in order, the suite they made (for --strategy all), and the signal that interrupted them, if any.</summary>
public sealed record LoadTestResult(SuiteRecord? Suite, IReadOnlyList<RunRecord> Runs, string? Interruption)
{
    public bool HasThresholds => Runs.Any(run => run.Plan.Thresholds.Count > 0);
}

/// <summary>
/// A suite as the JSON file holds it: the fields of the gateway's GET /api/suites/{id} (the suite, with the first
/// strategy's plan as its plan, whether every threshold held, and its runs) but the comparison, which the summary prints.
/// </summary>
public sealed record SuiteDocument(
    Guid Id,
    RunPlan Plan,
    IReadOnlyList<string> Strategies,
    RunState State,
    DateTimeOffset StartedAt,
    DateTimeOffset? FinishedAt,
    string? Error,
    IReadOnlyList<RunRecord> Runs)
{
    /// <summary>With thresholds: whether every run completed and passed its verdict. Null without.</summary>
    public bool? Passed => Plan.Thresholds.Count == 0 ? null : State == RunState.Completed && Runs.Count == Strategies.Count && Runs.All(run => run.Verdict?.Passed == true);

    public static SuiteDocument From(SuiteRecord suite, IReadOnlyList<RunRecord> runs) =>
        new(suite.Id, suite.Plan, suite.Strategies, suite.State, suite.StartedAt, suite.FinishedAt, suite.Error, runs);
}
