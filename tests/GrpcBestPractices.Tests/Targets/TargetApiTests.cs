using System.Net;
using System.Text.Json;
using GrpcBestPractices.Tests.EndToEnd;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.Targets;

/// <summary>
/// A gateway with three configured targets besides the built-in service: the PerformanceService again under another name
/// (described by its own server reflection), the grpc-js Monitor server (no reflection: described by performance.proto)
/// and an address nothing listens on. GET /api/targets lists them; runs and suites call their methods through every
/// strategy's channel; bad targets, calls and data are one sentence each.
/// </summary>
[Trait("Category", "Process")]
public sealed class TargetApiTests(TargetApiTests.Fixture system) : IClassFixture<TargetApiTests.Fixture>
{
    private const string Unary = "performance.Monitor/GetPerformance";

    private const string Bidi = "performance.Monitor/GetManyPerformanceStats";

    [Fact]
    public async Task TargetsAreListedWithHowTheyAreDescribedTheirMethodsAndWhetherTheyCanBeReached()
    {
        var targets = (await system.Http.GetJsonAsync("/api/targets")).EnumerateArray().ToDictionary(target => target.GetProperty("name").GetString()!);

        Assert.Equal(["performance", "again", "gone", "grpcjs"], targets.Keys);
        Assert.True(targets["performance"].GetProperty("builtIn").GetBoolean());
        Assert.Equal("reflection", targets["again"].GetProperty("describedBy").GetString());
        Assert.Equal("proto", targets["grpcjs"].GetProperty("describedBy").GetString());
        foreach (var name in new[] { "performance", "again", "grpcjs" })
        {
            Assert.True(targets[name].GetProperty("reachable").GetBoolean(), $"{name}: {targets[name]}");
            var methods = targets[name].GetProperty("methods").EnumerateArray().ToDictionary(method => method.GetProperty("call").GetString()!);
            Assert.Equal("unary", methods[Unary].GetProperty("kind").GetString());
            Assert.Equal("bidi-streaming", methods[Bidi].GetProperty("kind").GetString());
            Assert.Contains("\"payloadBytes\"", methods[Unary].GetProperty("requestTemplate").GetString());
        }

        Assert.False(targets["gone"].GetProperty("reachable").GetBoolean());
        Assert.StartsWith("Target 'gone' at http://127.0.0.1:", targets["gone"].GetProperty("problem").GetString());
        Assert.DoesNotContain("secret-token", targets["gone"].ToString());
    }

    [Fact]
    public async Task ARefreshIsAPostForOneTargetThatOtherSitesCannotSendAndAGetAskingForOneIsRefused()
    {
        var refreshes = await Task.WhenAll(Enumerable.Range(0, 3).Select(_ => system.Http.PostJsonAsync("/api/targets/again/refresh", "")));
        using var unknown = await system.Http.PostJsonAsync("/api/targets/nowhere/refresh", "");
        using var gone = await system.Http.PostJsonAsync("/api/targets/gone/refresh", "");
        using var asGet = await system.Http.GetAsync("/api/targets?refresh=true");
        using var foreign = new HttpRequestMessage(HttpMethod.Post, "/api/targets/again/refresh") { Headers = { { "Origin", "https://elsewhere.example" } } };
        using var fromElsewhere = await system.Http.SendAsync(foreign);

        foreach (var refreshed in refreshes)
        {
            Assert.Equal(HttpStatusCode.OK, refreshed.StatusCode);
            var view = JsonDocument.Parse(await refreshed.Content.ReadAsStringAsync()).RootElement;
            Assert.Equal(("again", true), (view.GetProperty("name").GetString(), view.GetProperty("reachable").GetBoolean()));
            Assert.Contains(view.GetProperty("methods").EnumerateArray(), method => method.GetProperty("call").GetString() == Unary);
            refreshed.Dispose();
        }

        Assert.Equal(HttpStatusCode.NotFound, unknown.StatusCode);
        Assert.Contains("the configured targets are: performance, again, gone, grpcjs", (await SystemFixture.ReadProblemAsync(unknown)).GetProperty("detail").GetString());
        // A target that cannot be described is its own sentence in a 200: the refresh was done, and the others are untouched.
        Assert.Equal(HttpStatusCode.OK, gone.StatusCode);
        Assert.StartsWith("Target 'gone' at http://127.0.0.1:", JsonDocument.Parse(await gone.Content.ReadAsStringAsync()).RootElement.GetProperty("problem").GetString());
        Assert.Equal(HttpStatusCode.BadRequest, asGet.StatusCode);
        Assert.Contains("POST /api/targets/{name}/refresh", (await SystemFixture.ReadProblemAsync(asGet)).GetProperty("detail").GetString());
        Assert.Equal(HttpStatusCode.Forbidden, fromElsewhere.StatusCode);
        var targets = (await system.Http.GetJsonAsync("/api/targets")).EnumerateArray().ToDictionary(target => target.GetProperty("name").GetString()!);
        Assert.True(targets["grpcjs"].GetProperty("reachable").GetBoolean(), targets["grpcjs"].ToString());
    }

