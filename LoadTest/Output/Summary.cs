using LoadEngine.Runs;
using Spectre.Console;

namespace LoadTest.Output;

/// <summary>
/// The end of every command: a row per run, each threshold against its limit, the errors, and the outcome. On a terminal
/// in colour with rounded borders; otherwise plain text with markdown borders, which reads in any CI log.
/// </summary>
public static class Summary
{
    public static void Write(IAnsiConsole console, LoadTestResult result, Uri target, IReadOnlyList<string> notes, Outcome outcome, bool plain)
    {
        var border = plain ? TableBorder.Ascii : TableBorder.Rounded;
        console.WriteLine();
        var call = result.Runs.Select(run => run.Plan.Described?.Call).FirstOrDefault(call => call is not null);
        console.MarkupLine($"[bold]Runs against {Markup.Escape(target.ToString())}{(call is null ? "" : Markup.Escape($", calling {call}"))}[/]");
        console.Write(Runs(result, border));
        // The described method's first answer, so the user sees the call did what was meant (one line, shortened).
        if (result.Runs.Select(run => run.Stats?.FirstAnswer).FirstOrDefault(answer => answer is not null) is { } answer)
        {
            var line = string.Join(' ', answer.Split('\n', StringSplitOptions.TrimEntries));
            console.WriteLine($"First answer: {(line.Length <= 200 ? line : line[..200] + "…")}");
        }

        // An arrival rate's schedule: how many sends went out late or were dropped, and by how much they lagged.
        if (result.Runs.Any(run => run.Stats?.Sends is not null))
        {
            console.MarkupLine("[bold]Arrival schedule[/]");
            console.Write(Sends(result, border));
        }

        if (result.Runs.Any(run => run.Plan.Workload is not null))
        {
            console.MarkupLine("[bold]On the wire[/]");
            console.Write(Wire(result, border));
        }

        if (result.Runs.Any(run => run.Plan.Thresholds.Count > 0))
        {
            console.MarkupLine("[bold]Thresholds[/]");
            console.Write(Thresholds(result, border));
        }

        console.WriteLine();
        // ghz's error distribution: the failed calls of each run by status with the server's own words, one line per message
        // ("50 × FailedPrecondition: 'tenant is suspended'"), for runs that partly failed too, whose row only says they completed.
        // Plain lines, not markup: a server's message may hold brackets; it was masked and escaped where it entered the engine.
        var failing = result.Runs.Where(run => run.Stats is { StatusDetails.Count: > 0 }).ToList();
        foreach (var run in failing)
        {
            string[] lines = [result.Runs.Count == 1 ? "Errors:" : $"Errors of {run.Plan.Strategy}:", .. StatusDetails.Lines(run.Stats!.StatusDetails).Select(line => $"  {line}")];
            console.WriteLine(string.Join(Environment.NewLine, lines));
        }

        if (failing.Count > 0)
        {
            console.WriteLine();
        }

        foreach (var run in result.Runs.Where(run => run.Error is not null))
        {
            console.MarkupLine($"[red]{Markup.Escape($"{run.Plan.Strategy} {run.State.ToString().ToLowerInvariant()} against {target}: {run.Error}")}[/]");
        }

        // A completed run's note (calls that failed to connect while the service kept answering) is a finding, not an error.
        foreach (var run in result.Runs.Where(run => run.Note is not null))
        {
            console.MarkupLine($"[yellow]{Markup.Escape($"{run.Plan.Strategy} against {target}: {run.Note}")}[/]");
        }

        foreach (var note in notes)
        {
            console.WriteLine(note);
        }

        var colour = outcome.ExitCode == ExitCodes.Passed ? "green" : "red";
        console.MarkupLine($"[bold {colour}]{Markup.Escape(outcome.Sentence)}[/] Exit code {outcome.ExitCode}.");
    }

