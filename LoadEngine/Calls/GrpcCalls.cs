using Grpc.Core;
using LoadEngine.Runs;
using LoadEngine.Strategies;

namespace LoadEngine.Calls;

/// <summary>
/// A strategy's calls of a target's method, any of gRPC's four kinds, each a whole call: a unary call; a server stream read
/// to its end (each message checked); a client stream that sends the call's messages; a bidirectional stream that sends
/// them while it reads every answer. The strategy gives the invoker, the target the request and the check.
/// </summary>
public sealed class GrpcCalls<TRequest, TResponse>(IChannelStrategy strategy, IMethodTarget<TRequest, TResponse> target) : ICallSource
    where TRequest : class
    where TResponse : class
{
    private readonly Method<TRequest, TResponse> _method = target.Method;

    public StrategyInfo Info => strategy.Info;

    public string DescribeMeasurement() => strategy.DescribeMeasurement();

    public IAnswerSpool? KeepAnswers(RunPlan plan) => target.KeepAnswers(plan);

    public Task CallAsync(CallContext context) => _method.Type switch
    {
        MethodType.Unary => UnaryAsync(context),
        MethodType.ServerStreaming => ServerStreamAsync(context),
        MethodType.ClientStreaming => ClientStreamAsync(context),
        _ => DuplexAsync(context),
    };

    private async Task UnaryAsync(CallContext context)
    {
        using var lease = strategy.Acquire();
        var answer = await lease.Invoker.AsyncUnaryCall(_method, null, context.Options, target.Request(context.Index, context.Phase));
        target.Check(answer, context.Index, context.Observations);
    }

    private async Task ServerStreamAsync(CallContext context)
    {
        using var lease = strategy.Acquire();
        using var call = lease.Invoker.AsyncServerStreamingCall(_method, null, context.Options, target.Request(context.Index, context.Phase));
        await ReadAllAsync(call.ResponseStream, context);
    }

    private async Task ClientStreamAsync(CallContext context)
    {
        using var lease = strategy.Acquire();
        using var call = lease.Invoker.AsyncClientStreamingCall(_method, null, context.Options);
        await WriteAllAsync(call.RequestStream, context);
        target.Check(await call.ResponseAsync, context.Index, context.Observations);
    }

    private async Task DuplexAsync(CallContext context)
    {
        using var lease = strategy.Acquire();
        using var call = lease.Invoker.AsyncDuplexStreamingCall(_method, null, context.Options);
        var reading = ReadAllAsync(call.ResponseStream, context);
        await WriteAllAsync(call.RequestStream, context);
        await reading;
    }

    private async Task WriteAllAsync(IClientStreamWriter<TRequest> requests, CallContext context)
    {
        foreach (var message in target.Messages(context.Index, context.Phase))
        {
            await requests.WriteAsync(message, context.Options.CancellationToken);
        }

        await requests.CompleteAsync();
    }

    private async Task ReadAllAsync(IAsyncStreamReader<TResponse> answers, CallContext context)
    {
        while (await answers.MoveNext(context.Options.CancellationToken))
        {
            target.Check(answers.Current, context.Index, context.Observations);
        }
    }
}

/// <summary>
/// A strategy's messages on one bidirectional stream of a target's method: each call of the run is one request message,
/// answered in order; the engine times each from its write to its answer.
/// </summary>
public sealed class GrpcStream<TRequest, TResponse>(IChannelStrategy strategy, IMethodTarget<TRequest, TResponse> target) : IStreamSource
    where TRequest : class
    where TResponse : class
{
    public StrategyInfo Info => strategy.Info;

    public string DescribeMeasurement() => strategy.DescribeMeasurement();

    public IAnswerSpool? KeepAnswers(RunPlan plan) => target.KeepAnswers(plan);

    public IMessageStream Open(StreamContext context)
    {
        var lease = strategy.Acquire();
        return new Stream(lease, lease.Invoker.AsyncDuplexStreamingCall(target.Method, null, context.Options), target, context);
    }

    private sealed class Stream(ChannelLease lease, AsyncDuplexStreamingCall<TRequest, TResponse> call, IMethodTarget<TRequest, TResponse> target, StreamContext context)
        : IMessageStream
    {
        public Task WriteAsync(long index) => call.RequestStream.WriteAsync(target.Request(index, context.Phase));

        public Task CompleteAsync() => call.RequestStream.CompleteAsync();

        public Task<bool> MoveNextAsync(CancellationToken cancellation) => call.ResponseStream.MoveNext(cancellation);

        public void CheckAnswer(long index) => target.Check(call.ResponseStream.Current, index, context.Observations);

        public void Dispose()
        {
            call.Dispose();
            lease.Dispose();
        }
    }
}
