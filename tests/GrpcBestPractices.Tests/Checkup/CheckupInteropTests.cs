using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;
using LoadTest;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.Checkup;

/// <summary>
/// <c>loadtest checkup</c> against two servers the project did not write, each set up so the answers are known in advance:
/// grpc-js limited to 10 concurrent streams per connection, GetItem waiting 50 ms (one connection carries at most
/// 10 ÷ 50 ms = 200 calls/s, so more connections are faster past it; Exchange is a bidirectional method of the same
/// types), and Python grpcio with 4 workers of 20 ms each (200 calls/s whatever the connections; no bidirectional method).
/// One checkup per server for the whole class (<see cref="KnownServerCheckups"/>); the facts read its JSON.
/// </summary>
[Trait("Category", "Process")]
[Collection(MeasuredAloneCollection.Name)]
public sealed class CheckupInteropTests(KnownServerCheckups checkups, ITestOutputHelper output) : IClassFixture<KnownServerCheckups>
{
    // Both answer at most 200 calls/s: grpc-js 10 streams of 50 ms on the sweep's one connection (8 in flight gives 160, 16
    // the full 200), grpcio 4 workers of 20 ms (4 in flight). The floor is room for a busy 2-core machine. The streams one
    // connection gave (the knee's rate × one call's time alone) are the server's 10 streams and 4 workers; one call alone
    // also pays the client's and the wire's time, which the server does not hold a worker for, so grpcio's reads higher.
    [Theory]
    [InlineData(KnownServerCheckups.GrpcJsServer, 8, 16, 7, 13)]
    [InlineData(KnownServerCheckups.GrpcioServer, 2, 8, 3, 6.5)]
    public void TheSweepFindsTheKneeNearTwoHundredCallsASecond(string server, int fewestInFlight, int mostInFlight, double fewestStreams, double mostStreams)
    {
        var sweep = Record(checkups.Of(server)).GetProperty("sweep");
        var knee = sweep.GetProperty("knee");

        Assert.InRange(knee.GetProperty("callsPerSecond").GetDouble(), 120, 240);
        Assert.InRange(knee.GetProperty("inFlight").GetInt32(), fewestInFlight, mostInFlight);
        Assert.InRange(sweep.GetProperty("streamsPerConnection").GetDouble(), fewestStreams, mostStreams);
    }

    [Fact]
    public void OnTenStreamsPerConnectionSeveralConnectionsAreAdviceBeyondNoise()
    {
        var connections = Item(checkups.GrpcJs, "connections");

        Assert.Equal("advice", connections.GetProperty("outcome").GetString());
        Assert.True(connections.GetProperty("measured").GetProperty("beyondNoise").GetBoolean());
    }

    [Fact]
    public void WithABidirectionalMethodOfTheSameTypesTheStreamingItemIsMeasuredOnIt()
    {
        var streaming = Item(checkups.GrpcJs, "streaming");

        Assert.Contains(streaming.GetProperty("outcome").GetString(), (string[])["advice", "no-saving"]);
        Assert.Equal(JsonValueKind.Object, streaming.GetProperty("measured").ValueKind);
        Assert.Equal(GrpcJsTarget.Service + "/Exchange", Record(checkups.GrpcJs).GetProperty("streamCall").GetString());
    }

    [Fact]
    public void WhenWorkersAreTheLimitMoreConnectionsAreNoAdvice()
    {
        var connections = Item(checkups.Grpcio, "connections");

        Assert.NotEqual("advice", connections.GetProperty("outcome").GetString());
    }

    [Fact]
    public void WithoutABidirectionalMethodTheStreamingItemSaysThereIsNone()
    {
        var streaming = Item(checkups.Grpcio, "streaming");

        Assert.Equal("not-applicable", streaming.GetProperty("outcome").GetString());
        Assert.Contains("no bidirectional", streaming.GetProperty("advice").GetString(), StringComparison.OrdinalIgnoreCase);
    }

    [Fact]
    public void EveryItemOfBothCheckupsSaysItsAdviceInASentence()
    {
        foreach (var checkup in (KnownServerCheckups.Checkup[])[checkups.GrpcJs, checkups.Grpcio])
        {
            var items = Record(checkup).GetProperty("items").EnumerateArray().ToList();

            Assert.Equal(KnownServerCheckups.ItemIds.Order(), items.Select(item => item.GetProperty("id").GetString()!).Order());
            Assert.All(items, item => Assert.False(string.IsNullOrWhiteSpace(item.GetProperty("advice").GetString()), $"{checkup.Server}: {item}"));
        }
    }

    [Fact]
    public void BothCheckupsFinishWithinTheirBudget()
    {
        foreach (var checkup in (KnownServerCheckups.Checkup[])[checkups.GrpcJs, checkups.Grpcio])
        {
            var record = Record(checkup);
            var measured = checkup.Measured;

            Assert.Equal(KnownServerCheckups.BudgetSeconds, record.GetProperty("budgetSeconds").GetDouble());
            Assert.True(measured <= KnownServerCheckups.Budget + KnownServerCheckups.EngineMargin, $"{checkup.Server}: the checkup measured for {measured.TotalSeconds:F1} s");
            Assert.True(checkup.Took <= KnownServerCheckups.Budget + KnownServerCheckups.ProcessMargin, $"{checkup.Server}: the CLI ran for {checkup.Took.TotalSeconds:F1} s");
        }
    }

    private JsonElement Record(KnownServerCheckups.Checkup checkup)
    {
        output.WriteLine(checkup.Summary());
        Assert.True(checkup.Result.ExitCode == ExitCodes.Passed, $"{checkup.Server}: {checkup.Result}");
        return checkup.Record!.Value;
    }

