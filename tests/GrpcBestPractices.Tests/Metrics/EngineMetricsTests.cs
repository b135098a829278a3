using System.Diagnostics;
using System.Diagnostics.Metrics;
using Grpc.Core;
using LoadEngine.Metrics;
using OpenTelemetry;
using OpenTelemetry.Metrics;

namespace GrpcBestPractices.Tests.Metrics;

public sealed class EngineMetricsTests
{
    // Each test records under a strategy of its own: the meter is the process's, and other tests run the engine meanwhile.
    private static string OwnStrategy() => "metrics-test-" + Guid.NewGuid().ToString("N");

    [Fact]
    public void EachCallCountsUnderItsStrategyAndStatusAndASuccessAlsoRecordsItsLatencyInSeconds()
    {
        var strategy = OwnStrategy();
        var calls = new List<(long Value, string Status)>();
        var durations = new List<double>();
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, own) =>
        {
            if (instrument.Meter.Name == EngineMetrics.MeterName)
            {
                own.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) =>
        {
            if (Tag(tags, "strategy") as string == strategy && instrument.Name == EngineMetrics.CallsName)
            {
                lock (calls)
                {
                    calls.Add((value, (string)Tag(tags, "status")!));
                }
            }
        });
        listener.SetMeasurementEventCallback<double>((instrument, value, tags, _) =>
        {
            if (Tag(tags, "strategy") as string == strategy && instrument.Name == EngineMetrics.DurationName)
            {
                lock (durations)
                {
                    durations.Add(value);
                }
            }
        });
        listener.Start();

        var recorder = new RunRecorder(count: 5, metrics: new CallMetrics(strategy));
        var quarterMillisecond = Stopwatch.Frequency / 4000;
        for (var index = 0; index < 3; index++)
        {
            recorder.RecordSuccess(index, dueAt: 1000, sentAt: 1000, endedAt: 1000 + quarterMillisecond);
        }

        recorder.RecordFailure(StatusCode.Unavailable);
        recorder.RecordFailure(StatusCode.DeadlineExceeded);

        Assert.Equal([(1, "ok"), (1, "ok"), (1, "ok"), (1, "Unavailable"), (1, "DeadlineExceeded")], calls);
        Assert.Equal(3, durations.Count);
        Assert.All(durations, seconds => Assert.Equal(0.00025, seconds, 1e-9));
    }

    [Fact]
    public void RecordingCallsExportedToPrometheusAllocatesNothingPerCall()
    {
        using var provider = Sdk.CreateMeterProviderBuilder().AddMeter(EngineMetrics.MeterName).AddPrometheusExporter().Build();
        const int Calls = 20_000;
        var withMetrics = new RunRecorder(count: null, metrics: new CallMetrics(OwnStrategy()));
        var without = new RunRecorder(count: null);

        // The first recording of each series makes its aggregation point; what a run pays per call comes after.
        Record(withMetrics, 100);
        Record(without, 100);
        var bare = LeastAllocatedBy(() => Record(without, Calls));
        var metered = LeastAllocatedBy(() => Record(withMetrics, Calls));

        Assert.Equal(0, bare);
        Assert.Equal(0, metered);
        Assert.All(EngineInstruments(), instrument => Assert.True(instrument.Enabled, $"{instrument.Name} had no listener"));
    }

    // A listener that only looks: it is told of every instrument that exists, and enables none.
    private static List<Instrument> EngineInstruments()
    {
        var found = new List<Instrument>();
        using var looking = new MeterListener
        {
            InstrumentPublished = (instrument, _) =>
            {
                if (instrument.Meter.Name == EngineMetrics.MeterName)
                {
                    found.Add(instrument);
                }
            },
        };
        looking.Start();
        Assert.Equal([EngineMetrics.DurationName, EngineMetrics.CallsName], found.Select(instrument => instrument.Name).Order(StringComparer.Ordinal));
        return found;
    }

    private static void Record(RunRecorder recorder, int calls)
    {
        for (var index = 1; index <= calls; index++)
        {
            recorder.RecordSuccess(index, dueAt: 1000, sentAt: 1000, endedAt: 1000 + index % 5000 * 100);
            if (index % 10 == 0)
            {
                recorder.RecordFailure(StatusCode.Unavailable);
            }
        }
    }

    // The least of three rounds: a cost per call shows in every round (20,000 calls of even 24 bytes is 480 KB), while a
    // one-off on a busy test host (a tier-1 recompile, the SDK growing a table for another test's series) shows in one.
    private static long LeastAllocatedBy(Action action)
    {
        var least = long.MaxValue;
        for (var round = 0; round < 3 && least > 0; round++)
        {
            var before = GC.GetAllocatedBytesForCurrentThread();
            action();
            least = Math.Min(least, GC.GetAllocatedBytesForCurrentThread() - before);
        }

        return least;
    }

    private static object? Tag(ReadOnlySpan<KeyValuePair<string, object?>> tags, string key)
    {
        foreach (var tag in tags)
        {
            if (tag.Key == key)
            {
                return tag.Value;
            }
        }

        return null;
    }
}
