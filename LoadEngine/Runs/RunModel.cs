using System.Text.Json;
using System.Text.Json.Serialization;
using LoadEngine.Protocols;

namespace LoadEngine.Runs;

/// <summary>One stage of a ramping load: over <see cref="Duration"/> seconds the rate moves linearly to <see cref="Target"/> calls/s.</summary>
public sealed record RampStage(double Duration, double Target);

/// <summary>
/// Everything that decides what a run does: the load settings and <see cref="Called"/>, what each call calls. A run is
/// bounded by <see cref="Count"/> measured calls, by <see cref="Duration"/> seconds, or by both (whichever comes first);
/// <see cref="Warmup"/> calls run first, under the same load, and are kept out of the statistics. Its JSON is flat, as
/// it has always been stored and answered (<see cref="RunPlanJson"/>), each setting by its type: a null one is left out
/// unless marked to be written always.
/// </summary>
[JsonConverter(typeof(RunPlanJson))]
public sealed record RunPlan
{
    public static readonly IReadOnlyList<double> DefaultPercentiles = [50, 75, 90, 95, 99, 99.9, 99.99];

    /// <summary>The strategy that makes the calls; a workload run's is its contender's name.</summary>
    public required string Strategy { get; init; }

    public LoadKind Load { get; init; }

    /// <summary>Measured calls (or stream messages). Null when only <see cref="Duration"/> bounds the run.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.Never)]
    public int? Count { get; init; }

    /// <summary>Seconds the measured phase lasts. Null when only <see cref="Count"/> bounds the run.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.Never)]
    public double? Duration { get; init; }

    /// <summary>
    /// Calls in flight at once for the closed load (and the largest window of unanswered stream messages); under an
    /// arrival rate, the most in flight: a call due beyond it waits (late), and is dropped when as many already wait.
    /// </summary>
    public int Concurrency { get; init; } = 1;

    /// <summary>Calls per second for the open load; the rate a ramping load starts from.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.Never)]
    public double? Rate { get; init; }

    [JsonIgnore(Condition = JsonIgnoreCondition.Never)]
    public IReadOnlyList<RampStage>? Stages { get; init; }

    public int Warmup { get; init; }

    /// <summary>Keep each answer for the caller (the chapter routes return them); never for background runs nor workloads.</summary>
    public bool IncludeStatuses { get; init; }

    /// <summary>The percentiles reported in <see cref="LatencySummary.Percentiles"/>, in percent.</summary>
    public IReadOnlyList<double> Percentiles { get; init; } = DefaultPercentiles;

    /// <summary>k6-style pass/fail conditions such as "p99 &lt; 5ms"; the run's verdict judges each.</summary>
    public IReadOnlyList<string> Thresholds { get; init; } = [];

    /// <summary>A run shared among this many load agents, each running its <see cref="AgentShares"/> share; null for a run made in one process.</summary>
    public int? Agents { get; init; }

    /// <summary>An agent's share of a distributed run: which shard of how many; null otherwise.</summary>
    public AgentShard? Shard { get; init; }

    /// <summary>What each call calls: the built-in service's call, a workload's contender, or a described target's method.</summary>
    [JsonIgnore]
    public PlanCall Called { get; init; } = new BuiltInCall();

    /// <summary>An arrival-rate load: calls start on a schedule, not when an earlier one ends.</summary>
    [JsonIgnore]
    public bool IsOpen => LoadFact.Of(Load).ArrivalRate;

    /// <summary>The workload a contender runs, or null for the strategies.</summary>
    [JsonIgnore]
    public WorkloadContender? Workload => Called as WorkloadContender;

    /// <summary>The described method called, or null for the built-in service's calls and the workloads.</summary>
    [JsonIgnore]
    public MethodCall? Described => Called as MethodCall;
}

/// <summary>What a plan's calls call: exactly one of <see cref="BuiltInCall"/>, <see cref="WorkloadContender"/> and <see cref="MethodCall"/>.</summary>
public abstract record PlanCall
{
    private protected PlanCall()
    {
    }
}

/// <summary>The built-in PerformanceService's call, as the strategies make it: it waits <see cref="DelayMs"/>, then answers two fields of <see cref="PayloadBytes"/> each.</summary>
public sealed record BuiltInCall(int DelayMs = 0, int PayloadBytes = RunPlanRules.DefaultPayloadBytes) : PlanCall;

