using System.Diagnostics.Metrics;

namespace ApiGateway.Runs;

/// <summary>
/// The gateway's runs by state as one OpenTelemetry instrument, <see cref="RunsName"/> (meter <see cref="MeterName"/>):
/// each run this gateway started counts once, under Running while it runs and under the state it ended in afterwards.
/// So Running is what is in flight now, and the other states are totals since the gateway started. Observed at each
/// scrape, so every state is there from the first one, 0 until a run reaches it.
/// </summary>
public sealed class RunMetrics
{
    public const string MeterName = "GrpcBestPractices.Gateway";
    public const string RunsName = "gateway.runs";

    private static readonly RunState[] States = Enum.GetValues<RunState>();
    private readonly long[] _runs = new long[States.Length];

    public RunMetrics(IMeterFactory meters) =>
        meters.Create(MeterName).CreateObservableUpDownCounter(
            RunsName, Observe, "{run}", "The gateway's runs by state: Running now, and how many ended Completed, Failed or Cancelled since it started.");

    public void Started() => Interlocked.Increment(ref _runs[(int)RunState.Running]);

    public void Ended(RunState state)
    {
        Interlocked.Decrement(ref _runs[(int)RunState.Running]);
        Interlocked.Increment(ref _runs[(int)state]);
    }

    private IEnumerable<Measurement<long>> Observe() =>
        States.Select(state => new Measurement<long>(Interlocked.Read(ref _runs[(int)state]), new KeyValuePair<string, object?>("state", state.ToString())));
}
