using System.Diagnostics;
using Grpc.Core;

namespace LoadEngine.Calls;

/// <summary>One unary call outside any run, as a lesson's probe makes it: of any method (the built-in service's or a described one), timed on the client.</summary>
public static class OneCall
{
    /// <summary>
    /// The call of <paramref name="method"/> through <paramref name="invoker"/>: its time (fractional ms) and its answer. The
    /// invoker is ChannelFactory's, so the target's metadata and compression ride on it as on every run's call.
    /// </summary>
    public static async Task<(double Milliseconds, TResponse Answer)> TimedAsync<TRequest, TResponse>(
        CallInvoker invoker, Method<TRequest, TResponse> method, TRequest request, TimeSpan timeout, CancellationToken cancellation)
        where TRequest : class
        where TResponse : class
    {
        var start = Stopwatch.GetTimestamp();
        var answer = await invoker.AsyncUnaryCall(method, null, new CallOptions(deadline: DateTime.UtcNow + timeout, cancellationToken: cancellation), request);
        return (Stopwatch.GetElapsedTime(start).TotalMilliseconds, answer);
    }
}
