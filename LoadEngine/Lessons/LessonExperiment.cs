using LoadEngine.Protocols;
using LoadEngine.Runs;
using LoadEngine.Strategies;
using Microsoft.Extensions.DependencyInjection;

namespace LoadEngine.Lessons;

/// <summary>One step of an experiment's schedule: a run of one arm, or the probe that measures the arms without one.</summary>
public sealed record ExperimentStep(int Index, int Of, int Repetition, string? Arm)
{
    public bool IsProbe => Arm is null;
}

/// <summary>
/// A lesson's experiment as it will run here: each run arm's plan, the arms that cannot run on this system and why,
/// and the schedule. Repetitions are interleaved, the run arms' order rotated by one each time (A B, then B A), so drift
/// over the minute an experiment takes falls on every arm alike; the probe, when there is one, ends each repetition.
/// </summary>
public sealed record LessonPlan(LessonDefinition Lesson, int Repetitions, IReadOnlyDictionary<string, RunPlan> Plans, IReadOnlyDictionary<string, string> Unavailable)
{
    /// <summary>The user's method the lesson runs on, with the bidirectional method the streaming lesson's stream arm calls (named or found); null for the built-in service.</summary>
    public LessonCall? Call { get; init; }

    /// <summary>The seconds a probe's measurement may take in each repetition, when a checkup sizes it to its budget; null for the probe's own design.</summary>
    public double? ProbeSeconds { get; init; }

    /// <summary>
    /// The lesson's plan, on <paramref name="call"/>'s method when it names one: false with one sentence when the repetitions
    /// are out of range, or the lesson does not apply to the method (it stays on the built-in service, or the target lacks
    /// what it needs).
    /// </summary>
    public static bool TryCreate(LessonDefinition lesson, int? repetitions, PlanLimits limits, EngineOptions engine, LessonCall? call, out LessonPlan plan, out string error)
    {
        plan = null!;
        if (!RunPlanRules.Whole(repetitions, "repetitions", 1, LessonList.MaxRepetitions, LessonList.DefaultRepetitions, out var times, out error,
                " (each repetition runs every arm of the lesson once)"))
        {
            return false;
        }

        LessonOnTarget.Methods? methods = null;
        if (call is not null && LessonOnTarget.WhyNot(lesson, call, out methods) is { } notHere)
        {
            error = notHere;
            return false;
        }

        var plans = new Dictionary<string, RunPlan>();
        var unavailable = new Dictionary<string, string>();
        foreach (var arm in lesson.Arms)
        {
            string? cannotRun = null;
            var input = call is null ? arm.Run : LessonOnTarget.Input(arm, call, methods!, out cannotRun);
            if (call is null && arm.Contender is { } contender && !WorkloadTargets.Check(contender, engine, out var reason))
            {
                cannotRun = reason;
            }

            if (cannotRun is not null)
            {
                unavailable[arm.Name] = cannotRun;
                continue;
            }

            if (input is null)
            {
                continue;
            }

            if (!RunPlanRules.TryCreate(input, limits, StrategyList.Names, out var armPlan, out var refusal))
            {
                // The lesson's own settings are refused only when this host's limits are lower than the lesson needs.
                unavailable[arm.Name] = $"This gateway's limits refuse the lesson's settings: {refusal}";
                continue;
            }

            if (call is not null)
            {
                armPlan = call.Described.Describing(armPlan);
                if (Targets.Described.DescribedPlan.Problem(armPlan) is { } problem)
                {
                    error = problem;
                    return false;
                }
            }

            plans[arm.Name] = armPlan;
        }

        plan = new LessonPlan(lesson, times!.Value, plans, unavailable) { Call = call is null ? null : call with { StreamCall = methods!.Stream?.Call } };
        return true;
    }

    /// <summary>The run arms in the rotated order a comparison runs its contenders (<see cref="ComparisonPlan.Schedule"/>), then the probe.</summary>
    public IReadOnlyList<ExperimentStep> Schedule()
    {
        var runs = new ComparisonPlan([.. Lesson.Arms.Where(arm => Plans.ContainsKey(arm.Name)).Select(arm => arm.Name)], Repetitions).Schedule();
        IEnumerable<(int Repetition, string? Arm)> probes = Lesson.Probe is null ? [] : Enumerable.Range(1, Repetitions).Select(repetition => (repetition, (string?)null));
        // OrderBy is stable: within a repetition the runs keep their rotated order and the probe stays after them.
        List<(int Repetition, string? Arm)> order = [.. runs.Select(step => (step.Repetition, (string?)step.Contender)).Concat(probes).OrderBy(step => step.Repetition)];
        return [.. order.Select((step, index) => new ExperimentStep(index + 1, order.Count, step.Repetition, step.Arm))];
    }

    public ExperimentRecord NewRecord() =>
        new(Guid.NewGuid(), Lesson.Id, RunState.Running, DateTimeOffset.UtcNow, null, null, Repetitions, [])
        {
            Unavailable = Unavailable,
            Target = Call?.Target,
            Call = Call?.Call,
            StreamCall = Call?.StreamCall,
        };
}

