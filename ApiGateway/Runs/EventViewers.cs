using GrpcBestPractices.ServiceDefaults;
using System.ComponentModel.DataAnnotations;
using System.Net.ServerSentEvents;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using Microsoft.AspNetCore.Connections.Features;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;

namespace ApiGateway.Runs;

/// <summary>How long an event stream waits for a viewer that stopped reading. Section <c>Runs</c>.</summary>
public sealed class EventViewerOptions
{
    public const string Section = "Runs";

    /// <summary>How long one event may wait to be taken by a viewer before the gateway closes that viewer's connection.</summary>
    [Range(1, 3600, ErrorMessage = "Runs:ViewerStallSeconds must be between 1 and 3600: how long one event may wait for a viewer of an event stream to take it before the gateway drops that viewer.")]
    public double ViewerStallSeconds { get; set; } = 10;
}

/// <summary>
/// Serves every event stream (runs, suites, comparisons, experiments) and drops a viewer that stops reading. The SSE
/// formatter asks for the next event only once it has written and flushed the last one, so an event still not taken
/// after <see cref="EventViewerOptions.ViewerStallSeconds"/> means the viewer has stopped reading, and its connection is
/// closed: its buffer (<see cref="LiveRun.FollowerCapacity"/> events) and the event it was being written go with it.
/// </summary>
public sealed partial class EventViewers(IOptions<EventViewerOptions> options, TimeProvider time, ILogger<EventViewers> logger)
{
    /// <summary>
    /// The kernel's send buffer of an event stream's connection (Linux doubles it to 32 KiB). A write waits only once it and
    /// Kestrel's own 64 KiB are full, and left to autotune it takes up to 4 MiB from a viewer that does not read: 17 minutes
    /// of progress events. Measured in docs/run-api.md: a stalled viewer of a run's events dropped after 40 s with 4 KiB,
    /// 47 s with 16 KiB, 72 s with 64 KiB, not within 140 s untouched; a 2 MB final took 0.7 s to a reader instead of 8 ms.
    /// </summary>
    public const int SendBufferBytes = 16 * 1024;

    /// <summary>The events as Server-Sent Events, to a viewer that is dropped if it stops taking them.</summary>
    public ServerSentEventsResult<object> Stream(HttpContext http, IAsyncEnumerable<SseItem<object>> events) =>
        TypedResults.ServerSentEvents(Watch(http, events));

    /// <summary>The events as they come, arming the clock when one is handed on and stopping it when the next is asked for.</summary>
    public async IAsyncEnumerable<T> Watch<T>(HttpContext http, IAsyncEnumerable<T> events, [EnumeratorCancellation] CancellationToken cancellation = default)
    {
        KeepSendBufferSmall(http);
        var stall = TimeSpan.FromSeconds(options.Value.ViewerStallSeconds);
        var dropped = 0;
        await using var watch = time.CreateTimer(_ =>
        {
            if (Interlocked.Exchange(ref dropped, 1) == 0)
            {
                LogDropped(logger, http.Request.Path.Value, http.Connection.RemoteIpAddress, http.Connection.RemotePort, stall.TotalSeconds);
                http.Abort();
            }
        }, null, Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);

        await foreach (var item in events.WithCancellation(cancellation))
        {
            watch.Change(stall, Timeout.InfiniteTimeSpan);
            yield return item;
            watch.Change(Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
        }
    }

    /// <summary>
    /// Over HTTP/1.1 the connection is the viewer's alone: shrink what the kernel holds for it, and close it with the stream
    /// so the small buffer never slows a large answer on it. An HTTP/2 connection is shared, so it is left as it is.
    /// </summary>
    private static void KeepSendBufferSmall(HttpContext http)
    {
        if (!HttpProtocol.IsHttp11(http.Request.Protocol) && !HttpProtocol.IsHttp10(http.Request.Protocol))
        {
            return;
        }

        http.Response.Headers.Connection = "close";
        if (http.Features.Get<IConnectionSocketFeature>()?.Socket is { } socket)
        {
            try
            {
                socket.SendBufferSize = SendBufferBytes;
            }
            catch (Exception gone) when (gone is SocketException or ObjectDisposedException)
            {
                // The viewer left already; the stream ends at its first write.
            }
        }
    }

    [LoggerMessage(Level = LogLevel.Information, Message = "Dropped a viewer of {Path} at {RemoteAddress}:{RemotePort}: an event waited {StallSeconds} s for it to read (Runs:ViewerStallSeconds)")]
    private static partial void LogDropped(ILogger logger, string? path, System.Net.IPAddress? remoteAddress, int remotePort, double stallSeconds);
}

public static class EventViewerSetup
{
    public static IServiceCollection AddEventViewers(this IServiceCollection services)
    {
        services.AddValidatedOptions<EventViewerOptions>(EventViewerOptions.Section);
        services.TryAddSingleton(TimeProvider.System);
        services.AddSingleton<EventViewers>();
        return services;
    }
}
