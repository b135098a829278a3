using System.Text;
using System.Threading.Channels;
using Grpc.Core;
using LoadEngine.Calls;
using LoadEngine.Strategies;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>
/// The engine's one call contract for gRPC's four call kinds, on a fake invoker with a method of plain strings: what a
/// call sends comes from the target, every answer goes through the target's check, and a wrong answer fails the call.
/// </summary>
public sealed class GrpcCallsTests
{
    private static readonly Marshaller<string> Text = Marshallers.Create(Encoding.UTF8.GetBytes, Encoding.UTF8.GetString);

    /// <summary>A unary call sends the request; a server stream is read to its end; client and bidirectional streams send the call's messages.</summary>
    [Theory]
    [InlineData(MethodType.Unary, "call 4")]
    [InlineData(MethodType.ServerStreaming, "call 4 #1|call 4 #2|call 4 #3")]
    [InlineData(MethodType.ClientStreaming, "call 4 part 1+call 4 part 2")]
    [InlineData(MethodType.DuplexStreaming, "call 4 part 1|call 4 part 2")]
    public async Task EachCallKindSendsWhatTheTargetGivesAndChecksEveryAnswer(MethodType kind, string answersChecked)
    {
        var target = new EchoTarget(kind);

        await Calls(target).CallAsync(Context(index: 4));

        Assert.Equal(answersChecked.Split('|'), target.Checked);
    }

    [Fact]
    public async Task AnAnswerTheTargetRefusesFailsTheCallUnderTheTargetsStatus()
    {
        var target = new EchoTarget(MethodType.Unary) { Refuse = true };

        var failure = await Assert.ThrowsAsync<CallFailedException>(() => Calls(target).CallAsync(Context(index: 0)));

        Assert.Equal(StatusCode.DataLoss, failure.Status);
        Assert.Equal("not what call 0 asked for", failure.Detail);
    }

    private static GrpcCalls<string, string> Calls(EchoTarget target) => new(new EchoStrategy(), target);

    private static CallContext Context(long index) => new(index, RunPhase.Measured, new CallOptions(), new RunObservations());

    private sealed class EchoTarget(MethodType type) : IMethodTarget<string, string>
    {
        public List<string> Checked { get; } = [];

        public bool Refuse { get; init; }

        public Method<string, string> Method { get; } = new(type, "echo.Echo", type.ToString(), Text, Text);

        public string Request(long index, RunPhase phase) => $"call {index}";

        public IEnumerable<string> Messages(long index, RunPhase phase) => [$"call {index} part 1", $"call {index} part 2"];

        public void Check(string answer, long index, RunObservations observations)
        {
            if (Refuse)
            {
                throw new CallFailedException(StatusCode.DataLoss, $"not what call {index} asked for");
            }

            lock (Checked)
            {
                Checked.Add(answer);
            }
        }
    }

    private sealed class EchoStrategy : IChannelStrategy
    {
        public StrategyInfo Info { get; } = new("echo", "Tests", "echo", "echo", "https://example.invalid", LoadKind.Sequential);

        public string DescribeMeasurement() => "An in-memory echo.";

        public ChannelLease Acquire() => new(new EchoInvoker());
    }

    /// <summary>Answers a unary call with its request, a server stream with three numbered copies, a client stream with its messages joined, a duplex call message by message.</summary>
    private sealed class EchoInvoker : CallInvoker
    {
        public override AsyncUnaryCall<TResponse> AsyncUnaryCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options, TRequest request) =>
            new(Task.FromResult((TResponse)(object)request!), Task.FromResult(new Metadata()), () => Status.DefaultSuccess, () => [], () => { });

        public override AsyncServerStreamingCall<TResponse> AsyncServerStreamingCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options, TRequest request)
        {
            var answers = Channel.CreateUnbounded<TResponse>();
            foreach (var part in new[] { 1, 2, 3 })
            {
                answers.Writer.TryWrite((TResponse)(object)$"{request} #{part}");
            }

            answers.Writer.Complete();
            return new(new Reader<TResponse>(answers.Reader), Task.FromResult(new Metadata()), () => Status.DefaultSuccess, () => [], () => { });
        }

        public override AsyncClientStreamingCall<TRequest, TResponse> AsyncClientStreamingCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options)
        {
            var sent = Channel.CreateUnbounded<TRequest>();
            var answer = Task.Run(async () =>
            {
                var messages = new List<string>();
                await foreach (var message in sent.Reader.ReadAllAsync())
                {
                    messages.Add((string)(object)message!);
                }

                return (TResponse)(object)string.Join("+", messages);
            });
            return new(new Writer<TRequest>(sent.Writer), answer, Task.FromResult(new Metadata()), () => Status.DefaultSuccess, () => [], () => { });
        }

        public override AsyncDuplexStreamingCall<TRequest, TResponse> AsyncDuplexStreamingCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options)
        {
            var echoed = Channel.CreateUnbounded<TRequest>();
            var answers = new Reader<TResponse>(new CastReader<TRequest, TResponse>(echoed.Reader));
            return new(new Writer<TRequest>(echoed.Writer), answers, Task.FromResult(new Metadata()), () => Status.DefaultSuccess, () => [], () => { });
        }

        public override TResponse BlockingUnaryCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options, TRequest request) =>
            throw new NotSupportedException("The engine never blocks on a call.");
    }

    private sealed class Writer<T>(ChannelWriter<T> messages) : IClientStreamWriter<T>
    {
        public WriteOptions? WriteOptions { get; set; }

        public Task WriteAsync(T message) => messages.WriteAsync(message).AsTask();

        public Task CompleteAsync()
        {
            messages.Complete();
            return Task.CompletedTask;
        }
    }

    private sealed class Reader<T>(ChannelReader<T> answers) : IAsyncStreamReader<T>
    {
        public T Current { get; private set; } = default!;

        public async Task<bool> MoveNext(CancellationToken cancellationToken)
        {
            if (!await answers.WaitToReadAsync(cancellationToken) || !answers.TryRead(out var next))
            {
                return false;
            }

            Current = next;
            return true;
        }
    }

    private sealed class CastReader<TFrom, TTo>(ChannelReader<TFrom> inner) : ChannelReader<TTo>
    {
        public override bool TryRead(out TTo item)
        {
            var read = inner.TryRead(out var from);
            item = read ? (TTo)(object)from! : default!;
            return read;
        }

        public override ValueTask<bool> WaitToReadAsync(CancellationToken cancellationToken = default) => inner.WaitToReadAsync(cancellationToken);
    }
}
