using System.Globalization;
using System.Text.Json;
using LoadEngine.Checkup;
using LoadEngine.Clients;
using LoadEngine.Lessons;
using LoadEngine.Targets;
using LoadTest.Output;
using Microsoft.Extensions.DependencyInjection;
using Spectre.Console;

namespace LoadTest;

/// <summary>
/// <c>loadtest checkup</c>: describes the user's method as a run's is, measures the client strategies on it within the
/// budget (its runs in-process, as the gateway runs them), and prints the prescription: one row per item, then each
/// item's advice, saving and code. --json writes the checkup's record, --report a self-contained HTML page.
/// </summary>
public static class CheckupMode
{
    public static async Task<int> RunAsync(
        LoadTestSettings settings, TimeSpan? budget, int? inFlight, string? streamCall, IAnsiConsole console, TextWriter output, TextWriter error, Interrupt interrupt)
    {
        if (settings.Described is not { Call: { } method } described)
        {
            return Usage(error, $"checkup needs --call: the unary method of your service to check the client against, as {LoadEngine.Targets.Described.DescribedPlan.CallForm}.");
        }

        CheckupRecord checkup;
        await using (var services = LoadTestRunner.BuildServices(settings))
        {
            var (target, problem) = await described.DescribeAsync(services.GetRequiredService<ChannelFactory>(), services.GetRequiredService<TargetText>(), settings.Engine, interrupt.Token);
            if (target is null)
            {
                return Usage(error, problem);
            }

            var call = new LessonCall(null, settings.Target, target, method, described.Data, streamCall);
            if (!CheckupPlan.TryCreate(call, budget?.TotalSeconds, inFlight, settings.Limits, settings.Engine, out var plan, out var refusal))
            {
                return Usage(error, refusal);
            }

            Say(settings, output, $"Checkup of {method} at {call.Name}, within {plan.Budget.TotalSeconds:0.#} s, your load {plan.InFlight} in flight…");
            var runs = services.GetRequiredService<LoadTestRunner>().Sequence(new ProgressDisplay(), settings.Limits, interrupt);
            string? said = null;
            checkup = await CheckupRun.RunAsync(plan, plan.NewRecord(), runs, services, record =>
            {
                if (record.Step is { } step && !step.EndsWith(" ended", StringComparison.Ordinal) && step != said)
                {
                    said = step;
                    Say(settings, output, $"  {step}…");
                }
            }, interrupt.Token);
            GC.KeepAlive(target);
        }

        Write(console, output, checkup);
        var exitCode = interrupt.Signal is not null ? ExitCodes.Interrupted : checkup.State == RunState.Completed ? ExitCodes.Passed : ExitCodes.NotCompleted;
        foreach (var (path, content) in new[] { (settings.JsonPath, (Func<string>)(() => JsonSerializer.Serialize(checkup, RunJson.Options))), (settings.ReportPath, () => CheckupReport.Render(checkup)) })
        {
            if (path is null)
            {
                continue;
            }

            try
            {
                await File.WriteAllTextAsync(path, content());
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

    /// <summary>The prescription as a table (one row per item, in order), then each item's sentences and code as they are: a CI log wraps nothing.</summary>
    private static void Write(IAnsiConsole console, TextWriter output, CheckupRecord checkup)
    {
        var table = new Table().AddColumns("#", "Item", "Outcome", "Measured ratio (range)", "Beyond noise", "Saving");
        foreach (var item in checkup.Items)
        {
            table.AddRow(
                item.Number.ToString(CultureInfo.InvariantCulture),
                Markup.Escape(item.Title),
                Markup.Escape(CheckupReport.OutcomeWords(item.Outcome)),
                Markup.Escape(item.Measured is { Ratio: { } ratio } measured
                    ? $"{Ratio(ratio)}{(measured.Range is { } range ? $" ({Ratio(range.Min)}–{Ratio(range.Max)})" : "")}, {measured.Other} ÷ {measured.Baseline}, {measured.Figure}"
                    : "—"),
                item.Measured is null or { Ratio: null } ? "—" : item.Measured.BeyondNoise ? "yes" : "no",
                Markup.Escape(item.Saving?.Sentence ?? "—"));
        }

        console.Write(table);
        foreach (var item in checkup.Items)
        {
            output.WriteLine();
            output.WriteLine($"{item.Number}. {item.Title} ({CheckupReport.OutcomeWords(item.Outcome)}): {item.Advice}");
            if (item.Measured is { } measured)
            {
                output.WriteLine($"   Measured: {measured.Sentence}");
            }

            if (item.Code is { } code)
            {
                output.WriteLine();
                output.Write(string.Concat(code.Split('\n').Select(line => line.Length == 0 ? "\n" : $"    {line}\n")));
            }
        }

        output.WriteLine();
        checkup.Caveats.ToList().ForEach(caveat => output.WriteLine($"Caveat: {caveat}"));
        if (checkup.State != RunState.Completed)
        {
            output.WriteLine($"The checkup {checkup.State.ToString().ToLowerInvariant()}: {checkup.Error}");
        }
    }

    private static int Usage(TextWriter error, string sentence)
    {
        error.WriteLine($"loadtest: {sentence}");
        return ExitCodes.Usage;
    }

    private static string Ratio(double ratio) => ratio.ToString(ratio < 10 ? "0.00" : "0.0", CultureInfo.InvariantCulture);

    private static void Say(LoadTestSettings settings, TextWriter output, string line)
    {
        if (settings.Progress != ProgressMode.Quiet)
        {
            output.WriteLine(line);
        }
    }
}
