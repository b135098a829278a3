using Google.Protobuf;
using Google.Protobuf.Reflection;
using Grpc.Core;
using Grpc.Reflection.V1Alpha;

namespace LoadEngine.Targets.Described;

/// <summary>
/// A target's descriptors from its server reflection: ListServices, then FileContainingSymbol for each service and
/// FileByFilename for every import still missing, into one FileDescriptorSet. It asks grpc.reflection.v1 first and
/// v1alpha when v1 is unimplemented; their messages are the same on the wire, so v1alpha's generated types serve both.
/// </summary>
internal static class ReflectionDescriber
{
    private static readonly TimeSpan DefaultDeadline = TimeSpan.FromSeconds(10);

    private static readonly Marshaller<ServerReflectionRequest> Requests = Calls.ProtobufMarshaller.For(ServerReflectionRequest.Parser);
    private static readonly Marshaller<ServerReflectionResponse> Answers = Calls.ProtobufMarshaller.For(ServerReflectionResponse.Parser);

    private static readonly Method<ServerReflectionRequest, ServerReflectionResponse> V1 = Info("grpc.reflection.v1.ServerReflection");
    private static readonly Method<ServerReflectionRequest, ServerReflectionResponse> V1Alpha = Info("grpc.reflection.v1alpha.ServerReflection");

    public static async Task<byte[]> DescribeAsync(CallInvoker invoker, CallOptions options)
    {
        // Nothing waits forever: a target that never answers reflection is a sentence after the deadline.
        options = options.Deadline is null ? options.WithDeadline(DateTime.UtcNow + DefaultDeadline) : options;
        try
        {
            try
            {
                return await DescribeAsync(invoker, V1, options);
            }
            catch (RpcException problem) when (problem.StatusCode == StatusCode.Unimplemented)
            {
                return await DescribeAsync(invoker, V1Alpha, options);
            }
        }
        catch (RpcException problem) when (problem.StatusCode == StatusCode.Unimplemented)
        {
            throw new TargetDescriptionException("The target does not offer server reflection (grpc.reflection.v1 or v1alpha): describe it with its .proto files or a protoset instead (the CLI's --proto or --protoset; the gateway's Targets:<name>:Proto or :Protoset).", problem);
        }
        catch (RpcException problem)
        {
            throw new TargetDescriptionException($"The target's server reflection failed: {problem.StatusCode}{(string.IsNullOrEmpty(problem.Status.Detail) ? "" : ", " + TargetText.Escape(problem.Status.Detail, 200).TrimEnd('.'))}.", problem);
        }
    }