/// <summary>
/// Runs a lesson's schedule one step at a time and records each arm's figures; the first step that fails ends the
/// experiment (a dead service fails every step alike, and a failed call is never a measurement).
/// </summary>
public static class LessonExperiment
{
    /// <param name="runs">Runs an arm's plan as its host runs any run of a sequence (a stored run in the gateway, in-process in the CLI).</param>
    /// <param name="changed">Told the record each time a sample arrives, so followers see the experiment grow.</param>
    public static async Task<ExperimentRecord> RunAsync(
        LessonPlan plan, ExperimentRecord record, RunSequence runs, IServiceProvider services, Action<ExperimentRecord> changed, CancellationToken cancellation)
    {
        foreach (var step in plan.Schedule())
        {
            if (cancellation.IsCancellationRequested)
            {
                return Ended(record, RunState.Cancelled, "The experiment was cancelled.");
            }

            IReadOnlyList<ExperimentSample> samples;
            try
            {
                samples = step.IsProbe
                    ? await ((ILessonProbe)services.GetRequiredService(plan.Lesson.Probe!)).MeasureAsync(plan, step.Repetition, cancellation)
                    : [Sample(step, await runs.RunAsync(plan.Plans[step.Arm!], step.Index, step.Of), connectionsCounted: plan.Call is null or { BuiltIn: true })];
            }
            // A call cut short by the cancellation ends as an RpcException (Cancelled), a pause as an OperationCanceledException.
            catch (Exception stopped) when (cancellation.IsCancellationRequested && stopped is OperationCanceledException or Grpc.Core.RpcException)
            {
                return Ended(record, RunState.Cancelled, "The experiment was cancelled.");
            }
            catch (LessonFailedException failure)
            {
                samples = [.. plan.Lesson.Arms.Where(arm => arm.Run is null && !plan.Unavailable.ContainsKey(arm.Name)).Select(arm => new ExperimentSample(step.Repetition, arm.Name, null, RunState.Failed, Empty, failure.Message))];
            }

            record = record with { Samples = [.. record.Samples, .. samples] };
            changed(record);
            if (samples.FirstOrDefault(sample => sample.State != RunState.Completed) is { } failed)
            {
                var state = failed.State == RunState.Cancelled ? RunState.Cancelled : RunState.Failed;
                return Ended(record, state, $"{plan.Lesson.Arm(failed.Arm).Label} did not complete in repetition {failed.Repetition}: {failed.Error}");
            }
        }

        return Ended(record, RunState.Completed, null);
    }

    /// <summary>
    /// The figures a lesson can judge a run by; a run with a failed call is no measurement, and says why.
    /// <paramref name="connectionsCounted"/> false: the run's connection count is not trusted (it came from answers of a
    /// service that is not the built-in one), so the sample has none.
    /// </summary>
    public static ExperimentSample Sample(ExperimentStep step, RunRecord run, bool connectionsCounted = true)
    {
        if (run is not { State: RunState.Completed, Stats: { } stats })
        {
            return new ExperimentSample(step.Repetition, step.Arm!, run.Id, run.State == RunState.Completed ? RunState.Failed : run.State, Empty, run.Error ?? "the run measured nothing");
        }

        if (stats.Failed > 0)
        {
            return new ExperimentSample(step.Repetition, step.Arm!, run.Id, RunState.Failed, Empty, LessonVerdicts.FailedCalls(stats));
        }

        return ExperimentSample.Measured(step.Repetition, step.Arm!, run.Id,
            ("wallTimeMs", stats.WallTimeMs),
            ("throughputPerSecond", stats.ThroughputPerSecond),
            // A run bounded by its seconds has the same wall time in every arm: its cost is then the wall time each call took.
            ("msPerCall", stats.ThroughputPerSecond > 0 ? 1000 / stats.ThroughputPerSecond : null),
            // Every completed call used a connection: none counted means the run could not count them (another service's answers
            // do not say which connection carried them, as the built-in service's do), and the figure is not measured.
            ("connectionsUsed", connectionsCounted && stats.ConnectionsUsed > 0 ? stats.ConnectionsUsed : null),
            ("meanMs", stats.Latency?.MeanMs),
            ("p50Ms", stats.Latency?.P50Ms),
            ("p99Ms", stats.Latency?.P99Ms),
            ("firstCallMs", stats.FirstCallMs),
            // Workload runs count their sockets' bytes: what a protocol costs on the wire, beside what it costs in time.
            ("bytesSentPerCall", stats.BytesSentPerCall),
            ("bytesReceivedPerCall", stats.BytesReceivedPerCall));
    }

    private static readonly IReadOnlyDictionary<string, double> Empty = new Dictionary<string, double>();

    private static ExperimentRecord Ended(ExperimentRecord record, RunState state, string? error) =>
        record with { State = state, FinishedAt = DateTimeOffset.UtcNow, Error = error };
}