/// <summary>
/// A workload of <see cref="WorkloadList"/> run by <see cref="Contender"/> (the plan's strategy is its name), with the
/// workload's settings: each one it takes, its default filled in, and null for those it does not take. A comparison's
/// plan names no contender: it runs each of its own in turn.
/// </summary>
public sealed record WorkloadContender(string Id, Contender? Contender, long? FileBytes, ConnectionUse? Connection, int? Clients, BulkReadVariant? Variant, int? Users) : PlanCall;

/// <summary>
/// A described target's method, called by a strategy with <see cref="Data"/> as its request. The data is split into its
/// messages once, when it is set (<see cref="Messages"/>); the host sets <see cref="DescriptorSet"/> and
/// <see cref="Descriptors"/> together once it has described the target (<see cref="Targets.Described.DescribedTarget.Describing"/>).
/// </summary>
public sealed record MethodCall : PlanCall
{
    /// <summary>The configured target's name (the gateway's Targets section); null for the built-in PerformanceService.</summary>
    public string? Target { get; init; }

    /// <summary>The target's method, "pkg.Service/Method".</summary>
    public required string Call { get; init; }

    /// <summary>The call's request data: one JSON object, or an array of them, with ghz's templates (<see cref="Targets.Described.CallData"/>).</summary>
    public string? Data { get; init { field = value; Messages = Targets.Described.DataMessages.Of(value); } }

    /// <summary><see cref="Data"/> split into its messages' JSON, or the sentence that refuses it.</summary>
    public Targets.Described.DataMessages Messages { get; private init; } = Targets.Described.DataMessages.Of(null);

    /// <summary>The SHA-256 (hex) of the FileDescriptorSet the host described the target with: all of the set a plan's JSON carries.</summary>
    public string? DescriptorSet { get; init; }

    /// <summary>
    /// The set itself (never a user's input), in memory only: the history stores it once per <see cref="DescriptorSet"/>, and an
    /// agent reads it back by that name, so it needs only the target's address to run its share.
    /// </summary>
    public byte[]? Descriptors { get; init; }
}

[JsonConverter(typeof(JsonStringEnumConverter<RunState>))]
public enum RunState
{
    Running,
    Completed,
    Failed,
    Cancelled,

    /// <summary>A distributed run some of whose agents did not report their share: its figures are the shares that did.</summary>
    Partial,
}

/// <summary>
/// One run, from the engine to the history to every JSON answer. <see cref="Stats"/> is null only while it runs (or if
/// it failed before any call); <see cref="Series"/> is its figures over time; <see cref="Verdict"/> judges its thresholds.
/// </summary>
public sealed record RunRecord(
    Guid Id,
    RunPlan Plan,
    RunState State,
    DateTimeOffset StartedAt,
    DateTimeOffset? FinishedAt,
    RunStats? Stats,
    string? Error,
    Guid? SuiteId)
{
    /// <summary>A run of <paramref name="plan"/> that starts now (of the suite <paramref name="suiteId"/>, if any).</summary>
    public static RunRecord Starting(RunPlan plan, Guid? suiteId = null) => new(Guid.NewGuid(), plan, RunState.Running, DateTimeOffset.UtcNow, null, null, null, suiteId);

    /// <summary>One sentence on what exactly was measured (the strategy's own description).</summary>
    public string? Measured { get; init; }

    /// <summary>
    /// A finding of a run that completed which its figures alone do not tell: how many calls failed to connect while the
    /// service kept answering (a connection storm its accept queue could not take). Null when there is none.
    /// </summary>
    public string? Note { get; init; }

    public TimeSeries? Series { get; init; }

    public Verdict? Verdict { get; init; }

    /// <summary>The lesson experiment this run is an arm of (GET /api/lessons/{lesson}/experiments/{id}); null for other runs.</summary>
    public Guid? ExperimentId { get; init; }

    /// <summary>A distributed run's agents, each with its share and what it reported (read from the shared store, not kept with the run).</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IReadOnlyList<AgentReport>? AgentReports { get; init; }

    /// <summary>An agent's share only: the measured phase's histograms and counts, which the agent writes to the shared store for the merge.</summary>
    [JsonIgnore]
    public RunFigures? Figures { get; init; }

    /// <summary>Live progress while it runs (never stored; null once it has ended).</summary>
    public ProgressSnapshot? Progress { get; init; }
}