    private static async Task<byte[]> DescribeAsync(CallInvoker invoker, Method<ServerReflectionRequest, ServerReflectionResponse> method, CallOptions options)
    {
        using var call = invoker.AsyncDuplexStreamingCall(method, null, options);
        var asked = 0;
        async Task<ServerReflectionResponse> AskAsync(ServerReflectionRequest request, ServerReflectionResponse.MessageResponseOneofCase expected)
        {
            // Each question must bring a file or a list: a server that keeps answering with nothing new runs out of questions.
            if (++asked > 2 * DescribeLimits.Files)
            {
                throw new TargetDescriptionException($"The target's server reflection needed more than {2 * DescribeLimits.Files:N0} questions; at most {DescribeLimits.Files:N0} files are described.");
            }

            try
            {
                await call.RequestStream.WriteAsync(request);
            }
            catch (RpcException)
            {
                // A server that answers at once (Unimplemented, when it has no reflection) can end the call while the question is
                // still on its way; the aborted write says Cancelled, and the answer waiting behind it says why.
                await call.ResponseStream.MoveNext(options.CancellationToken);
                throw;
            }

            if (!await call.ResponseStream.MoveNext(options.CancellationToken))
            {
                throw new TargetDescriptionException($"The target's server reflection ({method.ServiceName}) ended its stream before it answered.");
            }

            var answer = call.ResponseStream.Current;
            return answer.MessageResponseCase == ServerReflectionResponse.MessageResponseOneofCase.ErrorResponse
                ? throw new TargetDescriptionException($"The target's server reflection refused {Asked(request)}: {(StatusCode)answer.ErrorResponse.ErrorCode}, {TargetText.Escape(answer.ErrorResponse.ErrorMessage, 200).TrimEnd('.')}.")
                : answer.MessageResponseCase == expected ? answer
                : throw new TargetDescriptionException($"The target's server reflection answered {Asked(request)} with {Kind(answer.MessageResponseCase)} instead of {Kind(expected)}.");
        }

        var listed = (await AskAsync(new ServerReflectionRequest { ListServices = "" }, ServerReflectionResponse.MessageResponseOneofCase.ListServicesResponse)).ListServicesResponse.Service;
        if (listed.Count > DescribeLimits.Files)
        {
            throw new TargetDescriptionException($"The target's server reflection lists {listed.Count:N0} services; at most {DescribeLimits.Files:N0} files are described.");
        }

        var services = listed.Select(service => service.Name).Where(name => !name.StartsWith("grpc.reflection.", StringComparison.Ordinal)).ToList();
        var files = new Dictionary<string, FileDescriptorProto>(StringComparer.Ordinal);
        var order = new List<FileDescriptorProto>();
        var bytes = 0L;
        void Keep(ServerReflectionResponse answer)
        {
            foreach (var served in answer.FileDescriptorResponse.FileDescriptorProto)
            {
                bytes += served.Length;
                if (bytes > DescribeLimits.Bytes || files.Count >= DescribeLimits.Files)
                {
                    throw new TargetDescriptionException(bytes > DescribeLimits.Bytes
                        ? $"The target's server reflection sent more than {DescribeLimits.Bytes:N0} bytes of descriptors; at most {DescribeLimits.Bytes:N0} bytes of descriptors are described."
                        : $"The target's server reflection sent more than {DescribeLimits.Files:N0} files; at most {DescribeLimits.Files:N0} files are described.");
                }

                FileDescriptorProto file;
                try
                {
                    file = FileDescriptorProto.Parser.ParseFrom(served);
                }
                catch (InvalidProtocolBufferException problem)
                {
                    throw DescriptorAllowlist.Unreadable(problem, "that server reflection sent hold a file that is not a FileDescriptorProto");
                }

                if (files.TryAdd(file.Name, file))
                {
                    order.Add(file);
                }
            }
        }

        foreach (var service in services)
        {
            Keep(await AskAsync(new ServerReflectionRequest { FileContainingSymbol = service }, ServerReflectionResponse.MessageResponseOneofCase.FileDescriptorResponse));
        }

        while (files.Values.SelectMany(file => file.Dependency).FirstOrDefault(name => !files.ContainsKey(name)) is { } missing)
        {
            var before = files.Count;
            Keep(await AskAsync(new ServerReflectionRequest { FileByFilename = missing }, ServerReflectionResponse.MessageResponseOneofCase.FileDescriptorResponse));
            if (!files.ContainsKey(missing) && files.Count == before)
            {
                throw new TargetDescriptionException($"The target's server reflection did not give {TargetText.Escape(missing, 200)}, which its services import.");
            }
        }

        await call.RequestStream.CompleteAsync();
        // As served: DescriptorAllowlist checks, bounds and orders every file before anything else reads them.
        return new FileDescriptorSet { File = { order } }.ToByteArray();
    }

    private static string Kind(ServerReflectionResponse.MessageResponseOneofCase kind) => kind switch
    {
        ServerReflectionResponse.MessageResponseOneofCase.ListServicesResponse => "a list of services",
        ServerReflectionResponse.MessageResponseOneofCase.FileDescriptorResponse => "files",
        ServerReflectionResponse.MessageResponseOneofCase.AllExtensionNumbersResponse => "extension numbers",
        ServerReflectionResponse.MessageResponseOneofCase.ErrorResponse => "an error",
        _ => "an empty answer",
    };

    private static string Asked(ServerReflectionRequest request) => request.MessageRequestCase switch
    {
        ServerReflectionRequest.MessageRequestOneofCase.FileContainingSymbol => $"the file of {TargetText.Escape(request.FileContainingSymbol, 200)}",
        ServerReflectionRequest.MessageRequestOneofCase.FileByFilename => TargetText.Escape(request.FileByFilename, 200),
        _ => "its list of services",
    };

    private static Method<ServerReflectionRequest, ServerReflectionResponse> Info(string service) =>
        new(MethodType.DuplexStreaming, service, "ServerReflectionInfo", Requests, Answers);
}
