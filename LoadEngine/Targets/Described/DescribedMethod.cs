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
    internal DescribedMethod(MethodDescriptor descriptor, DescribedTarget target)
    {
        Descriptor = descriptor;
        Target = target;
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

    /// <summary>The target that declares it: held by every run that calls it, so its compiled classes stay loaded while they are used.</summary>
    public DescribedTarget Target { get; }

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

    /// <summary>
    /// Encodes any message, and decodes answers with the type's parser, held weakly: a channel kept for the app's life caches
    /// every Method it has called, and must not keep a replaced set's classes loaded through it. The parser lives as long as
    /// this method (its descriptor holds it), and so as long as any run that calls it.
    /// </summary>
    private static Marshaller<IMessage> Marshaller(MessageDescriptor type)
    {
        var parser = new WeakReference<MessageParser>(type.Parser);
        var name = type.FullName;
        return Marshallers.Create<IMessage>(
            Calls.ProtobufMarshaller.Write,
            context => parser.TryGetTarget(out var alive)
                ? alive.ParseFrom(context.PayloadAsReadOnlySequence())
                : throw new InvalidOperationException($"{name}'s classes were unloaded with the set that described them."));
    }
}