/// <summary>A suite: every strategy in <see cref="Strategies"/>, one after another, with the same plan (the gateway's view adds its runs).</summary>
public record SuiteRecord(
    Guid Id,
    RunPlan Plan,
    IReadOnlyList<string> Strategies,
    RunState State,
    DateTimeOffset StartedAt,
    DateTimeOffset? FinishedAt,
    string? Error)
{
    /// <summary>Set when the suite is a protocol comparison: its <see cref="Strategies"/> are then the contenders' runs in the order they ran.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public ComparisonPlan? Comparison { get; init; }
}

/// <summary>
/// A protocol comparison: one workload (the suite's plan) on each of <see cref="Contenders"/>, <see cref="Repetitions"/>
/// times, interleaved: each repetition runs every contender once, the order rotated by one each time, so drift over the
/// minutes a comparison takes falls on every contender alike.
/// </summary>
public sealed record ComparisonPlan(IReadOnlyList<string> Contenders, int Repetitions)
{
    /// <summary>The contenders in the order they run: repetition r (from 0) starts at contender r, wrapping round.</summary>
    public IEnumerable<(int Repetition, string Contender)> Schedule() =>
        from repetition in Enumerable.Range(0, Repetitions)
        from position in Enumerable.Range(0, Contenders.Count)
        select (repetition + 1, Contenders[(position + repetition) % Contenders.Count]);
}

/// <summary>What a run measured. Times are milliseconds; everything but <see cref="FirstCallMs"/> and warm-up is steady state.</summary>
public sealed record RunStats(
    double WallTimeMs,
    double ThroughputPerSecond,
    long Calls,
    long Succeeded,
    long Failed,
    double? FirstCallMs,
    LatencySummary? Latency,
    IReadOnlyList<HistogramBin> Histogram,
    IReadOnlyDictionary<string, long> StatusCounts,
    int ConnectionsUsed,
    double AllocatedBytesPerCall,
    ServiceLoad Service,
    int WarmupCalls,
    double WarmupMs)
{
    /// <summary>
    /// Whether <see cref="ConnectionsUsed"/> was measured: the built-in service's answers name the connection that carried
    /// them (and a workload's contender counts its own), but another service's answers do not, so a run whose calls
    /// succeeded with no connection counted did not count them; shown as "not measured", never as 0.
    /// </summary>
    public bool ConnectionsCounted => ConnectionsUsed > 0 || Succeeded == 0;

    /// <summary>
    /// The failed calls by status, most first, each with the first few distinct messages the server sent (masked, escaped
    /// and bounded: <see cref="Runs.StatusDetails"/>); empty when none failed, and in runs stored before they were kept.
    /// </summary>
    public IReadOnlyList<StatusDetail> StatusDetails { get; init; } = [];

    /// <summary>Failed ÷ calls (0 with no calls).</summary>
    public double ErrorRate => Calls == 0 ? 0 : Math.Round((double)Failed / Calls, 6);

    /// <summary>
    /// Arrival-rate loads only: latency from when each call actually went out. <see cref="Latency"/> is then measured
    /// from when it was meant to go out, so a client that fell behind cannot hide the wait (coordinated omission).
    /// </summary>
    public LatencySummary? LatencyFromActualSend { get; init; }

    /// <summary>Arrival-rate loads only: how well the schedule was kept.</summary>
    public SendStats? Sends { get; init; }

    /// <summary>A described method's first answer of the measured phase, as proto3 JSON: the call did what its user meant. Null otherwise.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? FirstAnswer { get; init; }

    /// <summary>A described method's answer messages ÷ calls: a server or bidirectional stream's messages per call. Null otherwise.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public double? AnswersPerCall { get; init; }

    /// <summary>The load generator's own garbage collections during the measured phase: a pause shows in the latency tail.</summary>
    public GcStats? ClientGc { get; init; }

    /// <summary>Workload runs: bytes the client wrote to its sockets over the measured phase ÷ calls (under TLS, encrypted bytes).</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public double? BytesSentPerCall { get; init; }

    /// <summary>Workload runs: bytes the client read from its sockets over the measured phase ÷ calls.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public double? BytesReceivedPerCall { get; init; }

    /// <summary>Workload runs: what the whole service process allocated over the measured phase ÷ calls (its GET /diagnostics).</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public double? ServiceAllocatedBytesPerCall { get; init; }

    /// <summary>Workload runs: the HTTP and TLS versions the service saw carry the measured calls.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public ServerSaw? ServerSaw { get; init; }
}

