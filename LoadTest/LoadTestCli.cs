using System.CommandLine;
using System.CommandLine.Invocation;
using LoadEngine.Clients;
using LoadEngine.Targets;
using LoadEngine.Targets.Described;
using LoadTest.Output;
using Microsoft.Extensions.DependencyInjection;
using Spectre.Console;

namespace LoadTest;

/// <summary>
/// The command from arguments to exit code: parse, check, run every plan with progress, write the files, print the
/// summary. A command line that cannot be used costs one sentence on stderr and exit code 2, before anything runs.
/// </summary>
public static class LoadTestCli
{
    public static async Task<int> RunAsync(string[] args, TextWriter output, TextWriter error, Interrupt interrupt)
    {
        var command = new LoadTestCommand();
        var parsed = command.Parse(args);
        if (parsed.Action is ParseErrorAction)
        {
            return Usage(error, command.Problem(parsed));
        }

        // The settings every command shares are read and checked before its own; a command without plan options (lessons, agent) brings its own plans.
        Task<int> WithSettings(ParseResult result, Func<LoadTestSettings, Task<int>> run) =>
            LoadTestSettings.TryRead(result, command, Console.IsOutputRedirected, out var settings, out var problem, withPlans: result.CommandResult.Command.Options.Contains(command.Count))
                ? run(settings)
                : Task.FromResult(Usage(error, problem));
        command.Run.SetAction((result, _) => WithSettings(result, settings => RunAsync(settings, output, error, interrupt)));
        command.Compare.SetAction((result, _) => WithSettings(result, settings => RunAsync(settings, output, error, interrupt)));
        command.Lessons.SetAction((result, _) => WithSettings(result, settings => LessonsMode.TryRead(result, command, out var lessons, out var problem)
            ? LessonsMode.RunAsync(settings, lessons, result.GetValue(command.Repetitions), parsed.GetValue(command.StreamCall), ConsoleFor(settings, output), output, error, interrupt)
            : Task.FromResult(Usage(error, problem))));
        command.Checkup.SetAction((result, _) => WithSettings(result, settings =>
            CheckupMode.RunAsync(settings, result.GetValue(command.Budget), result.GetValue(command.InFlight), result.GetValue(command.StreamCall), ConsoleFor(settings, output), output, error, interrupt)));
        command.Agent.SetAction((result, _) => WithSettings(result, settings => AgentMode.TryRead(result, command, Environment.GetEnvironmentVariable, out var agent, out var problem)
            ? AgentMode.RunAsync(settings, agent, output, error, interrupt)
            : Task.FromResult(Usage(error, problem))));

        // The interrupt is this class's own, so that Ctrl+C ends the run cleanly however long writing its results takes.
        return await parsed.InvokeAsync(new InvocationConfiguration { Output = output, Error = error, ProcessTerminationTimeout = null });
    }

    private static int Usage(TextWriter error, string sentence)
    {
        error.WriteLine($"loadtest: {sentence} See {LoadTestCommand.Name} --help for every option.");
        return ExitCodes.Usage;
    }

    private static async Task<int> RunAsync(LoadTestSettings settings, TextWriter output, TextWriter error, Interrupt interrupt)
    {
        DescribedTarget? target = null;
        if (settings.Described is { } call)
        {
            // Described once, before any run, with the engine's own channel settings; --list ends here.
            await using var describing = LoadTestRunner.BuildServices(settings);
            (target, var problem) = await call.DescribeAsync(describing.GetRequiredService<ChannelFactory>(), describing.GetRequiredService<TargetText>(), settings.Engine, interrupt.Token);
            if (target is null)
            {
                return Usage(error, problem);
            }

            if (call.List)
            {
                try
                {
                    call.WriteList(target, output);
                    return ExitCodes.Passed;
                }
                catch (TargetDescriptionException unknown)
                {
                    return Usage(error, unknown.Message);
                }
            }

            // A strategy that cannot call the method is refused for a single run, and left out of a suite with a note.
            if (!PlanExpansion.TryFit(settings.Plans, target, strategiesAsked: !settings.IsSuite, out var plans, out var leftOut, out problem))
            {
                return Usage(error, problem);
            }

            settings = settings with { Plans = plans };
            leftOut.ToList().ForEach(SummaryWriter(settings, output, error).WriteLine);
        }

        var plain = settings.Progress != ProgressMode.Live;
        var console = ConsoleFor(settings, SummaryWriter(settings, output, error));
        ProgressDisplay display = settings.Progress switch
        {
            ProgressMode.Live => new LiveProgress(console),
            ProgressMode.Plain => new PlainProgress(output, TimeProvider.System),
            _ => new ProgressDisplay(),
        };

        LoadTestResult result;
        await using (var services = LoadTestRunner.BuildServices(settings))
        {
            var runner = services.GetRequiredService<LoadTestRunner>();
            result = await display.ShowAsync(() => runner.RunAsync(settings, display, interrupt));
        }

        // The target owns its compiled classes: held until every run that calls them has ended.
        GC.KeepAlive(target);
        var (notes, notWritten) = await ResultFiles.WriteAsync(settings, result);
        var outcome = Outcome.Of(result, notWritten);
        Summary.Write(console, result, settings.Target, notes, outcome, plain);
        if (settings.StdoutFormat is { } format)
        {
            output.Write(ResultFiles.Render(format, settings, result));
        }

        return outcome.ExitCode;
    }

    /// <summary>Where the summary goes: stdout, unless ghz's -O without -o gave stdout to a format alone (-O json > run.json).</summary>
    private static TextWriter SummaryWriter(LoadTestSettings settings, TextWriter output, TextWriter error) => settings.StdoutFormat is null ? output : error;

    /// <summary>A terminal's console, live; otherwise no ANSI, no colour, and lines as long as the tables need: a CI log wraps nothing.</summary>
    private static IAnsiConsole ConsoleFor(LoadTestSettings settings, TextWriter output)
    {
        var live = settings.Progress == ProgressMode.Live;
        var console = AnsiConsole.Create(live ? new AnsiConsoleSettings { Out = new AnsiConsoleOutput(output) } : new AnsiConsoleSettings
        {
            Ansi = AnsiSupport.No,
            ColorSystem = ColorSystemSupport.NoColors,
            Interactive = InteractionSupport.No,
            Out = new AnsiConsoleOutput(output),
        });
        if (!live)
        {
            console.Profile.Width = 240;
        }

        return console;
    }
}
