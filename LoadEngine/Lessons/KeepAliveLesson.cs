using System.Security.Cryptography.X509Certificates;
using LoadEngine.Protocols;
using LoadEngine.Calls;
using LoadEngine.Clients;
using LoadEngine.Targets;
using LoadEngine.Targets.Described;
using Grpc.Core;
using Grpc.Net.Client;
using Microsoft.Extensions.Options;
using Performance;

namespace LoadEngine.Lessons;

/// <summary>
/// Lesson 3: keep-alive pings keep an idle connection open, so the first call after a pause pays no new connection.
/// https://learn.microsoft.com/aspnet/core/grpc/performance#keep-alive-pings
/// </summary>
public sealed class KeepAliveLesson(ChannelFactory channels, IOptions<EngineOptions> options, TargetText text)
{
    public const string Name = "keep-alive";
    public const string Lesson = "Keep-alive pings keep an idle connection open, so the first call after a pause pays no new connection and handshake.";
    public const string Link = "https://learn.microsoft.com/aspnet/core/grpc/performance#keep-alive-pings";
    public const int DefaultPauseMs = 8_000;
    public const int MaxPauseMs = 120_000;
    public const int CallsMade = 6;

    // The shortest delay SocketsHttpHandler accepts: pings then land well inside any idle timeout of a few seconds.
    public static readonly TimeSpan PingDelay = TimeSpan.FromSeconds(1);
    public static readonly TimeSpan PingTimeout = TimeSpan.FromSeconds(5);

    public async Task<KeepAliveLessonResult> RunAsync(int pauseMs, CancellationToken callerGone)
    {
        var completed = 0;
        using var pinging = channels.CreateChannel(OneConnection(withPings: true));
        using var silent = channels.CreateChannel(OneConnection(withPings: false));
        try
        {
            var pingingBefore = await OpenAndWarmAsync(pinging);
            completed += 2;
            var silentBefore = await OpenAndWarmAsync(silent);
            completed += 2;

            // Both connections sit idle through the same pause; only one of them is pinged.
            await Task.Delay(pauseMs, callerGone);

            // The pinged channel calls first, so any wake-up cost after the pause counts against the lesson, not for it.
            var pingingAfter = await TimedCallAsync(pinging, "after the pause, with pings", callerGone);
            completed++;
            var silentAfter = await TimedCallAsync(silent, "after the pause, without pings", callerGone);
            completed++;

            var withPings = ChannelResult.From(
                $"KeepAlivePingDelay {PingDelay.TotalSeconds:0.###} s, KeepAlivePingTimeout {PingTimeout.TotalSeconds:0.###} s, KeepAlivePingPolicy Always",
                pingingBefore, pingingAfter);
            var withoutPings = ChannelResult.From("KeepAlivePingDelay infinite (no pings)", silentBefore, silentAfter);
            return new KeepAliveLessonResult(Lesson, Link, channels.ServerUri.ToString(), pauseMs, withPings, withoutPings, Finding(pauseMs, withPings, withoutPings), Measured);
        }
        catch (RpcException error) when (!callerGone.IsCancellationRequested)
        {
            throw new LessonFailedException(Name, channels.ServerUri, CallsMade, completed, error, text);
        }
        catch (RpcException)
        {
            // The caller left; nobody reads the result, and the status says the same thing.
            callerGone.ThrowIfCancellationRequested();
            throw;
        }

        async Task<(TimedCall Opening, TimedCall Warm)> OpenAndWarmAsync(GrpcChannel channel) =>
            (await TimedCallAsync(channel, "opening", callerGone), await TimedCallAsync(channel, "warm", callerGone));
    }

