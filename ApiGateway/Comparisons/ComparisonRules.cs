using ApiGateway.Endpoints;
using LoadEngine;

namespace ApiGateway.Comparisons;

/// <summary>A comparison as checked: what it compares, and each run's plan in the order they run.</summary>
public sealed record ComparisonRequest(ComparisonPlan Comparison, IReadOnlyList<RunPlan> Schedule);

/// <summary>Turns a comparison's body into its runs' plans (<see cref="PlanExpansion.TryComparison"/>), or says what was wrong and what is allowed.</summary>
public static class ComparisonRules
{
    public const int DefaultRepetitions = 3;
    public const int MaxRepetitions = 10;

    public static bool TryCreate(RunRequestReader.RunRequest request, PlanLimits limits, EngineOptions engine, out ComparisonRequest comparison, out string error)
    {
        comparison = null!;
        if (!RunPlanRules.TryWhole(request.Repetitions, "repetitions", 1, MaxRepetitions, DefaultRepetitions, out var repetitions, out error,
                " (each repetition runs every contender once)")
            || !PlanExpansion.TryComparison(request.Input, request.Names, repetitions, limits, engine, out var plan, out var schedule, out error))
        {
            return false;
        }

        comparison = new ComparisonRequest(plan, schedule);
        return true;
    }
}
