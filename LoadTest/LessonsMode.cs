using System.CommandLine;
using System.Globalization;
using System.Text.Json;
using LoadEngine.Clients;
using LoadEngine.Lessons;
using LoadEngine.Targets;
using LoadEngine.Targets.Described;
using LoadTest.Output;
using Microsoft.Extensions.DependencyInjection;
using Spectre.Console;

namespace LoadTest;

/// <summary>One lesson's experiment as the CLI reports it (and writes with --json): the record and every claim judged.</summary>
public sealed record LessonOutcome(string Lesson, int Number, string Title, ExperimentRecord Experiment, IReadOnlyList<LessonVerdict> Verdicts);

/// <summary>
/// <c>loadtest lessons</c>: warms the engine, runs each lesson's experiment as designed (its runs in-process, as the
/// gateway runs them), and prints one line per claim: expected direction, measured ratio and range, agrees, beyond noise.
/// </summary>
public static class LessonsMode
{
    public static bool TryRead(ParseResult parsed, LoadTestCommand command, out IReadOnlyList<LessonDefinition> lessons, out string error)
    {
        var ids = parsed.GetValue(command.LessonIds) is { Length: > 0 } list ? list.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries) : LessonList.Ids.ToArray();
        var unknown = ids.FirstOrDefault(id => LessonList.Find(id) is null);
        error = unknown is null ? string.Empty : $"lessons named '{unknown}', which is not a lesson; name them from: {string.Join(", ", LessonList.Ids)} (or give none for all).";
        lessons = unknown is null ? [.. ids.Distinct().Select(id => LessonList.Find(id)!)] : [];
        return unknown is null;
    }

    public static async Task<int> RunAsync(
        LoadTestSettings settings, IReadOnlyList<LessonDefinition> lessons, int? repetitions, string? streamCall, IAnsiConsole console, TextWriter output, TextWriter error, Interrupt interrupt)
    {
        var outcomes = new List<LessonOutcome>();
        await using (var services = LoadTestRunner.BuildServices(settings))
        {
            var (call, problem) = await CallAsync(settings, streamCall, services, interrupt.Token);
            if (problem is not null)
            {
                return Usage(error, problem);
            }

            // Every lesson is planned before any runs: one that cannot run on the method says why, and only it is left out.
            var plans = new List<LessonPlan>();
            var notHere = new List<string>();
            foreach (var lesson in lessons)
            {
                if (LessonPlan.TryCreate(lesson, repetitions, settings.Limits, settings.Engine, call, out var plan, out var why))
                {
                    plans.Add(plan);
                }
                else
                {
                    notHere.Add($"Lesson {lesson.Number}, {lesson.Title}, does not apply to {call!.Call}: {why}");
                }
            }

            if (plans.Count == 0)
            {
                return Usage(error, string.Join(" ", notHere));
            }

            notHere.ForEach(output.WriteLine);
            // The engine's warm-up calls the built-in service's methods; on the user's service each arm's own warm-up calls are all there is.
            if (call is null)
            {
                var warmup = await EngineWarmup.RunAsync(services, interrupt.Token);
                Say(settings, output, warmup.Summary);
            }

            var runs = services.GetRequiredService<LoadTestRunner>().Sequence(new ProgressDisplay(), settings.Limits, interrupt);
            foreach (var plan in plans)
            {
                if (interrupt.Signal is not null)
                {
                    break;
                }

                var lesson = plan.Lesson;
                Say(settings, output, $"Lesson {lesson.Number}, {lesson.Title}{(call is null ? "" : $" on {call.Call}")}: {plan.Schedule().Count} steps " +
                    $"({plan.Repetitions} {(plan.Repetitions == 1 ? "repetition" : "repetitions")})…");
                var record = await LessonExperiment.RunAsync(plan, plan.NewRecord(), runs, services, _ => { }, interrupt.Token);
                outcomes.Add(new LessonOutcome(lesson.Id, lesson.Number, lesson.Title, record, LessonVerdicts.Judge(lesson, record)));
            }
        }

        Write(console, output, outcomes);
        var exitCode = interrupt.Signal is not null ? ExitCodes.Interrupted
            : outcomes.Any(outcome => outcome.Experiment.State != RunState.Completed) ? ExitCodes.NotCompleted
            : outcomes.All(outcome => outcome.Verdicts[0] is { Agrees: true, BeyondNoise: true }) ? ExitCodes.Passed
            : ExitCodes.ThresholdFailed;
        if (settings.JsonPath is { } path)
        {
            try
            {
                await File.WriteAllTextAsync(path, JsonSerializer.Serialize(outcomes, RunJson.Options));
                output.WriteLine($"Wrote {path}.");
            }
            catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
            {
                output.WriteLine($"Could not write {path}: {ex.Message}");
                exitCode = exitCode == ExitCodes.Passed ? ExitCodes.NotCompleted : exitCode;
            }
        }

        return exitCode;
    }

    /// <summary>One row per claim, the headline first in each lesson: what a presenter checks before the workshop.</summary>
    private static void Write(IAnsiConsole console, TextWriter output, IReadOnlyList<LessonOutcome> outcomes)
    {
        var table = new Table().AddColumns("Lesson", "Claim", "Expected", "Measured ratio (range)", "Agrees", "Beyond noise");
        foreach (var outcome in outcomes)
        {
            foreach (var (verdict, index) in outcome.Verdicts.Select((verdict, index) => (verdict, index)))
            {
                table.AddRow(
                    Markup.Escape(index == 0 ? $"{outcome.Number} {outcome.Lesson}" : ""),
                    Markup.Escape(verdict.Claim),
                    Markup.Escape(verdict.ExpectedDirection == ExpectedDirection.Above1 ? "above 1" : "near 1"),
                    // A claim with no ratio was not judged: its row says so and why, never "no" as if it had been measured and disagreed.
                    Markup.Escape(verdict.MeasuredRatio is { } ratio ? $"{Ratio(ratio)} ({Ratio(verdict.Range!.Min)}–{Ratio(verdict.Range.Max)}), {verdict.RatioOf}"
                        : $"not measured: {NotJudged(verdict.Sentence)}"),
                    verdict.MeasuredRatio is null ? "not measured" : verdict.Agrees ? "yes" : "no",
                    verdict.MeasuredRatio is null ? "not measured" : verdict.BeyondNoise ? "yes" : "no");
            }
        }

        console.Write(table);
        foreach (var outcome in outcomes)
        {
            var ended = outcome.Experiment.State == RunState.Completed ? "" : $" The experiment {outcome.Experiment.State.ToString().ToLowerInvariant()}: {outcome.Experiment.Error}";
            // Written as it is, not through the console, which would wrap a long sentence.
            output.WriteLine($"{outcome.Number} {outcome.Title}: {outcome.Verdicts[0].Sentence}{ended}");
        }
    }

    /// <summary>
    /// The user's method the lessons run on (--call, described as a run's is, before anything runs); null without --call.
    /// The CLI cannot know whether --target is the built-in service, so connections are counted only from a service it knows.
    /// </summary>
    private static async Task<(LessonCall? Call, string? Problem)> CallAsync(LoadTestSettings settings, string? streamCall, IServiceProvider services, CancellationToken cancellation)
    {
        if (settings.Described is not { Call: { } call } described)
        {
            return (null, streamCall is null ? null : $"--stream-call names the streaming lesson's method on the user's service; give --call {DescribedPlan.CallForm} too.");
        }

        var (target, problem) = await described.DescribeAsync(services.GetRequiredService<ChannelFactory>(), services.GetRequiredService<TargetText>(), settings.Engine, cancellation);
        return target is null ? (null, problem) : (new LessonCall(null, settings.Target, target, call, described.Data, streamCall), null);
    }

    private static int Usage(TextWriter error, string sentence)
    {
        error.WriteLine($"loadtest: {sentence}");
        return ExitCodes.Usage;
    }

    /// <summary>Why a claim was not judged, as its verdict says it ("Not judged: the experiment is still running." gives the reason alone).</summary>
    private static string NotJudged(string sentence) =>
        sentence.StartsWith(LessonVerdicts.NotJudged, StringComparison.Ordinal) ? sentence[LessonVerdicts.NotJudged.Length..] : sentence;

    private static string Ratio(double ratio) => ratio.ToString(ratio < 10 ? "0.00" : "0.0", CultureInfo.InvariantCulture);

    private static void Say(LoadTestSettings settings, TextWriter output, string line)
    {
        if (settings.Progress != ProgressMode.Quiet)
        {
            output.WriteLine(line);
        }
    }
}
