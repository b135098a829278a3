using System.Globalization;

namespace LoadEngine.Runs;

/// <summary>
/// What one run will cost before it starts: the answers it keeps for the caller, the calls it has in flight and its
/// histograms. A plan over the budget is refused with a sentence that says the estimate, the limit and how to fit.
/// </summary>
public sealed record RunMemoryEstimate(long StatusesBytes, long InFlightBytes, long HistogramBytes)
{
    /// <summary>The default budget: a quarter of the memory the GC may use on this machine, at most 4 GiB.</summary>
    public static readonly long DefaultLimitBytes = Math.Min(GC.GetGCMemoryInfo().TotalAvailableMemoryBytes / 4, 4L << 30) is > 0 and var quarter
        ? quarter
        : 1L << 30;

    /// <summary>An HdrHistogram of 10 ns to an hour at 3 significant digits, with its recorder's spare copy.</summary>
    public const long HistogramBytesEach = 512 * 1024;

    /// <summary>A kept answer's JSON apart from its two payloads: four figures, names and punctuation.</summary>
    public const long StatusOverheadBytes = 160;

    /// <summary>A call in flight apart from its payloads: its HTTP/2 stream, frames and the call's objects.</summary>
    public const long CallOverheadBytes = 16 * 1024;

    /// <summary>How a refusal's sentence begins, so an answer can title it apart from other bad parameters.</summary>
    public const string Refusal = "This run would need about";

    public long TotalBytes => StatusesBytes + InFlightBytes + HistogramBytes;

    public static RunMemoryEstimate For(RunPlan plan)
    {
        var payload = (long)PayloadBytes(plan);
        // Each kept answer carries its two payloads as base64 in the answer (4 characters per 3 bytes).
        var statuses = plan.IncludeStatuses && plan.Count is { } count
            ? count * (2 * Base64Length(payload) + StatusOverheadBytes)
            : 0;
        // A call in flight holds its answer's two payloads twice over: the received frame and the parsed message.
        var inFlight = Math.Max(1, plan.Concurrency) * (4 * payload + CallOverheadBytes);
        // Latency per phase (warm-up and measured), and under an arrival rate two more: from the actual send, and send lag.
        var phases = plan.Warmup > 0 ? 2 : 1;
        var histograms = phases * (plan.IsOpen ? 3 : 1) * HistogramBytesEach;
        return new RunMemoryEstimate(statuses, inFlight, histograms);
    }

    /// <summary>Whether <paramref name="plan"/> fits <paramref name="limitBytes"/>; if not, the sentence that says so and how to fit.</summary>
    public static bool Fits(RunPlan plan, long limitBytes, out string error)
    {
        var estimate = For(plan);
        error = string.Empty;
        if (estimate.TotalBytes <= limitBytes)
        {
            return true;
        }

        var fixes = new List<string>();
        if (estimate.StatusesBytes > 0)
        {
            fixes.Add($"includeStatuses=false (saves {Megabytes(estimate.StatusesBytes)})");
            var countThatFits = (limitBytes - estimate.InFlightBytes - estimate.HistogramBytes) / Math.Max(1, estimate.StatusesBytes / plan.Count!.Value);
            if (countThatFits >= 1)
            {
                fixes.Add($"a count of at most {countThatFits.ToString(CultureInfo.InvariantCulture)}");
            }
        }

        if (plan.Concurrency > 1 && estimate.InFlightBytes > limitBytes / 2)
        {
            fixes.Add("a smaller concurrency");
        }

        if (PayloadBytes(plan) > RunPlanRules.DefaultPayloadBytes)
        {
            fixes.Add("a smaller payloadBytes");
        }

        var statuses = estimate.StatusesBytes > 0 ? $"{Megabytes(estimate.StatusesBytes)} for the kept statuses, " : string.Empty;
        error = $"{Refusal} {Megabytes(estimate.TotalBytes)} ({statuses}" +
            $"{Megabytes(estimate.InFlightBytes)} for {plan.Concurrency.ToString(CultureInfo.InvariantCulture)} call(s) in flight, " +
            $"{Megabytes(estimate.HistogramBytes)} for histograms), more than the {Megabytes(limitBytes)} a run may use (Runs:MaxRunMemoryMegabytes). " +
            $"To fit, use {string.Join(" or ", fixes.DefaultIfEmpty("a smaller plan"))}.";
        return false;
    }

    public static string Megabytes(long bytes) =>
        $"{Math.Ceiling(bytes / (1024.0 * 1024)).ToString("#,0", CultureInfo.InvariantCulture)} MiB";

    // A workload's and a described method's answers are estimated at the built-in call's default size.
    private static int PayloadBytes(RunPlan plan) => (plan.Called as BuiltInCall)?.PayloadBytes ?? RunPlanRules.DefaultPayloadBytes;

    private static long Base64Length(long bytes) => (bytes + 2) / 3 * 4;
}
