using System.Globalization;

namespace ApiGateway.Runs;

/// <summary>What one run does: how many calls or messages, and how long the service waits before each answer.</summary>
public sealed record RunPlan(int Count, int DelayMs)
{
    public const int MaxDelayMs = 60_000;

    /// <summary>Parses user input; on failure <paramref name="error"/> says what was wrong and what is allowed.</summary>
    public static bool TryParse(string? count, string? delayMs, int maxCount, out RunPlan plan, out string error)
    {
        plan = new RunPlan(0, 0);
        if (!int.TryParse(count, NumberStyles.None, CultureInfo.InvariantCulture, out var parsedCount) || parsedCount < 1 || parsedCount > maxCount)
        {
            error = $"count was '{count}'; it must be a whole number from 1 to {maxCount.ToString(CultureInfo.InvariantCulture)}.";
            return false;
        }

        var parsedDelay = 0;
        if (!string.IsNullOrEmpty(delayMs)
            && (!int.TryParse(delayMs, NumberStyles.None, CultureInfo.InvariantCulture, out parsedDelay) || parsedDelay > MaxDelayMs))
        {
            error = $"delayMs was '{delayMs}'; it must be a whole number of milliseconds from 0 to {MaxDelayMs.ToString(CultureInfo.InvariantCulture)}.";
            return false;
        }

        plan = new RunPlan(parsedCount, parsedDelay);
        error = string.Empty;
        return true;
    }
}
