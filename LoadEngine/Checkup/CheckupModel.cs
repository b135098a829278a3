using System.Text.Json.Serialization;
using LoadEngine.Lessons;
using LoadEngine.Runs;

namespace LoadEngine.Checkup;

/// <summary>How one item of a checkup ended: advice measured beyond noise, no measurable saving, or why it was not measured.</summary>
[JsonConverter(typeof(JsonStringEnumConverter<CheckupOutcome>))]
public enum CheckupOutcome
{
    /// <summary>A change measured to save, beyond the run-to-run spread: what to do, and the code.</summary>
    [JsonStringEnumMemberName("advice")]
    Advice,

    /// <summary>
    /// Measured, but the difference was within the spread, went the other way, or saved under 5%: "no measurable saving here"
    /// or "a saving too small to act on", never advice.
    /// </summary>
    [JsonStringEnumMemberName("no-saving")]
    NoSaving,

    /// <summary>Does not apply to this method (no bidirectional method, no knee reached), and says why.</summary>
    [JsonStringEnumMemberName("not-applicable")]
    NotApplicable,

    /// <summary>Could not be measured here (a call failed, the budget ran out), and says why.</summary>
    [JsonStringEnumMemberName("not-measured")]
    NotMeasured,
}

/// <summary>A saving at the user's load, in the user's units: its value and unit ("ms per call", "calls per second", "bytes per call", "% of calls").</summary>
public sealed record CheckupSaving(double Value, string Unit, string Sentence);

/// <summary>
/// What an item measured: the two arms it compared, other ÷ baseline as a median over the repetitions with its range,
/// whether that is beyond noise, and the sentence a lesson's verdict says; the experiment and runs it came from.
/// </summary>
public sealed record CheckupMeasure(
    string Baseline,
    string Other,
    string Figure,
    double? Ratio,
    RatioRange? Range,
    IReadOnlyList<double> Ratios,
    bool BeyondNoise,
    string Sentence);

/// <summary>
/// One prescription of a checkup: the advice in one sentence, what was measured, the saving at the user's load and the code
/// change (C# a .NET developer pastes), or, for an item without advice, why not. <see cref="Effect"/> orders the list:
/// the share of the cost the change saves (0 to 1), measured.
/// </summary>
public sealed record CheckupItem(
    string Id,
    int Number,
    string Title,
    CheckupOutcome Outcome,
    string Advice,
    CheckupMeasure? Measured,
    CheckupSaving? Saving,
    string? Code,
    double Effect)
{
    /// <summary>The checkup's experiment this item came from (its samples name each run); null for the sweep's items.</summary>
    public Guid? ExperimentId { get; init; }

    /// <summary>The stored runs the item's figures came from, each readable at GET /api/runs/{id} (in the CLI's --json, each run's id).</summary>
    public IReadOnlyList<Guid> Runs { get; init; } = [];
}

/// <summary>One step of the capacity sweep: its calls in flight, what it measured, and its run.</summary>
public sealed record SweepStep(int InFlight, double CallsPerSecond, double P50Ms, double P99Ms, double P999Ms, long Calls, long Failed, Guid RunId)
{
    /// <summary>The run's latency histogram: what a deadline would have cut is read from it.</summary>
    [JsonIgnore]
    public IReadOnlyList<HistogramBin> Histogram { get; init; } = [];
}

/// <summary>
/// The capacity sweep: calls in flight doubled (1, 2, 4, …) on one HTTP/2 connection until calls per second stop growing
/// (a doubling gave less than <see cref="CapacitySweep.GrowthAtLeast"/> more) or p99 passes <see cref="P99BoundMs"/>; the
/// knee is the last step that still grew. <see cref="StreamsPerConnection"/> is Little's law at the knee: its calls per
/// second × the time one call took alone.
/// </summary>
public sealed record SweepResult(IReadOnlyList<SweepStep> Steps, double P99BoundMs, string StoppedBecause)
{
    public SweepStep? Knee { get; init; }

    /// <summary>The step past the knee, where calls queued: the load the connection comparison runs at.</summary>
    public SweepStep? Beyond { get; init; }

    public double? StreamsPerConnection { get; init; }

    /// <summary>The measured seconds of each step's run (its warm-up apart).</summary>
    public double StepSeconds { get; init; }
}

/// <summary>
/// A checkup of the user's client against one method: each measurement's experiment (a lesson's design on the method, sized
/// to the budget), the capacity sweep, and the prescription made from them, ordered by the measured effect. Stored whole
/// when it ends; while it runs, <see cref="Step"/> says what it measures now and the items so far are already judged.
/// </summary>
public sealed record CheckupRecord(
    Guid Id,
    RunState State,
    DateTimeOffset StartedAt,
    DateTimeOffset? FinishedAt,
    string? Error,
    string Address,
    string Call,
    double BudgetSeconds,
    int InFlight)
{
    /// <summary>The configured target by name (the gateway's); null for an address the CLI was given.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? Target { get; init; }

    /// <summary>The bidirectional method the streaming measurement used, when the target has one.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? StreamCall { get; init; }

    /// <summary>What is being measured now, "3 of 7: the capacity sweep, 8 in flight"; null once it has ended.</summary>
    public string? Step { get; init; }

    public IReadOnlyList<ExperimentRecord> Experiments { get; init; } = [];

    public SweepResult? Sweep { get; init; }

    /// <summary>The prescription, ordered by effect: advice first, most saved first; then no saving; then what was not measured.</summary>
    public IReadOnlyList<CheckupItem> Items { get; init; } = [];

    /// <summary>What the whole checkup is measured on, said once: loopback, TLS or not, this machine.</summary>
    public IReadOnlyList<string> Caveats { get; init; } = [];
}
