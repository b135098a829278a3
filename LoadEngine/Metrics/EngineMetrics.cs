using System.Diagnostics;
using System.Diagnostics.Metrics;
using Grpc.Core;

namespace LoadEngine.Metrics;

/// <summary>
/// The engine's measured calls as OpenTelemetry instruments (meter <see cref="MeterName"/>): every call counted by
/// strategy and status, and each successful call's latency, from when it was due, in a histogram by strategy. Warm-up
/// calls are left out, so the counts are the runs' own. An instrument nobody listens to records nothing.
/// </summary>
public static class EngineMetrics
{
    public const string MeterName = "GrpcBestPractices.LoadEngine";
    public const string CallsName = "loadengine.calls";
    public const string DurationName = "loadengine.call.duration";

    /// <summary>
    /// Seconds, from 50 µs to 10 s: a loopback call takes 0.1–0.3 ms, a queued or delayed one milliseconds to seconds.
    /// OpenTelemetry's default boundaries start at 5 (meant for milliseconds) and would put every loopback call in one bucket.
    /// </summary>
    public static readonly IReadOnlyList<double> DurationBuckets =
        [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

    private static readonly Meter Meter = new(MeterName);

    internal static readonly Counter<long> Calls = Meter.CreateCounter<long>(
        CallsName, "{call}", "Calls the engine made in measured phases, by strategy and status (ok, or the gRPC status code's name).");

    internal static readonly Histogram<double> Duration = Meter.CreateHistogram(
        DurationName, "s", "Latency of the engine's successful measured calls, from when each was due to its answer, by strategy.",
        tags: null, advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = DurationBuckets });
}

/// <summary>
/// One run's tags for <see cref="EngineMetrics"/>, made once per run so a call records without allocating: the strategy
/// and each status name are references already made, and the one-and-two-tag overloads keep the tags on the stack.
/// </summary>
public sealed class CallMetrics(string strategy)
{
    private static readonly KeyValuePair<string, object?>[] Statuses =
        [.. Enumerable.Range(0, Enum.GetValues<StatusCode>().Max(code => (int)code) + 1)
            .Select(code => new KeyValuePair<string, object?>("status", code == (int)StatusCode.OK ? "ok" : ((StatusCode)code).ToString()))];

    private readonly KeyValuePair<string, object?> _strategy = new("strategy", strategy);

    /// <param name="ticks">Its latency, in <see cref="Stopwatch"/> ticks.</param>
    public void Succeeded(long ticks)
    {
        EngineMetrics.Calls.Add(1, _strategy, Statuses[(int)StatusCode.OK]);
        EngineMetrics.Duration.Record((double)ticks / Stopwatch.Frequency, _strategy);
    }

    public void Failed(StatusCode status) => EngineMetrics.Calls.Add(1, _strategy, Statuses[(int)status]);
}
