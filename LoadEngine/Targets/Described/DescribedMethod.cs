using Google.Protobuf;
using Google.Protobuf.Reflection;
using Grpc.Core;

namespace LoadEngine.Targets.Described;

/// <summary>
/// One method of a described target as the engine calls it: its name ("pkg.Service/Method"), its kind, and a
/// <see cref="Method{TRequest,TResponse}"/> over the compiled message types, whose marshallers encode requests and decode
/// every answer with Google.Protobuf itself.
/// </summary>
public sealed class DescribedMethod
{
    internal DescribedMethod(MethodDescriptor descriptor)
    {
        Descriptor = descriptor;
        Call = $"{descriptor.Service.FullName}/{descriptor.Name}";
        Kind = (descriptor.IsClientStreaming, descriptor.IsServerStreaming) switch
        {
            (false, false) => MethodType.Unary,
            (false, true) => MethodType.ServerStreaming,
            (true, false) => MethodType.ClientStreaming,
            (true, true) => MethodType.DuplexStreaming,
        };
        Method = new Method<IMessage, IMessage>(Kind, descriptor.Service.FullName, descriptor.Name, Marshaller(descriptor.InputType), Marshaller(descriptor.OutputType));
        RequestTemplate = MessageTemplate.Json(descriptor.InputType);
    }

    /// <summary>"pkg.Service/Method".</summary>
    public string Call { get; }

    public MethodType Kind { get; }

    public Method<IMessage, IMessage> Method { get; }

    /// <summary>The request's JSON with every field shown (nested messages filled in once), for a user to edit.</summary>
    public string RequestTemplate { get; }

    /// <summary>The method's descriptor: its request and answer types.</summary>
    public MethodDescriptor Descriptor { get; }

    /// <summary>The kind as ghz and grpcurl say it: unary, server-streaming, client-streaming, bidi-streaming.</summary>
    public string KindName => Kind switch
    {
        MethodType.Unary => "unary",
        MethodType.ServerStreaming => "server-streaming",
        MethodType.ClientStreaming => "client-streaming",
        _ => "bidi-streaming",
    };

    public override string ToString() => Call;

    private static Marshaller<IMessage> Marshaller(MessageDescriptor type)
    {
        var parser = type.Parser;
        return Marshallers.Create<IMessage>(
            (message, context) =>
            {
                context.SetPayloadLength(message.CalculateSize());
                message.WriteTo(context.GetBufferWriter());
                context.Complete();
            },
            context => parser.ParseFrom(context.PayloadAsReadOnlySequence()));
    }
}