/// <summary>
/// What the service counted for the run's API over the measured phase (GET /diagnostics, "protocols", after minus
/// before): the HTTP version and the TLS version ("none" in cleartext) that carried most of its requests.
/// </summary>
public sealed record ServerSaw(string Api, string HttpVersion, string Tls, long Requests);

/// <summary>Collections by generation in the client process during the measured phase, and the time they paused it.</summary>
public sealed record GcStats(int Gen0, int Gen1, int Gen2, double PauseMs);

/// <summary>
/// Latency of the calls after the first (the first is reported apart). Percentiles come from the run's HdrHistogram
/// (3 significant digits); <see cref="Percentiles"/> holds the ones the plan asked for.
/// </summary>
public sealed record LatencySummary(
    double MinMs,
    double MeanMs,
    double StdDevMs,
    double P50Ms,
    double P90Ms,
    double P99Ms,
    double P999Ms,
    double MaxMs)
{
    public IReadOnlyList<PercentileValue> Percentiles { get; init; } = [];
}

public sealed record PercentileValue(double Percentile, double Ms);

public sealed record HistogramBin(double FromMs, double ToMs, long Count);

/// <summary>The service's own CPU and memory as its answers reported them during the measured phase.</summary>
public sealed record ServiceLoad(double? CpuMeanPercent, double? CpuMaxPercent, double? MemoryMaxMegabytes, int Samples);

/// <summary>
/// How an arrival-rate schedule was kept. <see cref="Intended"/> calls were due; <see cref="Late"/> of those that went
/// out did so more than <see cref="LateAfterMs"/> after their time; <see cref="Dropped"/> could not be started at all
/// (the plan's most in flight were busy and as many already waited, or the schedule ended first). Lag is actual send
/// time minus intended send time.
/// </summary>
public sealed record SendStats(
    long Intended,
    long Sent,
    long Late,
    long Dropped,
    double LateAfterMs,
    double RequestedRatePerSecond,
    double AchievedRatePerSecond,
    double LagP50Ms,
    double LagP99Ms,
    double LagMaxMs);

/// <summary>A run's figures over time, in buckets of <see cref="IntervalMs"/> (1 s; 100 ms for runs under 5 s).</summary>
public sealed record TimeSeries(double IntervalMs, IReadOnlyList<TimePoint> Points);

/// <summary>
/// One bucket: calls that ended in it, failures among them by status, and latency percentiles of its successes.
/// <see cref="AtMs"/> is the bucket's end, from the start of the measured phase.
/// </summary>
public sealed record TimePoint(
    double AtMs,
    long Calls,
    long Errors,
    IReadOnlyDictionary<string, long> ErrorsByStatus,
    double? P50Ms,
    double? P90Ms,
    double? P99Ms,
    double? MaxMs);

/// <summary>Whether every threshold of the plan held, each with the value it was judged on.</summary>
public sealed record Verdict(bool Passed, IReadOnlyList<ThresholdResult> Thresholds);

/// <summary>One threshold judged: <see cref="Measured"/> is null when the run has no such figure (it then fails).</summary>
public sealed record ThresholdResult(string Threshold, string Metric, string Operator, double Limit, string Unit, double? Measured, bool Passed)
{
    /// <summary>Why there was nothing to measure, when <see cref="Measured"/> is null; otherwise null.</summary>
    public string? Reason { get; init; }
}

/// <summary>The one JSON shape for runs: in HTTP answers, Server-Sent Events, the history file, the CLI and its reports.</summary>
public static class RunJson
{
    public static JsonSerializerOptions Options { get; } = new(JsonSerializerDefaults.Web)
    {
        DefaultIgnoreCondition = JsonIgnoreCondition.Never,
    };
}
