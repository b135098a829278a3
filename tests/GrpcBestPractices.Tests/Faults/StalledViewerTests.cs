using System.Diagnostics;
using System.Net.ServerSentEvents;
using System.Text.Json;
using System.Text.RegularExpressions;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.Faults;

/// <summary>
/// Issue 20, item 2: a viewer that stops reading an event stream is dropped within a stated time and costs the gateway a
/// bounded amount of memory, while the work it watched runs on time and every other viewer gets every event that counts.
/// </summary>
[Trait("Category", "Process")]
public sealed partial class StalledViewerTests(StalledViewerTests.Fixture system) : IClassFixture<StalledViewerTests.Fixture>
{
    private const int StallSeconds = 3;

    /// <summary>
    /// A write waits only once Kestrel's 64 KiB and the connection's 32 KiB of kernel buffer are full: about 25 s of
    /// progress events at ten a second. Then <see cref="StallSeconds"/>; the rest is room for a busy machine.
    /// </summary>
    private static readonly TimeSpan DropBound = TimeSpan.FromSeconds(55);

    private const long MostResidentBytes = 500L * 1024 * 1024;

    private readonly AppProcess _gateway = system.Gateway;
    private readonly HttpClient _http = system.Http;

    [Fact]
    public async Task TenViewersThatNeverReadASuitesEventsAreDroppedWhileTheSuiteRunsOnTimeAndOthersGetEveryRunAndTheFinal()
    {
        const double RunSeconds = 20;
        string[] strategies = ["client-wrapper", "streaming-call", "single-connection"];
        var suite = await _http.StartRunAsync($$"""{"strategies": {{JsonSerializer.Serialize(strategies)}}, "duration": {{RunSeconds}}, "load": "closed", "concurrency": 4}""", "/api/suites");
        var id = suite.GetProperty("id").GetString()!;
        var path = $"/api/suites/{id}/events";

        var stalled = await Task.WhenAll(Enumerable.Range(0, 10).Select(_ => StalledViewer.OpenAsync(_gateway.BaseAddress, path)));
        var readers = Enumerable.Range(0, 2).Select(_ => ReadEventsAsync(path)).ToList();

        await AssertDroppedAndClosedAsync(stalled);
        var ended = await _http.WaitUntilFinishedAsync($"/api/suites/{id}", TimeSpan.FromMinutes(3));
        Assert.Equal("Completed", ended.GetProperty("state").GetString());
        var took = ended.GetProperty("finishedAt").GetDateTimeOffset() - ended.GetProperty("startedAt").GetDateTimeOffset();
        Assert.True(took < TimeSpan.FromSeconds((strategies.Length * RunSeconds) + 30), $"The suite of {strategies.Length} runs of {RunSeconds} s took {took}.");
        var runIds = ended.GetProperty("runs").EnumerateArray().Select(run => run.GetProperty("id").GetString()).Order().ToList();
        Assert.Equal(strategies.Length, runIds.Count);
        foreach (var events in await Task.WhenAll(readers))
        {
            Assert.Equal("final", events[^1].Event);
            Assert.Equal(runIds, events.Where(happened => happened.Event == "run").Select(happened => happened.Data.GetProperty("id").GetString()).Order());
        }

        AssertQuietAndSmall();
    }

    [Theory]
    [InlineData("run")]
    [InlineData("experiment")]
    public async Task AViewerThatNeverReadsIsDroppedWhileAnotherGetsEveryEventToTheFinal(string stream)
    {
        var started = stream == "run"
            ? await _http.StartRunAsync("""{"strategy": "client-wrapper", "duration": 60}""")
            : await _http.StartRunAsync("""{"repetitions": 10}""", "/api/lessons/stream-limit/experiments");
        var path = stream == "run" ? $"/api/runs/{started.GetProperty("id").GetString()}/events" : started.GetProperty("links").GetProperty("events").GetString()!;

        var stalled = await StalledViewer.OpenAsync(_gateway.BaseAddress, path);
        var reader = ReadEventsAsync(path);

        await AssertDroppedAndClosedAsync([stalled]);
        var events = await reader;
        Assert.Equal("final", events[^1].Event);
        Assert.Equal("Completed", events[^1].Data.GetProperty("state").GetString());
        Assert.True(events.Count(happened => happened.Event == "progress") > 10 * 10, $"The reader got {events.Count} events.");
        AssertQuietAndSmall();
    }

