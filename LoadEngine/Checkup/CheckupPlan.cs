using System.Globalization;
using LoadEngine.Lessons;
using LoadEngine.Runs;

namespace LoadEngine.Checkup;

/// <summary>
/// A checkup as it will run on the user's method: the method (a <see cref="LessonCall"/>, as the lessons take it), the
/// time budget the measurements share, and the user's load (calls in flight) the savings are said at.
/// </summary>
public sealed record CheckupPlan(LessonCall Call, TimeSpan Budget, int InFlight, PlanLimits Limits, EngineOptions Engine)
{
    /// <summary>
    /// Two minutes: on loopback every measurement fits with its three repetitions, the keep-alive pause (3 × 8 s) included,
    /// with room for a slow method's warm-up; a budget under <see cref="MinBudgetSeconds"/> leaves the keep-alive item unmeasured.
    /// </summary>
    public const double DefaultBudgetSeconds = 120;

    public const double MinBudgetSeconds = 20;

    public const double MaxBudgetSeconds = 1800;

    public const int DefaultInFlight = 1;

    /// <summary>
    /// The checkup's plan: false with one sentence when the method cannot be checked (it is taken as the first lesson the
    /// checkup runs would take it: unary, on this target, the data fitting) or the budget or the load is out of range.
    /// </summary>
    public static bool TryCreate(LessonCall call, double? budgetSeconds, int? inFlight, PlanLimits limits, EngineOptions engine, out CheckupPlan plan, out string error)
    {
        plan = null!;
        if (LessonOnTarget.WhyNot(LessonList.ReuseChannel, call, out _) is { } notHere)
        {
            error = notHere;
            return false;
        }

        var budget = budgetSeconds ?? DefaultBudgetSeconds;
        if (!double.IsFinite(budget) || budget < MinBudgetSeconds || budget > MaxBudgetSeconds)
        {
            error = $"budget was {Seconds(budgetSeconds ?? 0)}; it must be from {Seconds(MinBudgetSeconds)} to {Seconds(MaxBudgetSeconds)} " +
                $"(default {Seconds(DefaultBudgetSeconds)}), the time every measurement of the checkup shares.";
            return false;
        }

        if (!RunPlanRules.Whole(inFlight, "inFlight", 1, limits.MaxConcurrency, DefaultInFlight, out var load, out error,
                " (the calls your client keeps in flight: the savings are said at this load)"))
        {
            return false;
        }

        plan = new CheckupPlan(call, TimeSpan.FromSeconds(budget), load!.Value, limits, engine);
        error = string.Empty;
        return true;
    }

    public CheckupRecord NewRecord() =>
        new(Guid.NewGuid(), RunState.Running, DateTimeOffset.UtcNow, null, null, Call.Address.ToString().TrimEnd('/'), Call.Call, Budget.TotalSeconds, InFlight)
        {
            Target = Call.Target,
        };

    private static string Seconds(double seconds) => $"{seconds.ToString("0.###", CultureInfo.InvariantCulture)} s";
}
