namespace LoadTest;

/// <summary>What the process's exit code says (k6's codes where k6 has one).</summary>
public static class ExitCodes
{
    /// <summary>Every run completed, and every threshold held.</summary>
    public const int Passed = 0;

    /// <summary>
    /// A run did not complete (the service unreachable, no call succeeded, the time limit) and no threshold was given,
    /// or a result file could not be written.
    /// </summary>
    public const int NotCompleted = 1;

    /// <summary>The command line could not be used; one sentence on stderr says why.</summary>
    public const int Usage = 2;

    /// <summary>A threshold failed (k6's ThresholdsHaveFailed). With thresholds, a run that did not complete fails them too.</summary>
    public const int ThresholdFailed = 99;

    /// <summary>Interrupted by Ctrl+C or SIGTERM (k6's ExternalAbort): the run is Cancelled, which is not a pass.</summary>
    public const int Interrupted = 105;
}

/// <summary>How the whole command ended, as its exit code and the last line it prints; the most telling reason wins.</summary>
public sealed record Outcome(int ExitCode, string Sentence)
{
    public static Outcome Of(LoadTestResult result, int filesNotWritten)
    {
        var runs = result.Runs;
        var judged = runs.Where(run => run.Verdict is not null).ToList();
        var thresholds = judged.Sum(run => run.Verdict!.Thresholds.Count);
        var failedThresholds = judged.Sum(run => run.Verdict!.Thresholds.Count(threshold => !threshold.Passed));
        var notCompleted = runs.Count(run => run.State != RunState.Completed);
        var runsText = runs.Count == 1 ? "1 run" : $"{runs.Count} runs";
        if (result.Interruption is { } interruption)
        {
            return new Outcome(ExitCodes.Interrupted, $"INTERRUPTED by {interruption}: a cancelled run is not a pass.");
        }

        if (judged.Any(run => !run.Verdict!.Passed))
        {
            var why = failedThresholds > 0 ? $"{failedThresholds} of {thresholds} thresholds failed" : $"{notCompleted} of {runsText} did not complete";
            return new Outcome(ExitCodes.ThresholdFailed, $"FAILED: {why}.");
        }

        if (notCompleted > 0 || filesNotWritten > 0)
        {
            var why = notCompleted > 0 ? $"{notCompleted} of {runsText} did not complete" : "a result file could not be written";
            return new Outcome(ExitCodes.NotCompleted, $"NOT COMPLETED: {why}.");
        }

        return thresholds > 0
            ? new Outcome(ExitCodes.Passed, $"PASSED: every threshold held ({thresholds} in {runsText}).")
            : new Outcome(ExitCodes.Passed, $"COMPLETED: {runsText}, no thresholds set.");
    }
}
