using ApiGateway.Runs;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using Microsoft.Extensions.Time.Testing;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>Issue 20, item 2: the clock on each event stream's viewer, which drops a viewer that stops taking events and only such a one.</summary>
public sealed class EventViewerTests
{
    private static readonly TimeSpan Stall = TimeSpan.FromSeconds(10);

    [Fact]
    public async Task AViewerThatTakesEachEventWithinTheStallIsNeverDroppedHoweverLongTheStreamWaitsBetweenEvents()
    {
        var (viewers, time, http, aborted) = Start();
        var happened = new TaskCompletionSource();
        await using var viewer = viewers.Watch(http, TwoEvents(happened.Task)).GetAsyncEnumerator();

        Assert.True(await viewer.MoveNextAsync());
        time.Advance(Stall - TimeSpan.FromSeconds(1));
        var next = viewer.MoveNextAsync();
        // Asked for and not yet published: the time the stream waits for its next event does not count.
        time.Advance(Stall * 10);
        happened.SetResult();
        Assert.True(await next);
        time.Advance(Stall - TimeSpan.FromSeconds(1));
        Assert.False(await viewer.MoveNextAsync());
        time.Advance(Stall * 10);

        Assert.Equal(0, aborted.Count);
    }

    [Fact]
    public async Task AnEventNotTakenWithinTheStallClosesTheViewersConnectionOnce()
    {
        var (viewers, time, http, aborted) = Start();
        await using var viewer = viewers.Watch(http, TwoEvents(Task.CompletedTask)).GetAsyncEnumerator();

        Assert.True(await viewer.MoveNextAsync());
        time.Advance(Stall - TimeSpan.FromMilliseconds(1));
        Assert.Equal(0, aborted.Count);
        time.Advance(TimeSpan.FromMilliseconds(1));
        time.Advance(Stall * 10);

        Assert.Equal(1, aborted.Count);
    }

    private static (EventViewers Viewers, FakeTimeProvider Time, HttpContext Http, AbortCounter Aborted) Start()
    {
        var time = new FakeTimeProvider();
        var aborted = new AbortCounter();
        var http = new DefaultHttpContext();
        http.Features.Set<IHttpRequestLifetimeFeature>(aborted);
        var viewers = new EventViewers(Options.Create(new EventViewerOptions { ViewerStallSeconds = Stall.TotalSeconds }), time, NullLogger<EventViewers>.Instance);
        return (viewers, time, http, aborted);
    }

    private static async IAsyncEnumerable<int> TwoEvents(Task between)
    {
        yield return 1;
        await between;
        yield return 2;
    }

    private sealed class AbortCounter : IHttpRequestLifetimeFeature
    {
        public int Count { get; private set; }

        public CancellationToken RequestAborted { get; set; }

        public void Abort() => Count++;
    }
}