    /// <summary>
    /// The experiment's measurement: <paramref name="pairs"/> pinged and unpinged channels per transport (h2c, and TLS
    /// when <paramref name="tlsAddress"/> is given), all warm, one pause for all, then each one's first call. The order
    /// alternates pair by pair, the very first call being a pinged one's, so the wake-up after the pause counts against the lesson.
    /// With <paramref name="call"/> the channels call the user's method at the target's own address (one transport, its
    /// own), and a new connection is one the channel's handler opened, as nothing in the answers says which carried them.
    /// </summary>
    public async Task<IReadOnlyList<PauseOutcome>> MeasureAsync(int pauseMs, int pairs, (Uri Address, X509Certificate2 Trusted)? tlsAddress, CancellationToken callerGone, LessonCall? call = null)
    {
        var described = call is null ? null : DescribedCall.Of(call);
        bool[] transports = call is not null ? [call.Tls] : tlsAddress is null ? [false] : [false, true];
        var opened = new List<(bool Tls, bool Pinged, GrpcChannel Channel, WireCounter Connections)>();
        var outcomes = new List<PauseOutcome>();
        var completed = 0;
        try
        {
            foreach (var tls in transports)
            {
                for (var pair = 0; pair < pairs; pair++)
                {
                    foreach (var pinged in pair % 2 == 0 ? new[] { true, false } : [false, true])
                    {
                        var handler = OneConnection(pinged);
                        var connections = new WireCounter();
                        if (call is not null)
                        {
                            // The target's engine: its own address, TLS and metadata, as every strategy reaches it; the handler counts its connections.
                            handler.ConnectCallback = connections.ConnectAsync;
                            opened.Add((tls, pinged, channels.CreateChannel(handler), connections));
                            continue;
                        }

                        if (tls)
                        {
                            handler.SslOptions = TlsTrust.TrustOnly(tlsAddress!.Value.Trusted);
                        }

                        opened.Add((tls, pinged, channels.CreateChannel(handler, tls ? tlsAddress!.Value.Address : null), connections));
                    }
                }
            }

            async Task<TimedCall> CallAsync(GrpcChannel channel, WireCounter connections, string when) => described is null
                ? await TimedCallAsync(channel, when, callerGone)
                : new TimedCall(await described.TimedAsync(channels.CreateInvoker(channel), options.Value.CallTimeout, callerGone), $"connection {connections.Totals.Opened} opened by the channel");

            var before = new List<TimedCall>();
            foreach (var (_, _, channel, connections) in opened)
            {
                await CallAsync(channel, connections, "opening");
                before.Add(await CallAsync(channel, connections, "warm"));
                completed += 2;
            }

            await Task.Delay(pauseMs, callerGone);
            for (var index = 0; index < opened.Count; index++)
            {
                var (tls, pinged, channel, connections) = opened[index];
                var after = await CallAsync(channel, connections, "after the pause");
                completed++;
                outcomes.Add(new PauseOutcome(tls, pinged, before[index].Milliseconds, after.Milliseconds, !string.Equals(before[index].ConnectionId, after.ConnectionId, StringComparison.Ordinal)));
            }

            return outcomes;
        }
        catch (RpcException error) when (!callerGone.IsCancellationRequested)
        {
            throw new LessonFailedException(Name, channels.ServerUri, opened.Count * 3, completed, error, text);
        }
        finally
        {
            foreach (var (_, _, channel, _) in opened)
            {
                channel.Dispose();
            }
        }
    }

    private async Task<TimedCall> TimedCallAsync(GrpcChannel channel, string when, CancellationToken callerGone)
    {
        var (milliseconds, answer) = await MonitorTarget.TimedCallAsync(channels.CreateInvoker(channel), new PerformanceStatusRequest { ClientName = $"{Name} {when}" }, options.Value.CallTimeout, callerGone);
        return new TimedCall(milliseconds, answer.ConnectionId);
    }

    private const string Measured =
        "Two new channels, one HTTP/2 connection each (EnableMultipleHttp2Connections = false, no client-side idle timeout): " +
        "an opening call (connects) and a warm call on each, then one pause for both, then one call on each. " +
        "Times are client-side, fractional ms. Connection ids come from the service, so a changed id is a new TCP connection and HTTP/2 handshake. " +
        "On h2c loopback a new connection costs about a millisecond; over TLS and a real network it costs round trips.";

