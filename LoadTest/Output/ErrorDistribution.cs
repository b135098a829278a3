using LoadEngine.Runs;
using Spectre.Console;

namespace LoadTest.Output;

/// <summary>
/// The failed calls of each run by status with the server's own words, one line per message as ghz's error distribution
/// has them: "50 × FailedPrecondition: 'tenant is suspended'". Shown for runs that partly failed too, whose summary line
/// would otherwise only say they completed. The messages are masked and escaped where they entered the engine.
/// </summary>
public static class ErrorDistribution
{
    public static void Write(IAnsiConsole console, LoadTestResult result)
    {
        var failing = result.Runs.Where(run => run.Stats is { StatusDetails.Count: > 0 }).ToList();
        foreach (var run in failing)
        {
            // Plain lines, not markup: a server's message may hold brackets.
            string[] lines = [result.Runs.Count == 1 ? "Errors:" : $"Errors of {run.Plan.Strategy}:", .. StatusDetails.Lines(run.Stats!.StatusDetails).Select(line => $"  {line}")];
            console.WriteLine(string.Join(Environment.NewLine, lines));
        }

        if (failing.Count > 0)
        {
            console.WriteLine();
        }
    }
}
