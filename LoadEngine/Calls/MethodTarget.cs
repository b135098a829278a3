using Google.Protobuf;
using Grpc.Core;
using LoadEngine.Runs;

namespace LoadEngine.Calls;

/// <summary>
/// A method of the target as the engine calls it, supplied by whoever describes the target: the method (its kind, name and
/// marshallers), where each call's request (or, for a client stream, its messages) comes from, and what an answer must be.
/// </summary>
public interface IMethodTarget<TRequest, TResponse>
    where TRequest : class
    where TResponse : class
{
    Method<TRequest, TResponse> Method { get; }

    /// <summary>The request of call <paramref name="index"/> (its first message, for a client stream).</summary>
    TRequest Request(long index, RunPhase phase);

    /// <summary>The messages a client or bidirectional stream sends as call <paramref name="index"/>.</summary>
    IEnumerable<TRequest> Messages(long index, RunPhase phase) => [Request(index, phase)];

    /// <summary>
    /// Checks an answer to call <paramref name="index"/> (each message of a server stream), noting what it tells of the
    /// service; throws a <see cref="CallFailedException"/> when the answer is not what the call asked for.
    /// </summary>
    void Check(TResponse answer, long index, RunObservations observations);

    /// <summary>Where the run keeps its answers when the plan asks for them; null when this target keeps none.</summary>
    IAnswerSpool? KeepAnswers(RunPlan plan) => null;
}

/// <summary>grpc-dotnet marshallers for generated protobuf messages, as Grpc.Tools' generated clients make them.</summary>
public static class ProtobufMarshaller
{
    public static Marshaller<T> For<T>(MessageParser<T> parser)
        where T : IMessage<T>, IBufferMessage =>
        Marshallers.Create(Write<T>, context => parser.ParseFrom(context.PayloadAsReadOnlySequence()));

    /// <summary>Encodes any message straight into the call's buffer, its size given first.</summary>
    public static void Write<T>(T message, SerializationContext context)
        where T : IMessage
    {
        context.SetPayloadLength(message.CalculateSize());
        message.WriteTo(context.GetBufferWriter());
        context.Complete();
    }
}