    private SocketsHttpHandler OneConnection(bool withPings)
    {
        var handler = channels.CreateHandler();
        // One connection per channel, so "the connection changed" has one meaning.
        handler.EnableMultipleHttp2Connections = false;
        handler.KeepAlivePingDelay = withPings ? PingDelay : Timeout.InfiniteTimeSpan;
        handler.KeepAlivePingTimeout = withPings ? PingTimeout : Timeout.InfiniteTimeSpan;
        // The default (WithActiveRequests) would stay silent exactly when the connection is idle, which is the case here.
        handler.KeepAlivePingPolicy = HttpKeepAlivePingPolicy.Always;
        return handler;
    }

    private static string Finding(int pauseMs, ChannelResult withPings, ChannelResult withoutPings) => (withPings.ConnectionChanged, withoutPings.ConnectionChanged) switch
    {
        (false, true) =>
            $"During the {pauseMs} ms pause the service closed the idle connection that was not pinged, so its first call after the pause opened a new one: " +
            $"{withoutPings.AfterPauseCallMs:0.###} ms, against {withoutPings.WarmCallMs:0.###} ms for its warm call before the pause. " +
            $"The pinged connection stayed open, because Kestrel counts a received PING as activity; its first call after the pause took {withPings.AfterPauseCallMs:0.###} ms.",
        (false, false) =>
            $"Neither connection was closed during the {pauseMs} ms pause: nothing between the gateway and the service dropped idle connections that soon " +
            "(the service's idle timeout is Kestrel:Limits:KeepAliveTimeout). Try a pauseMs longer than it.",
        (true, true) =>
            $"Both connections were replaced during the {pauseMs} ms pause: pings did not keep the connection open here, so something dropped it regardless of activity.",
        (true, false) =>
            "The pinged connection was replaced and the silent one was not: something other than the idle timeout closed it (a failed ping, or the service restarting).",
    };
}

public sealed record KeepAliveLessonResult(
    string Lesson,
    string Link,
    string ServerUrl,
    int PauseMs,
    ChannelResult WithPings,
    ChannelResult WithoutPings,
    string Finding,
    string Measured);

/// <summary>One channel's calls: the one that connected, one on the open connection, and the first after the pause.</summary>
public sealed record ChannelResult(
    string Settings,
    double OpeningCallMs,
    double WarmCallMs,
    double AfterPauseCallMs,
    string ConnectionBeforePause,
    string ConnectionAfterPause,
    bool ConnectionChanged)
{
    internal static ChannelResult From(string settings, (TimedCall Opening, TimedCall Warm) before, TimedCall after) => new(
        settings,
        before.Opening.Milliseconds,
        before.Warm.Milliseconds,
        after.Milliseconds,
        before.Warm.ConnectionId,
        after.ConnectionId,
        !string.Equals(before.Warm.ConnectionId, after.ConnectionId, StringComparison.Ordinal));
}

internal readonly record struct TimedCall(double Milliseconds, string ConnectionId);

/// <summary>The user's unary method as the keep-alive probe calls it: its requests from the data, numbered call by call.</summary>
internal sealed class DescribedCall(DescribedMethod method, CallData data)
{
    private long _number;

    public static DescribedCall Of(LessonCall call)
    {
        var method = call.Described.Find(call.Call);
        return new DescribedCall(method, CallData.Parse(method, call.Data));
    }

    public async Task<double> TimedAsync(CallInvoker invoker, TimeSpan timeout, CancellationToken cancellation) =>
        (await OneCall.TimedAsync(invoker, method.Method, data.Request(Interlocked.Increment(ref _number) - 1, CallData.SampleWorker), timeout, cancellation)).Milliseconds;
}

/// <summary>One channel's first call after the pause, against its warm call before it; whether the service saw a new connection.</summary>
public sealed record PauseOutcome(bool Tls, bool Pinged, double WarmCallMs, double AfterPauseCallMs, bool NewConnection);
