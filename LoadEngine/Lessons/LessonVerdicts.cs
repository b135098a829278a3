using System.Globalization;
using LoadEngine.Runs;

namespace LoadEngine.Lessons;

/// <summary>
/// Judges a lesson's claims from an experiment's samples: repetition by repetition, other ÷ baseline; the median and
/// range of those ratios; whether they go the lesson's way; and whether the difference is beyond the run-to-run spread.
/// Nothing here is tuned to agree: a lesson that does not hold on this machine is said not to.
/// </summary>
public static class LessonVerdicts
{
    /// <summary>"About the same": a ratio between 1 ÷ this and this.</summary>
    public const double SimilarWithin = 1.25;

    /// <summary>How the sentence of a claim that was not judged begins; the reason follows.</summary>
    public const string NotJudged = "Not judged: ";

    public static IReadOnlyList<LessonVerdict> Judge(LessonDefinition lesson, ExperimentRecord experiment) =>
        [.. lesson.Claims.Select(claim => Judge(lesson, claim, experiment))];

    public static LessonVerdict Judge(LessonDefinition lesson, LessonClaim claim, ExperimentRecord experiment)
    {
        var baseline = lesson.Arm(claim.Baseline);
        var other = lesson.Arm(claim.Other);
        var ratioOf = $"{other.Name} ÷ {baseline.Name}, {claim.FigureTitle}";
        LessonVerdict Unjudged(string why) => new(claim.Statement, claim.Figure, ratioOf, claim.Expected, null, null, [], false, false, NotJudged + why);

        foreach (var arm in new[] { baseline, other })
        {
            if (experiment.Unavailable.TryGetValue(arm.Name, out var reason))
            {
                return Unjudged($"{arm.Label} could not run here. {reason}");
            }
        }

        if (experiment.Samples.FirstOrDefault(sample => (sample.Arm == baseline.Name || sample.Arm == other.Name) && sample.State != RunState.Completed) is { } failed)
        {
            // A failed call is never counted as a measurement: the claim waits for a clean experiment.
            return Unjudged($"{lesson.Arm(failed.Arm).Label} did not complete in repetition {failed.Repetition}: {failed.Error ?? failed.State.ToString().ToLowerInvariant()}.");
        }

        var mine = Figures(experiment, baseline.Name, claim.Figure);
        var theirs = Figures(experiment, other.Name, claim.Figure);
        var ratios = mine.Keys.Intersect(theirs.Keys).Order()
            .Where(repetition => mine[repetition] > 0)
            .Select(repetition => theirs[repetition] / mine[repetition])
            .ToList();
        if (ratios.Count == 0)
        {
            return experiment.State == RunState.Running ? Unjudged("the experiment is still running.")
                : mine.Count == 0 && theirs.Count == 0 && experiment.Call is not null ? Unjudged(NotMeasured(claim, experiment))
                : Unjudged($"no repetition measured {claim.FigureTitle} of both {other.Label} and {baseline.Label}.");
        }

        var median = FigureRange.MedianOf(ratios);
        var range = new RatioRange(Round(ratios.Min()), Round(ratios.Max()));
        var agrees = claim.Expected == ExpectedDirection.Above1 ? median > 1 : median is >= 1 / SimilarWithin and <= SimilarWithin;
        var beyondNoise = BeyondNoise(ratios, [.. mine.Values], [.. theirs.Values], median);
        var sentence = Sentence(lesson, claim, baseline, other, median, range, ratios.Count, agrees, beyondNoise);
        return new LessonVerdict(claim.Statement, claim.Figure, ratioOf, claim.Expected, Round(median), range, [.. ratios.Select(Round)], agrees, beyondNoise, sentence);
    }

    /// <summary>
    /// The measured difference (whichever way it goes) is larger than the spread: at least two repetitions, every ratio
    /// on the same side of 1 as the median, and the two arms' figures over the repetitions do not overlap.
    /// </summary>
    public static bool BeyondNoise(IReadOnlyList<double> ratios, IReadOnlyList<double> baseline, IReadOnlyList<double> other, double median) =>
        ratios.Count >= 2 && median != 1 && (median > 1
            ? ratios.All(ratio => ratio > 1) && other.Min() > baseline.Max()
            : ratios.All(ratio => ratio < 1) && other.Max() < baseline.Min());