    [Theory]
    [InlineData("grpcjs", "client-wrapper")]
    [InlineData("again", "multiple-connections")]
    [InlineData("grpcjs", "streaming-call")]
    public async Task ARunCallsTheTargetsMethodWithTheGivenData(string target, string strategy)
    {
        var call = strategy == "streaming-call" ? Bidi : Unary;
        var started = await system.Http.StartRunAsync(
            $$"""{"target": "{{target}}", "call": "{{call}}", "data": {"clientName": "picker", "payloadBytes": 7}, "strategy": "{{strategy}}", "count": 40}""");
        var run = await system.Http.WaitUntilFinishedAsync($"/api/runs/{started.GetProperty("id").GetString()}");

        Assert.True(run.GetProperty("state").GetString() == "Completed", run.ToString());
        Assert.Equal(target, run.GetProperty("plan").GetProperty("target").GetString());
        Assert.Equal(call, run.GetProperty("plan").GetProperty("call").GetString());
        Assert.Equal(40, run.GetProperty("stats").GetProperty("calls").GetInt64());
        var answer = JsonDocument.Parse(run.GetProperty("stats").GetProperty("firstAnswer").GetString()!).RootElement;
        // 7 bytes of the server's filler, as base64: the data reached the server.
        Assert.Equal(7, Convert.FromBase64String(answer.GetProperty("dataLoad1").GetString()!).Length);
        // The grpc-js server names each call's connection by the client's address and port as it sees it (its getPeer()).
        Assert.Equal(target == "grpcjs", answer.GetProperty("connectionId").GetString()!.StartsWith("grpc-js ", StringComparison.Ordinal) && answer.GetProperty("connectionId").GetString()!.Contains("127.0.0.1:", StringComparison.Ordinal));
    }

    [Fact]
    public async Task ASuiteOfEveryStrategyOnAUnaryMethodLeavesOutTheStreamingCall()
    {
        var started = await system.Http.StartRunAsync($$"""{"target": "again", "call": "{{Unary}}", "count": 20}""", "/api/suites");
        var suite = await system.Http.WaitUntilFinishedAsync($"/api/suites/{started.GetProperty("id").GetString()}", TimeSpan.FromSeconds(120));

        Assert.True(suite.GetProperty("state").GetString() == "Completed", suite.ToString());
        var strategies = suite.GetProperty("strategies").EnumerateArray().Select(strategy => strategy.GetString()).ToList();
        Assert.DoesNotContain("streaming-call", strategies);
        Assert.Contains("client-wrapper", strategies);
    }

    [Theory]
    [InlineData("""{"target": "nowhere", "call": "a.B/C", "strategy": "client-wrapper", "count": 5}""", 400, "target was 'nowhere'; the configured targets are: performance, again, gone, grpcjs")]
    [InlineData("""{"target": "grpcjs", "call": "performance.Monitor/Nothing", "strategy": "client-wrapper", "count": 5}""", 400, "The target has no method performance.Monitor/Nothing; it has performance.Monitor/GetPerformance, performance.Monitor/GetManyPerformanceStats.")]
    [InlineData("""{"target": "grpcjs", "call": "performance.Monitor/GetPerformance", "data": {"delayMs": "soon"}, "strategy": "client-wrapper", "count": 5}""", 400, "delayMs")]
    [InlineData("""{"target": "grpcjs", "call": "performance.Monitor/GetPerformance", "strategy": "streaming-call", "count": 5}""", 400, "streaming-call carries every call as a message on one bidirectional stream")]
    [InlineData("""{"target": "gone", "call": "performance.Monitor/GetPerformance", "strategy": "client-wrapper", "count": 5}""", 503, "Target 'gone' at http://127.0.0.1:")]
    public async Task ABadTargetCallOrDataIsOneSentence(string body, int status, string sentence)
    {
        using var response = await system.Http.PostJsonAsync("/api/runs", body);
        var problem = await SystemFixture.ReadProblemAsync(response);

        Assert.Equal((HttpStatusCode)status, response.StatusCode);
        Assert.Contains(sentence, problem.GetProperty("detail").GetString());
    }

    [Fact]
    public async Task ARunWithoutATargetStillCallsTheBuiltInService()
    {
        var started = await system.Http.StartRunAsync("""{"strategy": "client-wrapper", "count": 20, "payloadBytes": 10}""");
        var run = await system.Http.WaitUntilFinishedAsync($"/api/runs/{started.GetProperty("id").GetString()}");

        Assert.Equal("Completed", run.GetProperty("state").GetString());
        Assert.False(run.GetProperty("plan").TryGetProperty("target", out _));
    }

    public sealed class Fixture : IAsyncLifetime
    {
        public AppProcess Service { get; private set; } = null!;

        public GrpcJsInteropTests.NodeServer Node { get; private set; } = null!;

        public AppProcess Gateway { get; private set; } = null!;

        public HttpClient Http { get; private set; } = null!;

        public async Task InitializeAsync()
        {
            Service = await AppProcess.StartAsync("PerformanceService");
            Node = await GrpcJsInteropTests.NodeServer.StartAsync();
            var proto = Path.Combine(AppProcess.RepositoryRoot, "GrpcDependencies", "Protos", "performance.proto");
            Gateway = await AppProcess.StartAsync("ApiGateway",
            [
                .. await SystemFixture.GatewayArgumentsAsync(Service),
                "--Targets:again:Address", Service.Url,
                "--Targets:grpcjs:Address", Node.Url, "--Targets:grpcjs:Proto", proto,
                "--Targets:gone:Address", $"http://127.0.0.1:{Ports.Unused()}", "--Targets:gone:Proto", proto,
                "--Targets:gone:Metadata:authorization", "secret-token",
            ]);
            Http = new HttpClient { BaseAddress = Gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(120) };
        }

        public async Task DisposeAsync()
        {
            Http.Dispose();
            await Gateway.DisposeAsync();
            await Node.DisposeAsync();
            await Service.DisposeAsync();
        }
    }
}
