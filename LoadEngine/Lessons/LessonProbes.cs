using System.Security.Cryptography.X509Certificates;
using LoadEngine.Protocols;
using LoadEngine.Runs;
using Microsoft.Extensions.Options;

namespace LoadEngine.Lessons;

/// <summary>Measures a lesson's arms that are not runs, once per repetition, all in one go (they share a pause, or one answer).</summary>
public interface ILessonProbe
{
    Task<IReadOnlyList<ExperimentSample>> MeasureAsync(LessonPlan plan, int repetition, CancellationToken cancellation);
}

/// <summary>
/// Lesson 3's arms: the first call after an idle pause on pinged and unpinged channels, over h2c and (when this host has the
/// TLS listener) over TLS, <see cref="Pairs"/> channels of each kind; an arm's figure is the median of its channels.
/// </summary>
public sealed class KeepAliveProbe(KeepAliveLesson lesson, IOptions<EngineOptions> options) : ILessonProbe
{
    public const int Pairs = 3;

    public async Task<IReadOnlyList<ExperimentSample>> MeasureAsync(LessonPlan plan, int repetition, CancellationToken cancellation)
    {
        (Uri, X509Certificate2)? tls = null;
        if (plan.Call is null && !plan.Unavailable.ContainsKey("with-pings-tls") && WorkloadTargets.TryResolve(ContenderList.Find("grpc-h2-tls")!, options.Value, out var address, out var trusted, out _))
        {
            tls = (address, trusted!);
        }

        var outcomes = await lesson.MeasureAsync(KeepAliveLesson.DefaultPauseMs, Pairs, tls, cancellation, plan.Call);
        return [.. outcomes.GroupBy(outcome => (outcome.Tls, outcome.Pinged)).Select(group => new ExperimentSample(
            repetition,
            (group.Key.Pinged ? "with-pings" : "without-pings") + (group.Key.Tls ? "-tls" : ""),
            null,
            RunState.Completed,
            new Dictionary<string, double>
            {
                ["afterPauseMs"] = FigureRange.MedianOf([.. group.Select(outcome => outcome.AfterPauseCallMs)]),
                ["warmCallMs"] = FigureRange.MedianOf([.. group.Select(outcome => outcome.WarmCallMs)]),
                ["newConnectionsAfterPause"] = group.Count(outcome => outcome.NewConnection),
                ["channels"] = group.Count(),
            },
            null))];
    }
}

/// <summary>Lesson 5's arms: one real answer's size with bytes fields and as base64 text, and the cost of wrapping against copying.</summary>
public sealed class PayloadProbe(PayloadLesson lesson) : ILessonProbe
{
    public async Task<IReadOnlyList<ExperimentSample>> MeasureAsync(LessonPlan plan, int repetition, CancellationToken cancellation)
    {
        var result = await lesson.RunAsync(LessonList.BinaryPayloadBytes, cancellation);
        double Nanoseconds(string operation) => result.CopyBenchmark.Operations.First(cost => cost.Operation.StartsWith(operation, StringComparison.Ordinal)).NanosecondsPerOperation;
        double Allocated(string operation) => result.CopyBenchmark.Operations.First(cost => cost.Operation.StartsWith(operation, StringComparison.Ordinal)).AllocatedBytesPerOperation;
        return
        [
            Sample(repetition, "bytes", ("messageBytes", result.Sizes.ProtobufBytes)),
            Sample(repetition, "base64-text", ("messageBytes", result.Sizes.ProtobufBase64TextBytes)),
            Sample(repetition, "unsafe-wrap", ("nanosecondsPerOperation", Nanoseconds("UnsafeByteOperations.UnsafeWrap")), ("allocatedBytesPerOperation", Allocated("UnsafeByteOperations.UnsafeWrap")),
                ("sharesTheArray", result.UnsafeWrapSharesTheArray ? 1 : 0)),
            Sample(repetition, "copy-from", ("nanosecondsPerOperation", Nanoseconds("ByteString.CopyFrom")), ("allocatedBytesPerOperation", Allocated("ByteString.CopyFrom"))),
        ];
    }

    private static ExperimentSample Sample(int repetition, string arm, params (string Figure, double Value)[] figures) =>
        new(repetition, arm, null, RunState.Completed, figures.ToDictionary(figure => figure.Figure, figure => figure.Value), null);
}
