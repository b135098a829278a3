using System.Net;
using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.EndToEnd;

[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class LessonTests(SystemFixture system, StoppedService stopped) : IClassFixture<StoppedService>
{
    [Fact]
    public async Task KeepAliveKeepsBothConnectionsWhenThePauseIsShorterThanTheIdleTimeout()
    {
        var lesson = await system.GetRunAsync("/Lessons/keep-alive?pauseMs=0");

        Assert.False(lesson.GetProperty("withPings").GetProperty("connectionChanged").GetBoolean());
        Assert.False(lesson.GetProperty("withoutPings").GetProperty("connectionChanged").GetBoolean());
        Assert.Contains("Neither connection was closed", lesson.GetProperty("finding").GetString());
        // Two fresh channels: two connections, not one shared.
        Assert.NotEqual(
            lesson.GetProperty("withPings").GetProperty("connectionBeforePause").GetString(),
            lesson.GetProperty("withoutPings").GetProperty("connectionBeforePause").GetString());
    }

    [Theory]
    [InlineData(100)]
    [InlineData(65536)]
    public async Task PayloadSizesAreThoseOfTheAnswerWithBytesFieldsAndOfTheSameDataAsText(int payloadBytes)
    {
        var lesson = await system.GetRunAsync($"/Lessons/payload?payloadBytes={payloadBytes}");
        var sizes = lesson.GetProperty("sizes");

        Assert.Equal(payloadBytes, sizes.GetProperty("dataLoad1Bytes").GetInt32());
        Assert.Equal(payloadBytes, sizes.GetProperty("dataLoad2Bytes").GetInt32());
        var binary = sizes.GetProperty("protobufBytes").GetInt32();
        // Two fields of N bytes, each with a tag and a length, plus the figures and the connection id.
        Assert.InRange(binary, (2 * payloadBytes) + 4, (2 * payloadBytes) + 100);
        var base64Length = 4 * ((payloadBytes + 2) / 3);
        var expectedText = binary + (2 * (base64Length - payloadBytes)) + (2 * (VarintSize(base64Length) - VarintSize(payloadBytes)));
        Assert.Equal(expectedText, sizes.GetProperty("protobufBase64TextBytes").GetInt32());
        Assert.Equal(Math.Round((double)expectedText / binary, 3), sizes.GetProperty("base64TextRatio").GetDouble());
        Assert.True(sizes.GetProperty("protobufJsonBytes").GetInt32() > expectedText, "JSON carries base64 plus names and punctuation");
        Assert.True(sizes.GetProperty("gatewayJsonBytes").GetInt32() > 2 * base64Length);
        Assert.True(lesson.GetProperty("callMs").GetDouble() > 0);
    }

    [Fact]
    public async Task PayloadBenchmarkShowsWrappingCopiesNothingAndCopyingAllocatesThePayload()
    {
        const int payloadBytes = 65536;

        var lesson = await system.GetRunAsync($"/Lessons/payload?payloadBytes={payloadBytes}");

        var costs = lesson.GetProperty("copyBenchmark").GetProperty("operations").EnumerateArray()
            .ToDictionary(cost => cost.GetProperty("operation").GetString()!, cost => cost);
        Assert.InRange(Allocated(costs, "UnsafeByteOperations.UnsafeWrap"), 0, 64);
        Assert.InRange(Allocated(costs, "MemoryMarshal.TryGetArray"), 0, 64);
        Assert.True(Allocated(costs, "ByteString.CopyFrom") >= payloadBytes);
        Assert.True(Allocated(costs, "ByteString.ToByteArray") >= payloadBytes);
        Assert.All(costs.Values, cost => Assert.True(cost.GetProperty("nanosecondsPerOperation").GetDouble() > 0));
        Assert.True(lesson.GetProperty("unsafeWrapSharesTheArray").GetBoolean());
    }

    [Theory]
    [InlineData("/Lessons/keep-alive?pauseMs=-1", "pauseMs was '-1'", "from 0 to 120000")]
    [InlineData("/Lessons/keep-alive?pauseMs=120001", "pauseMs was '120001'", "from 0 to 120000")]
    [InlineData("/Lessons/keep-alive?pauseMs=1.5", "pauseMs was '1.5'", "from 0 to 120000")]
    [InlineData("/Lessons/payload?payloadBytes=0", "payloadBytes was '0'", "from 1 to 1048576")]
    [InlineData("/Lessons/payload?payloadBytes=1048577", "payloadBytes was '1048577'", "from 1 to 1048576")]
    [InlineData("/Lessons/payload?payloadBytes=lots", "payloadBytes was 'lots'", "from 1 to 1048576")]
    public async Task LessonParameterOutsideItsRangeIsA400ThatSaysWhatIsAllowed(string route, string what, string allowed)
    {
        using var response = await system.Http.GetAsync(route);

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        var detail = (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString();
        Assert.Contains(what, detail);
        Assert.Contains(allowed, detail);
    }

    [Theory]
    [InlineData("/Lessons/keep-alive")]
    [InlineData("/Lessons/payload")]
    public Task LessonAgainstAStoppedServiceIsA503NamingTheConfiguredAddressWithinSeconds(string route) =>
        stopped.AssertAnswers503NamingTheAddressWithinSecondsAsync(route);

    [Fact]
    public async Task CallerWhoDisconnectsDuringTheKeepAlivePauseEndsIt()
    {
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", system.Service.Url]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress };
        using var leave = new CancellationTokenSource(TimeSpan.FromMilliseconds(1500));

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => http.GetAsync("/Lessons/keep-alive?pauseMs=120000", leave.Token));

        var ended = await gateway.WaitForOutputAsync(line => line.Contains("responded 499"), TimeSpan.FromSeconds(5));
        Assert.True(ended, "the gateway kept pausing after the caller left:" + Environment.NewLine + gateway.Output);
    }

    [Fact]
    public async Task SwaggerListsBothLessonsWithTheirLessonAndLimits()
    {
        using var document = JsonDocument.Parse(await system.Http.GetStringAsync("/swagger/v1/swagger.json"));
        var paths = document.RootElement.GetProperty("paths");

        var keepAlive = paths.GetProperty("/Lessons/keep-alive").GetProperty("get");
        var payload = paths.GetProperty("/Lessons/payload").GetProperty("get");
        Assert.StartsWith("Lesson 3:", keepAlive.GetProperty("description").GetString());
        Assert.Contains("0 to 120000", keepAlive.GetProperty("description").GetString());
        Assert.StartsWith("Lesson 5:", payload.GetProperty("description").GetString());
        Assert.Contains("1 to 1048576", payload.GetProperty("description").GetString());
        Assert.Equal("Lessons", keepAlive.GetProperty("tags")[0].GetString());
    }

    private static double Allocated(Dictionary<string, JsonElement> costs, string operation) =>
        costs.Single(cost => cost.Key.StartsWith(operation, StringComparison.Ordinal)).Value.GetProperty("allocatedBytesPerOperation").GetDouble();

    private static int VarintSize(int value) => value < 128 ? 1 : value < 16384 ? 2 : value < 2097152 ? 3 : 4;
}

/// <summary>Its own service with a short idle timeout, in its own collection so its pause overlaps the other tests.</summary>
[Trait("Category", "Process")]
public sealed class KeepAliveIdleTimeoutTests
{
    [Fact]
    public async Task AfterAPauseLongerThanTheIdleTimeoutOnlyTheConnectionWithoutPingsIsNew()
    {
        // 3 s, checked by Kestrel once a second; pings go out every 1–2 s, and the pause outlasts the timeout by 2 s.
        await using var service = await AppProcess.StartAsync("PerformanceService", ["--Kestrel:Limits:KeepAliveTimeout", "00:00:03"]);
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", service.Url]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(30) };

        using var response = await http.GetAsync("/Lessons/keep-alive?pauseMs=5000");
        var body = await response.Content.ReadAsStringAsync();

        Assert.True(response.IsSuccessStatusCode, body);
        var lesson = JsonDocument.Parse(body).RootElement;
        var withoutPings = lesson.GetProperty("withoutPings");
        var withPings = lesson.GetProperty("withPings");
        Assert.True(withoutPings.GetProperty("connectionChanged").GetBoolean(), $"the idle connection without pings was not replaced: {body}");
        Assert.False(withPings.GetProperty("connectionChanged").GetBoolean(), $"the pinged connection was replaced: {body}");
        Assert.Equal(5000, lesson.GetProperty("pauseMs").GetInt32());
        Assert.All(new[] { withPings, withoutPings }, channel =>
        {
            Assert.True(channel.GetProperty("warmCallMs").GetDouble() > 0);
            Assert.True(channel.GetProperty("afterPauseCallMs").GetDouble() > 0);
        });
        Assert.Contains("stayed open", lesson.GetProperty("finding").GetString());
    }
}