    /// <summary>
    /// Each viewer is dropped (logged once, at information) within the bound of asking, and its connection is closed by the
    /// gateway: reading it at last ends without the final event.
    /// </summary>
    private async Task AssertDroppedAndClosedAsync(StalledViewer[] stalled)
    {
        var path = stalled[0].Path;
        var dropped = await _gateway.WaitForOutputAsync(line => line.Contains($"Dropped a viewer of {path} ", StringComparison.Ordinal), stalled.Length, DropBound);
        var longest = stalled.Max(viewer => Stopwatch.GetElapsedTime(viewer.AskedAt));
        Assert.True(dropped, $"Not every viewer of {path} that never read was dropped within {DropBound.TotalSeconds} s. The gateway's output:{Environment.NewLine}{_gateway.Output}");
        Assert.True(longest < DropBound + TimeSpan.FromSeconds(5), $"The viewers were dropped {longest} after asking.");

        foreach (var viewer in stalled)
        {
            using (viewer)
            {
                var received = await viewer.ReadUntilClosedAsync(TimeSpan.FromSeconds(30));
                Assert.True(received is not null, $"The gateway logged that it dropped a viewer of {path}, but its connection was still open.");
                Assert.StartsWith("HTTP/1.1 200", received);
                Assert.DoesNotContain("event: final", received);
            }
        }
    }

    /// <summary>No error was logged for a viewer the gateway dropped, and its resident memory stayed under the issue's bound.</summary>
    private void AssertQuietAndSmall()
    {
        var errors = _gateway.Output.Split(Environment.NewLine).Where(line => ErrorLine().IsMatch(line)).ToList();
        Assert.True(errors.Count == 0, string.Join(Environment.NewLine, errors));
        var peak = ProcessMemory.PeakResidentBytes(_gateway.Id);
        Assert.True(peak < MostResidentBytes, $"The gateway's resident memory peaked at {peak / 1048576} MiB.");
    }

    private async Task<List<(string Event, JsonElement Data)>> ReadEventsAsync(string path)
    {
        using var cancel = new CancellationTokenSource(TimeSpan.FromMinutes(3));
        await using var stream = await _http.GetStreamAsync(path, cancel.Token);
        var events = new List<(string, JsonElement)>();
        await foreach (var item in SseParser.Create(stream).EnumerateAsync(cancel.Token))
        {
            events.Add((item.EventType, JsonDocument.Parse(item.Data).RootElement.Clone()));
        }

        return events;
    }

    [GeneratedRegex(@" (ERR|FTL)\] ")]
    private static partial Regex ErrorLine();

    /// <summary>
    /// One service and gateway for the class: each test's stalled viewers are told apart by the path of the stream they
    /// asked for, and no error may be logged, nor the memory bound passed, in all of them together.
    /// </summary>
    public sealed class Fixture : IAsyncLifetime
    {
        private AppProcess _service = null!;

        public AppProcess Gateway { get; private set; } = null!;

        public HttpClient Http { get; private set; } = null!;

        public async Task InitializeAsync()
        {
            _service = await AppProcess.StartAsync("PerformanceService");
            Gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", _service.Url, "--Runs:ViewerStallSeconds", $"{StallSeconds}"]);
            Http = new HttpClient { BaseAddress = Gateway.BaseAddress, Timeout = TimeSpan.FromMinutes(3) };
        }

        public async Task DisposeAsync()
        {
            Http.Dispose();
            await Gateway.DisposeAsync();
            await _service.DisposeAsync();
        }
    }
}
