using LoadEngine.Thresholds;

namespace LoadTest;

/// <summary>What a command line ran: its runs in order, the suite they made (for --strategy all), and the signal that interrupted them, if any.</summary>
public sealed record LoadTestResult(SuiteRecord? Suite, IReadOnlyList<RunRecord> Runs, string? Interruption);

/// <summary>
/// A suite as the JSON file holds it: the suite (its plan is the first strategy's, as in the gateway), whether every
/// threshold held (null without thresholds, as the gateway's suite view says it), and its runs in the order they ran —
/// the suite and runs the HTML report inlines as its data.
/// </summary>
public sealed record SuiteDocument(SuiteRecord Suite, IReadOnlyList<RunRecord> Runs)
{
    public bool? Passed => ThresholdJudge.SuitePassed(Suite.Plan, Suite.State, Suite.Strategies.Count, Runs);
}