    /// <summary>"1.04×", "4.4×", "12×": two significant digits where a ratio is near 1, fewer as it grows (a comparison's sentence says them so too).</summary>
    public static string Times(double ratio) => $"{Number(ratio)}×";

    public static string Number(double ratio) =>
        ratio.ToString(ratio < 1.1 ? "0.00" : ratio < 10 ? "0.0" : "0", CultureInfo.InvariantCulture);

    /// <summary>"3 of 1,000 calls failed (…)": a run's failed calls, where they failed, and their statuses.</summary>
    public static string FailedCalls(RunStats stats, string where = "") =>
        $"{stats.Failed.ToString("#,0", CultureInfo.InvariantCulture)} of {stats.Calls.ToString("#,0", CultureInfo.InvariantCulture)} calls failed{where} ({StatusDetails.Describe(stats)})";

    private static Dictionary<int, double> Figures(ExperimentRecord experiment, string arm, string figure) =>
        experiment.Samples.Where(sample => sample.Arm == arm && sample.State == RunState.Completed && sample.Figures.ContainsKey(figure))
            .GroupBy(sample => sample.Repetition)
            .ToDictionary(group => group.Key, group => group.First().Figures[figure]);

    private static string Sentence(
        LessonDefinition lesson, LessonClaim claim, LessonArm baseline, LessonArm other, double median, RatioRange range, int repetitions, bool agrees, bool beyondNoise)
    {
        var spread = repetitions == 1 ? "one repetition" : $"median of {repetitions}, {Number(range.Min)}–{Times(range.Max)}";
        var measured = claim.Expected == ExpectedDirection.Near1
            ? $"{Capital(other.Label)} took {Times(median)} the {claim.FigureTitle} of {baseline.Label} ({spread})"
            : median >= 1
                ? $"{Capital(other.Label)} was {Times(median)} {claim.Word} than {baseline.Label} in {claim.FigureTitle} ({spread})"
                : $"{Capital(other.Label)} was not {claim.Word} than {baseline.Label}: {Times(median)} its {claim.FigureTitle} ({spread})";
        var judged = (claim.Expected, agrees, beyondNoise, repetitions) switch
        {
            (_, _, _, 1) => agrees
                ? "the way the lesson says, but one repetition cannot tell an effect from noise; repeat it."
                : "not what the lesson says, and one repetition cannot tell an effect from noise; repeat it.",
            (ExpectedDirection.Above1, true, true, _) => "as the lesson says, and beyond the run-to-run spread.",
            (ExpectedDirection.Above1, true, false, _) => "the way the lesson says, but within the run-to-run spread, so this machine does not show it clearly.",
            (ExpectedDirection.Above1, false, _, _) => $"not what the lesson says, on this machine. {lesson.WhenItDoesNotHold}",
            (ExpectedDirection.Near1, true, false, _) => "about the same, as the lesson says.",
            (ExpectedDirection.Near1, true, true, _) => $"within {SimilarWithin.ToString(CultureInfo.InvariantCulture)}× of each other, as the lesson says, though the small difference is beyond the run-to-run spread.",
            _ => $"more than {SimilarWithin.ToString(CultureInfo.InvariantCulture)}× apart, which is not what the lesson says, on this machine. {lesson.WhenItDoesNotHold}",
        };
        return $"{measured}: {judged}";
    }

    /// <summary>Why a figure no run of the user's method reported was not measured, rather than a number that would claim it.</summary>
    private static string NotMeasured(LessonClaim claim, ExperimentRecord experiment) => claim.Figure == "connectionsUsed"
        ? $"{claim.FigureTitle} were not measured on {experiment.Target ?? experiment.Call}: they are counted from the built-in service's own answers, which say which connection carried each call, and {experiment.Target ?? "this target"} is another service."
        : $"{claim.FigureTitle} was not measured on {experiment.Call}.";

    private static string Capital(string text) => text.Length == 0 ? text : char.ToUpperInvariant(text[0]) + text[1..];

    private static double Round(double value) => Math.Round(value, value < 10 ? 3 : 1);
}
