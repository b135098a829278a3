using System.Diagnostics;
using System.Net;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.Targets;

/// <summary>
/// The gateway against a target that echoes what it is sent (the grpc-js inventory server: its answers carry the call's
/// metadata, and it fails calls with a message of the caller's choosing): the Targets metadata value is masked wherever
/// the gateway writes what the target said (answers, runs, reports, exports, events, the history's files, its log), and a
/// template that could render more than data may hold is refused before it renders.
/// </summary>
[Trait("Category", "Process")]
public sealed class TargetTextApiTests(TargetTextApiTests.Fixture system) : IClassFixture<TargetTextApiTests.Fixture>
{
    private const string GetItem = GrpcJsTarget.Service + "/GetItem";

    private const string Exchange = GrpcJsTarget.Service + "/Exchange";

    [Fact]
    public async Task ATargetThatEchoesItsMetadataNeverPutsTheValueInAnythingTheGatewayWrites()
    {
        var http = system.Http;
        var answered = await RunAsync($$"""{"target": "inventory", "call": "{{GetItem}}", "data": {"sku": "a"}, "strategy": "client-wrapper", "count": 5}""");
        var refused = await RunAsync(
            $$"""{"target": "inventory", "call": "{{Exchange}}", "data": {"sku": "b", "failCode": 7, "failDetail": "denied: {metadata}"}, "strategy": "streaming-call", "count": 5}""");

        // The echo is still there, with the value masked: in the first answer, and in the failed stream's sentence.
        Assert.True(answered.GetProperty("state").GetString() == "Completed", answered.ToString());
        var answer = JsonDocument.Parse(answered.GetProperty("stats").GetProperty("firstAnswer").GetString()!).RootElement;
        Assert.Equal("***", answer.GetProperty("metadata").GetProperty("authorization").GetString());
        Assert.True(refused.GetProperty("state").GetString() == "Failed", refused.ToString());
        var error = refused.GetProperty("error").GetString()!;
        Assert.Contains("PermissionDenied (denied: {", error);
        Assert.Contains("\"authorization\":\"***\"", error);

        var written = new Dictionary<string, string>
        {
            ["GET /api/runs"] = await http.GetStringAsync("/api/runs"),
            ["GET /api/targets"] = await http.GetStringAsync("/api/targets"),
        };
        foreach (var id in new[] { answered, refused }.Select(run => run.GetProperty("id").GetString()))
        {
            foreach (var path in new[] { "", "/report", "/export", "/export?format=csv", "/events" })
            {
                written[$"GET /api/runs/{id}{path}"] = await http.GetStringAsync($"/api/runs/{id}{path}");
            }
        }

        foreach (var file in new[] { system.Gateway.HistoryPath!, system.Gateway.HistoryPath + "-wal" }.Where(File.Exists))
        {
            written[file] = Encoding.UTF8.GetString(ReadShared(file));
        }

        written["the gateway's log"] = system.Gateway.Output;
        Assert.All(written, output => Assert.False(output.Value.Contains(system.Secret, StringComparison.Ordinal), $"{output.Key} holds the metadata value"));
    }

    [Fact]
    public async Task ATemplateThatCouldRenderAGigabyteIsRefusedAtOnceWithoutTheGatewaysMemoryGrowing()
    {
        // Described (protoc and the compiler) before the peak is read, so only the refused POST can move it.
        await RunAsync($$"""{"target": "inventory", "call": "{{GetItem}}", "data": {"sku": "warm"}, "strategy": "client-wrapper", "count": 1}""");
        var peakBefore = ProcessMemory.PeakResidentBytes(system.Gateway.Id);
        var started = Stopwatch.GetTimestamp();

        using var response = await system.Http.PostJsonAsync("/api/runs",
            $$$"""{"target": "inventory", "call": "{{{GetItem}}}", "data": {"sku": "{{randomString 1000000000}}"}, "strategy": "client-wrapper", "count": 5}""");
        var problem = await SystemFixture.ReadProblemAsync(response);

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        Assert.Equal(
            "data's template {{randomString 1000000000}} renders up to 1,000,000,000 characters; a rendered message may hold at most 65,536, as data may.",
            problem.GetProperty("detail").GetString());
        Assert.True(Stopwatch.GetElapsedTime(started) < TimeSpan.FromSeconds(10), $"answered after {Stopwatch.GetElapsedTime(started)}");
        var grown = ProcessMemory.PeakResidentBytes(system.Gateway.Id) - peakBefore;
        Assert.True(grown < 64 * 1024 * 1024, $"the gateway's peak memory grew by {grown / (1024 * 1024)} MiB");
    }

    private async Task<JsonElement> RunAsync(string body)
    {
        var started = await system.Http.StartRunAsync(body);
        return await system.Http.WaitUntilFinishedAsync($"/api/runs/{started.GetProperty("id").GetString()}");
    }

    // The gateway holds the database open; read what is on disk as any other reader would.
    private static byte[] ReadShared(string path)
    {
        using var file = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
        using var copy = new MemoryStream();
        file.CopyTo(copy);
        return copy.ToArray();
    }

    public sealed class Fixture : IAsyncLifetime
    {
        /// <summary>A long random value no other text can hold by chance, sent as "Bearer &lt;value&gt;".</summary>
        public string Secret { get; } = "sk-" + Convert.ToHexString(RandomNumberGenerator.GetBytes(24));

        public GrpcJsTarget Inventory { get; private set; } = null!;

        public AppProcess Gateway { get; private set; } = null!;

        public HttpClient Http { get; private set; } = null!;

        public async Task InitializeAsync()
        {
            Inventory = await GrpcJsTarget.StartAsync();
            Gateway = await AppProcess.StartAsync("ApiGateway",
            [
                // No built-in service: the target is all this gateway calls.
                "--ServerUrl", $"http://127.0.0.1:{Ports.Unused()}",
                "--Targets:inventory:Address", Inventory.Url,
                "--Targets:inventory:Proto", GrpcJsTarget.ProtoFile,
                "--Targets:inventory:ImportPaths:0", GrpcJsTarget.ImportDirectory,
                "--Targets:inventory:Metadata:authorization", "Bearer " + Secret,
            ]);
            Http = new HttpClient { BaseAddress = Gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(120) };
        }

        public async Task DisposeAsync()
        {
            Http.Dispose();
            await Gateway.DisposeAsync();
            await Inventory.DisposeAsync();
        }
    }
}
