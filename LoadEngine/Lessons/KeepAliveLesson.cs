using System.Security.Cryptography.X509Certificates;
using System.Text.Json.Serialization;
using LoadEngine.Protocols;
using LoadEngine.Calls;
using LoadEngine.Clients;
using LoadEngine.Runs;
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
/// As the experiment's probe it measures the arms: <see cref="Pairs"/> channels of each kind over h2c and (when this host
/// has the TLS listener) over TLS; an arm's figure is the median of its channels.
/// </summary>
public sealed class KeepAliveLesson(ChannelFactory channels, IOptions<EngineOptions> options, TargetText text) : ILessonProbe
{
    public const string Name = "keep-alive";
    public const string Lesson = "Keep-alive pings keep an idle connection open, so the first call after a pause pays no new connection and handshake.";
    public const string Link = "https://learn.microsoft.com/aspnet/core/grpc/performance#keep-alive-pings";
    public const int DefaultPauseMs = 8_000;
    public const int MaxPauseMs = 120_000;
    public const int Pairs = 3;

    // The shortest delay SocketsHttpHandler accepts: pings then land well inside any idle timeout of a few seconds.
    public static readonly TimeSpan PingDelay = TimeSpan.FromSeconds(1);
    public static readonly TimeSpan PingTimeout = TimeSpan.FromSeconds(5);

    public async Task<KeepAliveLessonResult> RunAsync(int pauseMs, CancellationToken callerGone)
    {
        var measured = await PauseAsync(pauseMs, 1, null, callerGone);
        var (withPings, withoutPings) = (measured[0].Calls, measured[1].Calls);
        return new KeepAliveLessonResult(Lesson, Link, channels.ServerUri.ToString(), pauseMs, withPings, withoutPings, Finding(pauseMs, withPings, withoutPings), Measured);
    }

    public async Task<IReadOnlyList<ExperimentSample>> MeasureAsync(LessonPlan plan, int repetition, CancellationToken cancellation)
    {
        (Uri, X509Certificate2)? tls = plan.Call is null && !plan.Unavailable.ContainsKey("with-pings-tls")
            && WorkloadTargets.TryResolve(ContenderList.Find("grpc-h2-tls")!, options.Value, out var address, out var trusted, out _) ? (address, trusted!) : null;
        var measured = await PauseAsync(DefaultPauseMs, Pairs, tls, cancellation, plan.Call);
        return [.. measured.GroupBy(channel => (channel.Tls, channel.Pinged)).Select(group => ExperimentSample.Measured(
            repetition,
            (group.Key.Pinged ? "with-pings" : "without-pings") + (group.Key.Tls ? "-tls" : ""),
            null,
            ("afterPauseMs", FigureRange.MedianOf([.. group.Select(channel => channel.Calls.AfterPauseCallMs)])),
            ("warmCallMs", FigureRange.MedianOf([.. group.Select(channel => channel.Calls.WarmCallMs)])),
            ("newConnectionsAfterPause", group.Count(channel => channel.Calls.ConnectionChanged)),
            ("channels", group.Count())))];
    }

    /// <summary>
    /// <paramref name="pairs"/> pinged and unpinged channels per transport (h2c, and TLS when <paramref name="tlsAddress"/> is
    /// given), all warm, one pause for all, then each one's first call. The order alternates pair by pair, the very first call
    /// being a pinged one's, so the wake-up after the pause counts against the lesson. With <paramref name="call"/> the channels
    /// call the user's method at the target's own address (one transport, its own), and a new connection is one the channel's
    /// handler opened, as nothing in the answers says which carried them.
    /// </summary>
    private async Task<IReadOnlyList<(bool Tls, bool Pinged, ChannelResult Calls)>> PauseAsync(int pauseMs, int pairs, (Uri Address, X509Certificate2 Trusted)? tlsAddress, CancellationToken callerGone, LessonCall? call = null)
    {
        // The user's requests come from the data, numbered call by call.
        var method = call?.Described.Find(call.Call);
        var data = method is null ? null : CallData.Parse(method, call!.Data);
        var number = 0L;
        bool[] transports = call is not null ? [call.Tls] : tlsAddress is null ? [false] : [false, true];
        var opened = new List<(bool Tls, bool Pinged, GrpcChannel Channel, WireCounter Connections)>();
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
                        }
                        else if (tls)
                        {
                            handler.SslOptions = TlsTrust.TrustOnly(tlsAddress!.Value.Trusted);
                        }

                        opened.Add((tls, pinged, channels.CreateChannel(handler, call is null && tls ? tlsAddress!.Value.Address : null), connections));
                    }
                }
            }

            async Task<TimedCall> CallAsync(GrpcChannel channel, WireCounter connections, string when) => method is null
                ? await TimedCallAsync(channel, when, callerGone)
                : new TimedCall((await OneCall.TimedAsync(channels.CreateInvoker(channel), method.Method, data!.Request(number++, CallData.SampleWorker), options.Value.CallTimeout, callerGone)).Milliseconds,
                    $"connection {connections.Totals.Opened} opened by the channel");

            var before = new List<(TimedCall Opening, TimedCall Warm)>();
            foreach (var (_, _, channel, connections) in opened)
            {
                before.Add((await CallAsync(channel, connections, "opening"), await CallAsync(channel, connections, "warm")));
                completed += 2;
            }

            await Task.Delay(pauseMs, callerGone);
            var measured = new List<(bool, bool, ChannelResult)>();
            foreach (var ((tls, pinged, channel, connections), (opening, warm)) in opened.Zip(before))
            {
                var after = await CallAsync(channel, connections, "after the pause");
                completed++;
                measured.Add((tls, pinged, new ChannelResult(Settings(pinged), opening.Milliseconds, warm.Milliseconds, after.Milliseconds, warm.ConnectionId, after.ConnectionId)));
            }

            return measured;
        }
        catch (RpcException error) when (!callerGone.IsCancellationRequested)
        {
            throw new LessonFailedException(Name, channels.ServerUri, opened.Count * 3, completed, error, text);
        }
        catch (RpcException)
        {
            // The caller left; nobody reads the result, and the status says the same thing.
            callerGone.ThrowIfCancellationRequested();
            throw;
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

    private static string Settings(bool pinged) => pinged
        ? $"KeepAlivePingDelay {PingDelay.TotalSeconds:0.###} s, KeepAlivePingTimeout {PingTimeout.TotalSeconds:0.###} s, KeepAlivePingPolicy Always"
        : "KeepAlivePingDelay infinite (no pings)";

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

/// <summary>
/// One channel's calls: the one that connected, one on the open connection, and the first after the pause; whether the
/// connection changed over the pause (by the service's connection ids, or on a target by the channel's own handler).
/// </summary>
public sealed record ChannelResult(
    string Settings,
    double OpeningCallMs,
    double WarmCallMs,
    double AfterPauseCallMs,
    string ConnectionBeforePause,
    string ConnectionAfterPause)
{
    [JsonPropertyOrder(1)]
    public bool ConnectionChanged => !string.Equals(ConnectionBeforePause, ConnectionAfterPause, StringComparison.Ordinal);
}

internal readonly record struct TimedCall(double Milliseconds, string ConnectionId);
