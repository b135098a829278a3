using LoadEngine.Runs;

namespace LoadEngine.Reports;

/// <summary>
/// Everything one HTML report shows: a run (one <see cref="RunRecord"/>) or a suite (its <see cref="SuiteRecord"/> and
/// its runs, in the order they ran). Every string in it is treated as untrusted and escaped. Build one with
/// <see cref="ForRun"/> or <see cref="ForSuite"/>, or set the properties yourself.
/// </summary>
public sealed record ReportContent
{
    /// <summary>The page's heading and window title.</summary>
    public required string Title { get; init; }

    /// <summary>When the report was made; the footer says so.</summary>
    public required DateTimeOffset GeneratedAt { get; init; }

    /// <summary>What was load-tested, in words: a service address, or whatever the caller wants to say. Optional.</summary>
    public string? Target { get; init; }

    /// <summary>What made the runs, e.g. "the CLI" or "the gateway"; the footer names it beside the library. Optional.</summary>
    public string? Tool { get; init; }

    /// <summary>The suite the runs belong to; null for a report of one run (or of runs that are not a suite).</summary>
    public SuiteRecord? Suite { get; init; }

    /// <summary>The runs, each shown in its own section; a suite's in the order they ran.</summary>
    public required IReadOnlyList<RunRecord> Runs { get; init; }

    /// <summary>
    /// The order that gives each strategy its colour: pass the gateway's strategy catalog so a report matches the
    /// chart page. Strategies not in it follow, in the order the suite (or else the runs) name them.
    /// </summary>
    public IReadOnlyList<string> ColourOrder { get; init; } = [];

    /// <summary>
    /// The metadata keys every call of a target's method carried (the gateway's Targets:&lt;name&gt;:Metadata, the CLI's -m):
    /// the keys only, since a value may be a token. A described method's runs show them beside their request data.
    /// </summary>
    public IReadOnlyList<string> MetadataKeys { get; init; } = [];

    public static ReportContent ForRun(RunRecord run, DateTimeOffset generatedAt, string? target = null) => new()
    {
        Title = $"{run.Plan.Strategy}: run report",
        GeneratedAt = generatedAt,
        Target = target,
        Runs = [run],
    };

    public static ReportContent ForSuite(SuiteRecord suite, IReadOnlyList<RunRecord> runs, DateTimeOffset generatedAt, string? target = null) => new()
    {
        Title = $"Suite of {suite.Strategies.Count} strategies: report",
        GeneratedAt = generatedAt,
        Target = target,
        Suite = suite,
        Runs = runs,
    };
}