    private static Table Runs(LoadTestResult result, TableBorder border)
    {
        var table = Table(border, ["strategy", "state"], ["calls", "failed", "calls/s", "p50", "p90", "p99", "max", "connections"], "verdict");
        foreach (var run in result.Runs)
        {
            var stats = run.Stats;
            var latency = stats?.Latency;
            table.AddRow(
                Markup.Escape(run.Plan.Strategy),
                run.State == RunState.Completed ? "[green]Completed[/]" : $"[red]{run.State}[/]",
                stats is null ? "-" : Figures.Whole(stats.Calls),
                stats is null ? "-" : Figures.Whole(stats.Failed),
                stats is null ? "-" : Figures.Whole(stats.ThroughputPerSecond),
                Figures.Ms(latency?.P50Ms),
                Figures.Ms(latency?.P90Ms),
                Figures.Ms(latency?.P99Ms),
                Figures.Ms(latency?.MaxMs),
                stats is not { ConnectionsCounted: true } ? "-" : Figures.Whole(stats.ConnectionsUsed),
                run.Verdict switch
                {
                    null => "-",
                    { Passed: true } => "[green]passed[/]",
                    _ => "[red]failed[/]",
                });
        }

        return table;
    }

    /// <summary>Open and ramping runs: the rate asked for and kept, the sends due, late (past <see cref="SendStats.LateAfterMs"/>) and dropped, and the lag.</summary>
    private static Table Sends(LoadTestResult result, TableBorder border)
    {
        var table = Table(border, ["strategy"], ["rate asked", "rate sent", "due", "sent", "late", "dropped", "lag p50", "lag p99", "lag max"]);
        foreach (var run in result.Runs.Where(run => run.Stats?.Sends is not null))
        {
            var sends = run.Stats!.Sends!;
            table.AddRow(
                Markup.Escape(run.Plan.Strategy),
                $"{Figures.Whole(sends.RequestedRatePerSecond)}/s",
                $"{Figures.Whole(sends.AchievedRatePerSecond)}/s",
                Figures.Whole(sends.Intended),
                Figures.Whole(sends.Sent),
                Markup.Escape($"{Figures.Whole(sends.Late)} of {Figures.Whole(sends.Sent)} (> {Figures.Ms(sends.LateAfterMs)})"),
                Figures.Whole(sends.Dropped),
                Figures.Ms(sends.LagP50Ms),
                Figures.Ms(sends.LagP99Ms),
                Figures.Ms(sends.LagMaxMs));
        }

        return table;
    }

    /// <summary>Workload runs: bytes per call on the client's sockets, the service's allocations per call, and the versions the service saw.</summary>
    private static Table Wire(LoadTestResult result, TableBorder border)
    {
        var table = Table(border, ["contender", "workload"], ["sent/call", "received/call", "service alloc/call"], "service saw");
        foreach (var run in result.Runs.Where(run => run.Plan.Workload is not null))
        {
            var stats = run.Stats;
            table.AddRow(
                Markup.Escape(run.Plan.Strategy),
                Markup.Escape(run.Plan.Workload!.Id),
                Figures.Bytes(stats?.BytesSentPerCall),
                Figures.Bytes(stats?.BytesReceivedPerCall),
                Figures.Bytes(stats?.ServiceAllocatedBytesPerCall),
                stats?.ServerSaw is { } saw ? Markup.Escape($"{saw.HttpVersion}, TLS {saw.Tls}") : "-");
        }

        return table;
    }

    private static Table Thresholds(LoadTestResult result, TableBorder border)
    {
        var table = Table(border, ["strategy", "threshold"], ["measured", "limit"], "result");
        foreach (var run in result.Runs.Where(run => run.Verdict is not null))
        {
            foreach (var threshold in run.Verdict!.Thresholds)
            {
                var verdict = threshold.Passed ? "[green]passed[/]" : "[red]failed[/]";
                table.AddRow(
                    Markup.Escape(run.Plan.Strategy),
                    Markup.Escape(threshold.Threshold),
                    Figures.InUnit(threshold.Measured, threshold.Unit),
                    Markup.Escape($"{threshold.Operator} {Figures.InUnit(threshold.Limit, threshold.Unit)}"),
                    threshold.Reason is { } reason ? $"{verdict}: {Markup.Escape(reason)}" : verdict);
            }
        }

        return table;
    }

    /// <summary>A table of its text columns, then its figures (right-aligned), then the text columns after them.</summary>
    private static Table Table(TableBorder border, string[] text, string[] figures, params string[] after) =>
        new Table().Border(border).AddColumns(text).AddColumns([.. figures.Select(figure => new TableColumn(figure).RightAligned())]).AddColumns(after);
}
