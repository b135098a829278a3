using Google.Protobuf;
using Grpc.Core;
using Grpc.Reflection.V1Alpha;
using GrpcBestPractices.Tests.Described.Shop;
using LoadEngine.Targets.Described;

namespace GrpcBestPractices.Tests.Described;

/// <summary>
/// Server reflection on a fake invoker (no socket, no protoc): v1 is asked first and v1alpha when v1 is unimplemented, the
/// imports a service's file needs are asked for by name, and a target with neither is one sentence.
/// </summary>
public sealed class ReflectionFallbackTests
{
    [Fact]
    public async Task V1AlphaIsAskedWhenV1IsUnimplementedAndMissingImportsAreAskedByName()
    {
        var invoker = new ReflectionInvoker(offersV1: false, offersV1Alpha: true);

        var set = await Reflection(invoker);

        Assert.Equal(["grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"], invoker.Services);
        Assert.Equal(["list", "symbol shop.v1.Orders", "file google/protobuf/duration.proto", "file google/protobuf/timestamp.proto", "file google/protobuf/wrappers.proto"], invoker.Asked);
        // Every file after the files it imports, once the allowlist has rebuilt the set (it orders every set, however served).
        Assert.Equal(
            ["google/protobuf/duration.proto", "google/protobuf/timestamp.proto", "google/protobuf/wrappers.proto", "Described/shop.proto"],
            DescriptorAllowlist.Rebuild(set.ToByteArray()).Files.Select(file => file.Name));
    }

    [Fact]
    public async Task ATargetWithoutReflectionIsOneSentence()
    {
        var problem = await Assert.ThrowsAsync<TargetDescriptionException>(() => Reflection(new ReflectionInvoker(offersV1: false, offersV1Alpha: false)));

        Assert.Equal("The target does not offer server reflection (grpc.reflection.v1 or v1alpha): describe it with its .proto files or a protoset instead (the CLI's --proto or --protoset; the gateway's Targets:<name>:Proto or :Protoset).", problem.Message);
    }

    [Fact]
    public async Task AnUnimplementedAnswerThatOvertakesTheQuestionIsStillTheSentenceNotTheAbortedWrite()
    {
        // grpc-dotnet reports a write the server's early answer aborted as Cancelled; the status behind it is Unimplemented.
        var invoker = new ReflectionInvoker(offersV1: false, offersV1Alpha: false, answersBeforeTheQuestion: true);

        var problem = await Assert.ThrowsAsync<TargetDescriptionException>(() => Reflection(invoker));

        Assert.StartsWith("The target does not offer server reflection (grpc.reflection.v1 or v1alpha)", problem.Message);
        Assert.Equal(["grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"], invoker.Services);
    }

    private static async Task<Google.Protobuf.Reflection.FileDescriptorSet> Reflection(CallInvoker invoker) =>
        Google.Protobuf.Reflection.FileDescriptorSet.Parser.ParseFrom(await ReflectionDescriber.DescribeAsync(invoker, default));

    /// <summary>Answers reflection from shop.proto's generated descriptors, on the versions it offers.</summary>
    private sealed class ReflectionInvoker(bool offersV1, bool offersV1Alpha, bool answersBeforeTheQuestion = false) : CallInvoker
    {
        public List<string> Services { get; } = [];

        public List<string> Asked { get; } = [];

        public override AsyncDuplexStreamingCall<TRequest, TResponse> AsyncDuplexStreamingCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options)
        {
            Services.Add(method.ServiceName);
            var offered = method.ServiceName.EndsWith(".v1.ServerReflection", StringComparison.Ordinal) ? offersV1 : offersV1Alpha;
            var answers = new Queue<ServerReflectionResponse>();
            var writer = new Writer(request =>
            {
                if (!offered)
                {
                    throw new RpcException(answersBeforeTheQuestion ? new Status(StatusCode.Cancelled, "Call canceled by the client.") : new Status(StatusCode.Unimplemented, "no such service"));
                }

                answers.Enqueue(Answer(request));
            });
            var reader = new Reader(answers, offered ? null : new Status(StatusCode.Unimplemented, "no such service"));
            return new AsyncDuplexStreamingCall<TRequest, TResponse>(
                (IClientStreamWriter<TRequest>)(object)writer, (IAsyncStreamReader<TResponse>)(object)reader,
                Task.FromResult(new Metadata()), () => Status.DefaultSuccess, () => [], () => { });
        }

        public override TResponse BlockingUnaryCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options, TRequest request) => throw new NotSupportedException();

        public override AsyncUnaryCall<TResponse> AsyncUnaryCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options, TRequest request) => throw new NotSupportedException();

        public override AsyncServerStreamingCall<TResponse> AsyncServerStreamingCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options, TRequest request) => throw new NotSupportedException();

        public override AsyncClientStreamingCall<TRequest, TResponse> AsyncClientStreamingCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options) => throw new NotSupportedException();

        private ServerReflectionResponse Answer(ServerReflectionRequest request)
        {
            var answer = new ServerReflectionResponse();
            switch (request.MessageRequestCase)
            {
                case ServerReflectionRequest.MessageRequestOneofCase.ListServices:
                    Asked.Add("list");
                    answer.ListServicesResponse = new ListServiceResponse { Service = { new ServiceResponse { Name = "shop.v1.Orders" }, new ServiceResponse { Name = "grpc.reflection.v1alpha.ServerReflection" } } };
                    break;
                case ServerReflectionRequest.MessageRequestOneofCase.FileContainingSymbol:
                    Asked.Add($"symbol {request.FileContainingSymbol}");
                    answer.FileDescriptorResponse = Files(ShopReflection.Descriptor);
                    break;
                default:
                    Asked.Add($"file {request.FileByFilename}");
                    answer.FileDescriptorResponse = Files(ShopReflection.Descriptor.Dependencies.Single(file => file.Name == request.FileByFilename));
                    break;
            }

            return answer;
        }

        private static FileDescriptorResponse Files(Google.Protobuf.Reflection.FileDescriptor file) =>
            new() { FileDescriptorProto = { file.SerializedData } };
    }

    private sealed class Writer(Action<ServerReflectionRequest> write) : IClientStreamWriter<ServerReflectionRequest>
    {
        public WriteOptions? WriteOptions { get; set; }

        public Task WriteAsync(ServerReflectionRequest message)
        {
            write(message);
            return Task.CompletedTask;
        }

        public Task CompleteAsync() => Task.CompletedTask;
    }

    private sealed class Reader(Queue<ServerReflectionResponse> answers, Status? ended) : IAsyncStreamReader<ServerReflectionResponse>
    {
        public ServerReflectionResponse Current { get; private set; } = null!;

        public Task<bool> MoveNext(CancellationToken cancellationToken)
        {
            if (ended is { } status)
            {
                throw new RpcException(status);
            }

            var has = answers.TryDequeue(out var answer);
            Current = answer!;
            return Task.FromResult(has);
        }
    }
}