    private JsonElement Item(KnownServerCheckups.Checkup checkup, string id) =>
        Record(checkup).GetProperty("items").EnumerateArray().Single(item => item.GetProperty("id").GetString() == id);
}

/// <summary>
/// The two checkups <see cref="CheckupInteropTests"/> reads, one after the other (never side by side: each measures the
/// machine), each by the real CLI with <c>--budget 40s --json</c> against a server of its own.
/// </summary>
public sealed class KnownServerCheckups : IAsyncLifetime
{
    public const int BudgetSeconds = 40;

    public static readonly TimeSpan Budget = TimeSpan.FromSeconds(BudgetSeconds);

    /// <summary>The checkup's own clock (startedAt to finishedAt) may pass the budget by the measurement that was running when it was spent winding down.</summary>
    public static readonly TimeSpan EngineMargin = TimeSpan.FromSeconds(5);

    /// <summary>The process also starts .NET and compiles the .proto before its clock starts, and writes the JSON after: 20 s on a busy 2-core machine.</summary>
    public static readonly TimeSpan ProcessMargin = TimeSpan.FromSeconds(20);

    public static readonly string[] ItemIds = ["reuse-channel", "factory-client", "capacity", "connections", "keep-alive", "streaming", "compression", "deadline"];

    public const string GrpcJsServer = "grpc-js, 10 streams per connection, GetItem waiting 50 ms";

    public const string GrpcioServer = "grpcio, 4 workers of 20 ms";

    private readonly TemporaryFolder _folder = new();

    public Checkup GrpcJs { get; private set; } = null!;

    public Checkup Grpcio { get; private set; } = null!;

    public Checkup Of(string server) => server == GrpcJsServer ? GrpcJs : Grpcio;

    public async Task InitializeAsync()
    {
        await using (var grpcJs = await GrpcJsTarget.StartAsync(TargetSecurity.Plain, "--max-concurrent-streams", "10"))
        {
            GrpcJs = await RunAsync(GrpcJsServer, grpcJs.Url,
                ["--proto", GrpcJsTarget.ProtoFile, "--import-path", GrpcJsTarget.ImportDirectory, "--call", GrpcJsTarget.Service + "/GetItem", "-d", """{"sku":"checkup","delay_ms":50}"""]);
        }

        await using var grpcio = await GrpcioTarget.StartAsync(workers: 4, serviceMs: 20);
        Grpcio = await RunAsync(GrpcioServer, grpcio.Url, ["--proto", GrpcioTarget.ProtoFile, "--call", GrpcioTarget.Work, "-d", """{"name":"checkup","number":1}"""]);
    }

    public Task DisposeAsync()
    {
        _folder.Dispose();
        return Task.CompletedTask;
    }

    private async Task<Checkup> RunAsync(string server, string url, string[] call)
    {
        var json = _folder.File($"checkup-{Guid.NewGuid():N}.json");
        var started = Stopwatch.GetTimestamp();
        using var cli = CliProcess.Start(["checkup", new Uri(url).Authority, "--insecure", .. call, "--budget", $"{BudgetSeconds}s", "--json", json, "--quiet"]);
        // A bound for a hung checkup, well past what the budget test allows.
        var result = await cli.WaitForExitAsync(Budget + ProcessMargin + TimeSpan.FromSeconds(60));
        var took = Stopwatch.GetElapsedTime(started);
        JsonElement? record = File.Exists(json) ? JsonDocument.Parse(await File.ReadAllTextAsync(json)).RootElement.Clone() : null;
        return new Checkup(server, result, took, record);
    }

    /// <summary>One checkup: the server it ran against, how the CLI ended, how long it took, and its JSON (null if none was written).</summary>
    public sealed record Checkup(string Server, CliResult Result, TimeSpan Took, JsonElement? Record)
    {
        /// <summary>How long the checkup measured, on its own clock (startedAt to finishedAt).</summary>
        public TimeSpan Measured => Record is { } record ? record.GetProperty("finishedAt").GetDateTimeOffset() - record.GetProperty("startedAt").GetDateTimeOffset() : TimeSpan.Zero;

        /// <summary>Its figures in lines for the test output: the sweep's steps and knee, and each item's outcome and measure.</summary>
        public string Summary()
        {
            if (Record is not { } record)
            {
                return $"{Server}: no JSON; {Result}";
            }

            var lines = new List<string> { $"{Server}: exit code {Result.ExitCode}, {Measured.TotalSeconds:F1} s measured, {Took.TotalSeconds:F1} s in all" };
            if (record.TryGetProperty("sweep", out var sweep) && sweep.ValueKind == JsonValueKind.Object)
            {
                lines.AddRange(sweep.GetProperty("steps").EnumerateArray().Select(step => string.Create(CultureInfo.InvariantCulture,
                    $"  {step.GetProperty("inFlight").GetInt32()} in flight: {step.GetProperty("callsPerSecond").GetDouble():F1} calls/s, p99 {step.GetProperty("p99Ms").GetDouble():F1} ms")));
                lines.Add($"  knee {sweep.GetProperty("knee")}, {sweep.GetProperty("streamsPerConnection")} streams per connection; stopped because {sweep.GetProperty("stoppedBecause")}");
            }

            lines.AddRange(record.GetProperty("items").EnumerateArray().Select(item =>
                $"  {item.GetProperty("id")}: {item.GetProperty("outcome")}, {item.GetProperty("advice")} {(item.TryGetProperty("measured", out var measured) ? measured.ToString() : string.Empty)}"));
            return string.Join(Environment.NewLine, lines);
        }
    }
}
