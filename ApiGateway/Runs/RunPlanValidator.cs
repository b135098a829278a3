using System.Globalization;
using ApiGateway.Configuration;

namespace ApiGateway.Runs;

/// <summary>A run plan as a user typed it, from a query string or a JSON body; every value still text.</summary>
public sealed record RunPlanInput(
    string? Strategy,
    string? Count,
    string? Concurrency = null,
    string? Warmup = null,
    string? DelayMs = null,
    string? PayloadBytes = null,
    string? IncludeStatuses = null);

/// <summary>Turns input into a <see cref="RunPlan"/>, or says what was wrong and what is allowed.</summary>
public static class RunPlanValidator
{
    public const int MaxDelayMs = 60_000;
    public const int DefaultPayloadBytes = 100;
    public const int MaxPayloadBytes = 1024 * 1024;

    public static bool TryCreate(RunPlanInput input, RunLimitsOptions limits, IReadOnlyCollection<string> strategies, out RunPlan plan, out string error)
    {
        plan = null!;
        if (string.IsNullOrWhiteSpace(input.Strategy) || !strategies.Contains(input.Strategy))
        {
            error = $"strategy was '{input.Strategy}'; it must be one of: {string.Join(", ", strategies)}.";
            return false;
        }

        if (!TryWhole(input.Count, "count", 1, limits.MaxCount, null, out var count, out error)
            || !TryWhole(input.Concurrency, "concurrency", 1, limits.MaxConcurrency, Math.Min(count, limits.MaxConcurrency), out var concurrency, out error,
                $" (leave it out for all calls at once, at most {limits.MaxConcurrency.ToString(CultureInfo.InvariantCulture)} in flight)")
            || !TryWhole(input.Warmup, "warmup", 0, limits.MaxWarmup, 0, out var warmup, out error)
            || !TryWhole(input.DelayMs, "delayMs", 0, MaxDelayMs, 0, out var delayMs, out error)
            || !TryWhole(input.PayloadBytes, "payloadBytes", 1, MaxPayloadBytes, DefaultPayloadBytes, out var payloadBytes, out error))
        {
            return false;
        }

        var includeStatuses = true;
        if (!string.IsNullOrEmpty(input.IncludeStatuses) && !bool.TryParse(input.IncludeStatuses, out includeStatuses))
        {
            error = $"includeStatuses was '{input.IncludeStatuses}'; it must be true or false.";
            return false;
        }

        plan = new RunPlan
        {
            Strategy = input.Strategy,
            Count = count,
            Concurrency = Math.Min(concurrency, count),
            Warmup = warmup,
            DelayMs = delayMs,
            PayloadBytes = payloadBytes,
            IncludeStatuses = includeStatuses,
        };
        error = string.Empty;
        return true;
    }

    internal static bool TryWhole(string? text, string name, int min, int max, int? fallback, out int value, out string error, string hint = "")
    {
        error = string.Empty;
        if (string.IsNullOrEmpty(text) && fallback is { } defaultValue)
        {
            value = defaultValue;
            return true;
        }

        if (int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out value) && value >= min && value <= max)
        {
            return true;
        }

        error = $"{name} was '{text}'; it must be a whole number from {min.ToString(CultureInfo.InvariantCulture)} to {max.ToString(CultureInfo.InvariantCulture)}{hint}.";
        return false;
    }
}
