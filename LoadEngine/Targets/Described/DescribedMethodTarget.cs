using Google.Protobuf;
using Grpc.Core;
using LoadEngine.Calls;
using LoadEngine.Runs;

namespace LoadEngine.Targets.Described;

/// <summary>
/// A described method as the engine calls it: each call's request (or a stream's messages) from the run's data, and each
/// answer decoded by its marshaller; the run keeps its first answer as JSON so a user sees the call did what they meant.
/// The built-in service's answers also say which connection carried them, as its own target reads them. A run's calls are
/// numbered once ({{.RequestNumber}}): its <paramref name="warmupCalls"/> warm-up calls 0 to W-1, its measured calls on
/// from W, so no two calls of a run share a number.
/// </summary>
public sealed class DescribedMethodTarget(DescribedMethod method, CallData data, string workerId, int warmupCalls = 0) : IMethodTarget<IMessage, IMessage>
{
    private static readonly JsonFormatter Formatter = new(JsonFormatter.Settings.Default);

    private readonly Action<IMessage, RunObservations>? _builtIn = BuiltInAnswers(method.Descriptor.OutputType);

    public Method<IMessage, IMessage> Method => method.Method;

    public IMessage Request(long index, RunPhase phase) => data.Request(Number(index, phase), workerId);

    public IEnumerable<IMessage> Messages(long index, RunPhase phase) => data.Messages(Number(index, phase), workerId);

    /// <summary>The call's RequestNumber: each phase counts its calls from 0, and the measured ones follow the warm-up's.</summary>
    public long Number(long index, RunPhase phase) => phase == RunPhase.Warmup ? index : warmupCalls + index;

    public void Check(IMessage answer, long index, RunObservations observations)
    {
        observations.Answered(answer, Formatter.Format);
        _builtIn?.Invoke(answer, observations);
    }

    /// <summary>
    /// The WorkerID ghz's templates see. The engine hands calls to its workers from one counter, so a call has no fixed
    /// worker slot to name; a run's calls are told apart by their RequestNumber, and its agents by this: "g0c0" in one
    /// process, "g{shard}c0" for an agent's share of a distributed run.
    /// </summary>
    public static string WorkerOf(RunPlan plan) => $"g{plan.Shard?.Index ?? 0}c0";

    /// <summary>What the built-in PerformanceService's answers say beside their fields: the connection and the service's load.</summary>
    private static Action<IMessage, RunObservations>? BuiltInAnswers(Google.Protobuf.Reflection.MessageDescriptor type)
    {
        if (type.FullName != "performance.PerformanceStatusResponse")
        {
            return null;
        }

        var connection = type.FindFieldByName("connection_id").Accessor;
        var cpu = type.FindFieldByName("cpu_percentage_usage").Accessor;
        var memory = type.FindFieldByName("memory_usage").Accessor;
        return (answer, observations) =>
        {
            observations.CarriedBy((string)connection.GetValue(answer));
            observations.ServiceLoad(Convert.ToDouble(cpu.GetValue(answer)), Convert.ToDouble(memory.GetValue(answer)));
        };
    }
}
