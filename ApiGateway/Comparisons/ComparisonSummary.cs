using ApiGateway.Runs;
using LoadEngine.Protocols;
using static LoadEngine.Lessons.LessonVerdicts;

namespace ApiGateway.Comparisons;

/// <summary>One figure a comparison reports for each contender: its name in the JSON, what it is, its unit, and where a run has it.</summary>
public sealed record ComparisonFigure(string Name, string Title, string Unit, bool HigherIsBetter, Func<RunStats, double?> Read);

/// <summary>The figures of a comparison, in the order the page draws and tabulates them.</summary>
public static class ComparisonFigures
{
    public static ComparisonFigure MeanMs { get; } = new("meanMs", "mean time per call", "ms", false, stats => stats.Latency?.MeanMs);

    public static ComparisonFigure Throughput { get; } = new("throughputPerSecond", "throughput", "calls/s", true, stats => stats.ThroughputPerSecond);

    public static IReadOnlyList<ComparisonFigure> All { get; } =
    [
        MeanMs,
        new("p50Ms", "p50 time per call", "ms", false, stats => stats.Latency?.P50Ms),
        new("p99Ms", "p99 time per call", "ms", false, stats => stats.Latency?.P99Ms),
        Throughput,
        new("bytesSentPerCall", "bytes sent per call (the client's sockets)", "B", false, stats => stats.BytesSentPerCall),
        new("bytesReceivedPerCall", "bytes received per call (the client's sockets)", "B", false, stats => stats.BytesReceivedPerCall),
        new("clientAllocatedBytesPerCall", "bytes the gateway allocated per call", "B", false, stats => stats.AllocatedBytesPerCall),
        new("serviceAllocatedBytesPerCall", "bytes the whole service process allocated per call", "B", false, stats => stats.ServiceAllocatedBytesPerCall),
    ];

    /// <summary>
    /// What ranks the contenders: the mean time per call, or the throughput when the runs were bounded by their duration
    /// under a sequential or closed load (each contender then makes as many calls as it can). An arrival rate sets the
    /// throughput itself, so its runs are ranked by time per call whatever bounds them.
    /// </summary>
    public static ComparisonFigure RankingFigure(RunPlan plan) => plan.Count is null && !plan.IsOpen ? Throughput : MeanMs;
}

/// <summary>
/// One contender over the repetitions: its runs (by repetition), the figures of its completed runs (median and range),
/// what the service saw carry its calls, and, when any of its runs did not complete or any call failed, why: such a
/// contender is never ranked.
/// </summary>
public sealed record ContenderSummary(
    string Contender,
    string Label,
    IReadOnlyList<Guid> RunIds,
    int CompletedRuns,
    string? Failure,
    IReadOnlyDictionary<string, FigureRange> Figures,
    IReadOnlyList<ServerSaw> ServerSaw)
{
    public bool Failed => Failure is not null;
}

/// <summary>How many times faster the fastest contender was than <see cref="Against"/>: the median and range of the per-repetition ratios.</summary>
public sealed record RatioRange(string Against, double Median, double Min, double Max, int Repetitions);

/// <summary>
/// The contenders that ran without a failure, fastest first, by <see cref="RankedBy"/>; the fastest against the next and
/// against the slowest; and whether the two best ranges of that figure over the repetitions overlap (then the difference
/// is within the run-to-run spread).
/// </summary>
public sealed record ComparisonRanking(string RankedBy, IReadOnlyList<string> Order, RatioRange VsNext, RatioRange? VsSlowest, bool WithinSpread)
{
    public string Fastest => Order[0];
}

