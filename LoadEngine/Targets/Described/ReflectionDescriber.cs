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
            throw new TargetDescriptionException($"The target's server reflection failed: {problem.StatusCode}{(string.IsNullOrEmpty(problem.Status.Detail) ? "" : ", " + problem.Status.Detail.TrimEnd('.'))}.", problem);
        }
    }

    private static async Task<byte[]> DescribeAsync(CallInvoker invoker, Method<ServerReflectionRequest, ServerReflectionResponse> method, CallOptions options)
    {
        using var call = invoker.AsyncDuplexStreamingCall(method, null, options);
        async Task<ServerReflectionResponse> AskAsync(ServerReflectionRequest request)
        {
            await call.RequestStream.WriteAsync(request);
            if (!await call.ResponseStream.MoveNext(options.CancellationToken))
            {
                throw new TargetDescriptionException($"The target's server reflection ({method.ServiceName}) ended its stream before it answered.");
            }

            var answer = call.ResponseStream.Current;
            return answer.MessageResponseCase == ServerReflectionResponse.MessageResponseOneofCase.ErrorResponse
                ? throw new TargetDescriptionException($"The target's server reflection refused {Asked(request)}: {(StatusCode)answer.ErrorResponse.ErrorCode}, {answer.ErrorResponse.ErrorMessage.TrimEnd('.')}.")
                : answer;
        }

        var services = (await AskAsync(new ServerReflectionRequest { ListServices = "" })).ListServicesResponse.Service
            .Select(service => service.Name)
            .Where(name => !name.StartsWith("grpc.reflection.", StringComparison.Ordinal))
            .ToList();
        var files = new Dictionary<string, FileDescriptorProto>(StringComparer.Ordinal);
        void Keep(ServerReflectionResponse answer)
        {
            foreach (var bytes in answer.FileDescriptorResponse.FileDescriptorProto)
            {
                var file = FileDescriptorProto.Parser.ParseFrom(bytes);
                files.TryAdd(file.Name, file);
            }
        }

        foreach (var service in services)
        {
            Keep(await AskAsync(new ServerReflectionRequest { FileContainingSymbol = service }));
        }

        while (files.Values.SelectMany(file => file.Dependency).FirstOrDefault(name => !files.ContainsKey(name)) is { } missing)
        {
            var before = files.Count;
            Keep(await AskAsync(new ServerReflectionRequest { FileByFilename = missing }));
            if (!files.ContainsKey(missing) && files.Count == before)
            {
                throw new TargetDescriptionException($"The target's server reflection did not give {missing}, which its services import.");
            }
        }

        await call.RequestStream.CompleteAsync();
        var set = new FileDescriptorSet();
        set.File.AddRange(InImportOrder(files));
        return set.ToByteArray();
    }

    /// <summary>Every file after the files it imports, as protoc writes a set.</summary>
    private static IEnumerable<FileDescriptorProto> InImportOrder(Dictionary<string, FileDescriptorProto> files)
    {
        var written = new HashSet<string>(StringComparer.Ordinal);
        IEnumerable<FileDescriptorProto> After(FileDescriptorProto file)
        {
            if (!written.Add(file.Name))
            {
                yield break;
            }

            foreach (var import in file.Dependency.Where(files.ContainsKey).SelectMany(name => After(files[name])))
            {
                yield return import;
            }

            yield return file;
        }

        return files.Values.SelectMany(After).ToList();
    }

    private static string Asked(ServerReflectionRequest request) => request.MessageRequestCase switch
    {
        ServerReflectionRequest.MessageRequestOneofCase.FileContainingSymbol => $"the file of {request.FileContainingSymbol}",
        ServerReflectionRequest.MessageRequestOneofCase.FileByFilename => request.FileByFilename,
        _ => "its list of services",
    };

    private static Method<ServerReflectionRequest, ServerReflectionResponse> Info(string service) =>
        new(MethodType.DuplexStreaming, service, "ServerReflectionInfo", Requests, Answers);
}
