using System.Globalization;
using Grpc.Core;
using LoadEngine.Calls;
using LoadEngine.Runs;
using Performance;

namespace LoadEngine.Targets;

/// <summary>
/// The built-in PerformanceService as a target: its unary method and the bidirectional one of the same types, each call's
/// request from the run's plan (a numbered client name, the plan's service delay and payload size), and what its answers
/// tell beside the figures: the connection that carried each call (so a strategy's connections are counted on the
/// service's side) and the service's own CPU and memory. A chapter route's run keeps the answers themselves.
/// </summary>
public static class MonitorTarget
{
    private const string Service = "performance.Monitor";

    private static readonly Marshaller<PerformanceStatusRequest> Requests = ProtobufMarshaller.For(PerformanceStatusRequest.Parser);
    private static readonly Marshaller<PerformanceStatusResponse> Answers = ProtobufMarshaller.For(PerformanceStatusResponse.Parser);

    public static readonly Method<PerformanceStatusRequest, PerformanceStatusResponse> GetPerformance =
        new(MethodType.Unary, Service, "GetPerformance", Requests, Answers);

    public static readonly Method<PerformanceStatusRequest, PerformanceStatusResponse> GetManyPerformanceStats =
        new(MethodType.DuplexStreaming, Service, "GetManyPerformanceStats", Requests, Answers);

    /// <summary>The method a strategy calls: the unary one, or the bidirectional one for a strategy whose calls are messages on one stream.</summary>
    public static IMethodTarget<PerformanceStatusRequest, PerformanceStatusResponse> For(RunPlan plan, bool oneStream) =>
        new Calls(oneStream ? GetManyPerformanceStats : GetPerformance, plan, plan.Called as BuiltInCall ?? new BuiltInCall());

    /// <summary>One call of GetPerformance through <paramref name="invoker"/> as a lesson makes it, outside any run: its time (fractional ms) and its answer.</summary>
    public static Task<(double Milliseconds, PerformanceStatusResponse Answer)> TimedCallAsync(
        CallInvoker invoker, PerformanceStatusRequest request, TimeSpan timeout, CancellationToken cancellation) =>
        OneCall.TimedAsync(invoker, GetPerformance, request, timeout, cancellation);

    private sealed class Calls(Method<PerformanceStatusRequest, PerformanceStatusResponse> method, RunPlan plan, BuiltInCall call)
        : IMethodTarget<PerformanceStatusRequest, PerformanceStatusResponse>
    {
        private readonly string _measured = plan.Strategy + " #";
        private readonly string _warmup = plan.Strategy + " warm-up #";

        public Method<PerformanceStatusRequest, PerformanceStatusResponse> Method => method;

        public PerformanceStatusRequest Request(long index, RunPhase phase) => new()
        {
            ClientName = (phase == RunPhase.Warmup ? _warmup : _measured) + (index + 1).ToString(CultureInfo.InvariantCulture),
            DelayMs = call.DelayMs,
            PayloadBytes = call.PayloadBytes,
        };

        public void Check(PerformanceStatusResponse answer, long index, RunObservations observations)
        {
            observations.CarriedBy(answer.ConnectionId);
            observations.ServiceLoad(answer.CpuPercentageUsage, answer.MemoryUsage);
            (observations.Answers as StatusSpool)?.Write(index, answer);
        }

        public IAnswerSpool? KeepAnswers(RunPlan run) =>
            run.IncludeStatuses && run.Count is { } count ? new StatusSpool(count, call.PayloadBytes) : null;
    }
}