/// <summary>Summarises a comparison's runs per contender and says, in one sentence, which was fastest and by how much.</summary>
public static class ComparisonSummary
{
    /// <summary>
    /// The comparison as the API answers it, with the current run's progress while <paramref name="active"/>;
    /// <paramref name="runs"/>: the suite's runs in the order they started, which is the schedule's.
    /// </summary>
    public static ComparisonView Of(SuiteRecord suite, IReadOnlyList<RunRecord> runs, ActiveSuite? active = null)
    {
        var comparison = suite.Comparison ?? throw new ArgumentException($"Suite {suite.Id} is not a protocol comparison.", nameof(suite));
        var figure = ComparisonFigures.RankingFigure(suite.Plan);
        var byContender = comparison.Contenders.ToDictionary(name => name, name => runs.Where(run => run.Plan.Strategy == name).ToList());
        var finished = suite.State == RunState.Completed;
        var summaries = comparison.Contenders.Select(name => Summarize(name, byContender[name], finished ? comparison.Repetitions : null)).ToList();
        var ranked = summaries.Where(summary => !summary.Failed && summary.Figures.ContainsKey(figure.Name))
            .OrderBy(summary => figure.HigherIsBetter ? -summary.Figures[figure.Name].Median : summary.Figures[figure.Name].Median)
            .ToList();
        var ranking = finished && ranked.Count >= 2 ? Rank(figure, ranked, byContender) : null;
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
            figure.Name,
            summaries,
            ranking,
            Sentence(suite, runs.Count, figure, summaries, ranked, ranking),
            new ComparisonLinks(path, $"{path}/events", $"{path}/cancel", $"/api/suites/{suite.Id}"));
    }

    /// <summary><paramref name="repetitions"/> is how many runs the contender should have had, once the comparison has completed.</summary>
    private static ContenderSummary Summarize(string name, IReadOnlyList<RunRecord> runs, int? repetitions)
    {
        var completed = runs.Where(run => run is { State: RunState.Completed, Stats: not null }).Select(run => run.Stats!).ToList();
        var figures = ComparisonFigures.All.Select(figure => (figure.Name, Range: FigureRange.Of([.. completed.Select(figure.Read).OfType<double>()])))
            .Where(figure => figure.Range is not null).ToDictionary(figure => figure.Name, figure => figure.Range!);
        var saw = completed.Select(stats => stats.ServerSaw).OfType<ServerSaw>()
            .GroupBy(seen => (seen.Api, seen.HttpVersion, seen.Tls))
            .Select(group => new ServerSaw(group.Key.Api, group.Key.HttpVersion, group.Key.Tls, group.Sum(seen => seen.Requests)))
            .ToList();
        return new ContenderSummary(name, LabelOf(name), [.. runs.Select(run => run.Id)], completed.Count, Failure(runs, repetitions), figures, saw);
    }

    /// <summary>Why a contender cannot be ranked: the first of its runs that did not complete or had a failed call, or a run it never had.</summary>
    private static string? Failure(IReadOnlyList<RunRecord> runs, int? repetitions)
    {
        for (var index = 0; index < runs.Count; index++)
        {
            var run = runs[index];
            if (run.State is RunState.Running)
            {
                continue;
            }

            if (run.State != RunState.Completed || run.Stats is null)
            {
                return $"repetition {index + 1} {run.State.ToString().ToLowerInvariant()}: {run.Error ?? "no figures"}";
            }

            if (run.Stats.Failed > 0)
            {
                return FailedCalls(run.Stats, $" in repetition {index + 1}");
            }
        }

        return repetitions is { } expected && runs.Count < expected ? $"it ran {runs.Count} of {expected} times" : null;
    }

    private static ComparisonRanking Rank(ComparisonFigure figure, IReadOnlyList<ContenderSummary> ranked, IReadOnlyDictionary<string, List<RunRecord>> runs)
    {
        var fastest = ranked[0];
        var next = ranked[1];
        var slowest = ranked.Count > 2 ? ranked[^1] : null;
        var (best, second) = (fastest.Figures[figure.Name], next.Figures[figure.Name]);
        var withinSpread = figure.HigherIsBetter ? best.Min <= second.Max : best.Max >= second.Min;
        return new ComparisonRanking(
            figure.Name,
            [.. ranked.Select(summary => summary.Contender)],
            Ratio(figure, runs[fastest.Contender], runs[next.Contender], next.Contender),
            slowest is null ? null : Ratio(figure, runs[fastest.Contender], runs[slowest.Contender], slowest.Contender),
            withinSpread);
    }

    /// <summary>Repetition by repetition (the n-th run of each), how many times faster <paramref name="fastest"/> was; then their median and range.</summary>
    private static RatioRange Ratio(ComparisonFigure figure, IReadOnlyList<RunRecord> fastest, IReadOnlyList<RunRecord> other, string against)
    {
        var ratios = fastest.Zip(other, (mine, theirs) => (Mine: mine.Stats is { } a ? figure.Read(a) : null, Theirs: theirs.Stats is { } b ? figure.Read(b) : null))
            .Where(pair => pair is { Mine: > 0, Theirs: > 0 })
            .Select(pair => figure.HigherIsBetter ? pair.Mine!.Value / pair.Theirs!.Value : pair.Theirs!.Value / pair.Mine!.Value)
            .ToList();
        var range = FigureRange.Of(ratios) ?? new FigureRange(double.NaN, double.NaN, double.NaN);
        return new RatioRange(against, range.Median, range.Min, range.Max, ratios.Count);
    }

    private static string Sentence(
        SuiteRecord suite, int runsSoFar, ComparisonFigure figure, IReadOnlyList<ContenderSummary> summaries, IReadOnlyList<ContenderSummary> ranked, ComparisonRanking? ranking)
    {
        var total = suite.Strategies.Count;
        if (suite.State == RunState.Running)
        {
            return $"Running: {runsSoFar} of {total} runs started; the fastest is named when all have run.";
        }

        if (suite.State != RunState.Completed)
        {
            return $"The comparison {(suite.State == RunState.Cancelled ? "was cancelled" : "failed")} after {runsSoFar} of {total} runs ({suite.Error ?? "no reason given"}), so no contender is named fastest.";
        }

        var failed = summaries.Where(summary => summary.Failed).ToList();
        var failures = failed.Count == 0 ? "" : " " + string.Join(" ", failed.Select(summary => $"{summary.Label} failed ({summary.Failure}) and is not ranked."));
        if (ranking is null)
        {
            return ranked.Count == 1
                ? $"Only {ranked[0].Label} ran without a failure, so there is nothing to rank it against.{failures}"
                : $"No contender ran every repetition without a failure, so none is named fastest.{failures}";
        }

        var by = figure == ComparisonFigures.Throughput ? "by throughput (calls/s, as the runs were bounded by their duration)" : "by mean time per call";
        var vsNext = $"{Times(ranking.VsNext.Median)} faster than {LabelOf(ranking.VsNext.Against)} ({Spread(ranking.VsNext)})";
        var vsSlowest = ranking.VsSlowest is { } slowest ? $"{Times(slowest.Median)} faster than the slowest, {LabelOf(slowest.Against)} ({Spread(slowest)})" : null;
        var fastest = LabelOf(ranking.Fastest);
        var sentence = ranking.WithinSpread
            ? $"{fastest} was fastest {by}, but only {vsNext}, which is within the run-to-run spread: their ranges over the repetitions overlap" +
              (vsSlowest is null ? "." : $"; it was {vsSlowest}.")
            : $"{fastest} was fastest {by}: {vsNext}" + (vsSlowest is null ? "." : $" and {vsSlowest}.");
        return sentence + failures;
    }

    private static string Spread(RatioRange ratio) => ratio.Repetitions switch
    {
        0 => "no repetition had both",
        1 => "one repetition",
        _ => $"median of {ratio.Repetitions}, {Number(ratio.Min)}–{Times(ratio.Max)}",
    };

    private static string LabelOf(string name) => ContenderList.Find(name)?.Label ?? name;
}
