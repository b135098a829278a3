using System.Net;
using System.Text;
using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.Faults;

/// <summary>
/// Issue 20's attacks on the real gateway: no string or list a request carries is stored, echoed or held beyond its
/// stated bound; each is a 400 (or 413) of a few KB that names the field and the bound, and nothing is stored.
/// </summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class RequestBoundsTests(SystemFixture system, ITestOutputHelper output)
{
    // "No 400 above a few KB": the sentence plus problem+json's own fields.
    private const int MostProblemBytes = 3 * 1024;

    private static string Json(object body) => JsonSerializer.Serialize(body);

    // Built here rather than in the data: xUnit would print a megabyte as the test's name.
    private static (string Path, string Body) Request(string what) => what switch
    {
        "a threshold of a million spaces" => ("/api/runs", Json(new { strategy = "client-wrapper", count = 10, thresholds = new[] { "p99" + new string(' ', 1_000_000) + "< 5ms" } })),
        "a threshold with a percentile of a million nines" => ("/api/runs", Json(new { strategy = "client-wrapper", count = 10, thresholds = new[] { "p99." + new string('9', 1_000_000) + " < 5ms" } })),
        "a percentile of a million nines" => ("/api/runs", "{\"strategy\":\"client-wrapper\",\"count\":10,\"percentiles\":[99." + new string('9', 1_000_000) + "]}"),
        "ten thousand percentiles" => ("/api/suites", Json(new { count = 10, percentiles = Enumerable.Repeat(50, 10_000) })),
        "ten thousand stages" => ("/api/runs", Json(new { strategy = "client-wrapper", load = "ramping", stages = Enumerable.Repeat(new { duration = 1, target = 10 }, 10_000) })),
        "ten thousand strategies" => ("/api/suites", Json(new { count = 10, strategies = Enumerable.Repeat("client-wrapper", 10_000) })),
        "a field named with half a megabyte" => ("/api/runs", "{\"" + new string('z', 500_000) + "\": 1}"),
        "a strategy named with half a megabyte" => ("/api/runs", Json(new { strategy = new string('x', 500_000), count = 10 })),
        "a stage that is half a megabyte of JSON" => ("/api/runs", Json(new { strategy = "client-wrapper", load = "ramping", stages = new object[] { new { d = new string('s', 500_000) } } })),
        "a comparison's contender named with half a megabyte" => ("/api/comparisons", Json(new { workload = "small-ints", contenders = new[] { new string('c', 500_000), "grpc-h2-cleartext" } })),
        "a lesson's repetitions of half a megabyte" => ("/api/lessons/streaming/experiments", Json(new { repetitions = new string('9', 500_000) })),
        _ => throw new ArgumentOutOfRangeException(nameof(what)),
    };

    [Theory]
    [InlineData("a threshold of a million spaces", "thresholds[0] is 1,000,008 characters long; at most 100 are allowed.")]
    [InlineData("a threshold with a percentile of a million nines", "thresholds[0] is 1,000,010 characters long; at most 100 are allowed.")]
    [InlineData("a percentile of a million nines", "percentiles[0] is 1,000,003 characters long; at most 64 are allowed.")]
    [InlineData("ten thousand percentiles", "percentiles holds 10,000 items; at most 20 are allowed")]
    [InlineData("ten thousand stages", "stages holds 10,000 items; at most 100 are allowed")]
    [InlineData("ten thousand strategies", "strategies holds 10,000 names; at most 32 are allowed")]
    [InlineData("a field named with half a megabyte", "(cut; 500,000 characters in all)' is not a run setting")]
    [InlineData("a strategy named with half a megabyte", "strategy is 500,000 characters long; at most 64 are allowed.")]
    [InlineData("a stage that is half a megabyte of JSON", "stages must be an array of")]
    [InlineData("a comparison's contender named with half a megabyte", "a name in contenders is 500,000 characters long; at most 64 are allowed.")]
    [InlineData("a lesson's repetitions of half a megabyte", "repetitions is 500,000 characters long; at most 64 are allowed.")]
    public async Task AValueBeyondItsBoundIsASmall400NamingTheFieldAndTheBoundAndNothingIsStored(string what, string expected)
    {
        var (path, body) = Request(what);
        var before = await StoredAsync();

        using var response = await system.Http.PostJsonAsync(path, body);
        var answer = await response.Content.ReadAsStringAsync();

        output.WriteLine($"{what}: {body.Length:#,0} characters sent, {(int)response.StatusCode} with {answer.Length:#,0} bytes");
        Assert.True(response.StatusCode == HttpStatusCode.BadRequest, $"{what}: {(int)response.StatusCode} {Excerpt.Of(answer, 500)}");
        Assert.True(answer.Length <= MostProblemBytes, $"{what}: the problem is {answer.Length:#,0} bytes: {Excerpt.Of(answer, 500)}");
        var detail = JsonDocument.Parse(answer).RootElement.GetProperty("detail").GetString()!;
        Assert.Contains(expected, detail);
        // Whatever it quotes of the request, it quotes in part.
        Assert.True(detail.Length <= 600, $"{what}: the sentence is {detail.Length:#,0} characters long");

        Assert.Equal(before, await StoredAsync());
    }

    [Fact]
    public async Task TheIssuesTwentyThresholdsOfAMillionAndAHalfSpacesAreA413NamingTheBodyLimitAndNothingIsStored()
    {
        var body = Json(new { strategy = "client-wrapper", count = 10, thresholds = Enumerable.Repeat("p99" + new string(' ', 1_450_000) + "< 5ms", 20) });
        var before = await StoredAsync();

        var response = await RawHttp.SendAsync(system.Gateway.BaseAddress, RawHttp.Post("/api/runs", Encoding.UTF8.GetBytes(body)), TimeSpan.FromSeconds(60));

        Assert.True(response.Status == 413 && response.IsProblem, Excerpt.Of(response.ToString(), 500));
        Assert.Contains("1048576 bytes", response.Detail);
        Assert.Contains("Kestrel:Limits:MaxRequestBodySize", response.Detail);
        Assert.True(response.Body.Length <= MostProblemBytes, $"{response.Body.Length} bytes");
        Assert.Equal(before, await StoredAsync());
    }

    [Theory]
    [InlineData("thresholds", "percentiles holds 500 items; at most 20 are allowed")]
    [InlineData("unknown", "(cut; 6,000 characters in all) is not a parameter of this route")]
    public async Task AChapterRouteQueryBeyondItsBoundIsASmall400QuotingItOnlyInPart(string what, string expected)
    {
        var query = what == "unknown"
            ? $"{new string('q', 6000)}=1"
            : $"thresholds=p99{new string('9', 6000)}%20%3C%205ms&percentiles={string.Join(',', Enumerable.Repeat(50, 500))}";

        using var response = await system.Http.GetAsync($"/Performance/client-wrapper/10?{query}");
        var answer = await response.Content.ReadAsStringAsync();

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        Assert.True(answer.Length <= MostProblemBytes, $"{answer.Length} bytes");
        Assert.Contains(expected, answer);
    }

    /// <summary>A plan at every bound is accepted, runs, and is stored within a stated size: its plan and verdict are a few KB.</summary>
    [Fact]
    public async Task ARunAtEveryBoundIsStoredWithinItsStatedSize()
    {
        var thresholds = Enumerable.Range(0, 20).Select(index => $"p{50 + index} < {index + 10}s".PadRight(100)).ToArray();
        var started = await system.Http.StartRunAsync(Json(new
        {
            strategy = "client-wrapper", load = "ramping", rate = 50,
            stages = Enumerable.Repeat(new { duration = 0.1, target = 50 }, 100),
            percentiles = Enumerable.Range(1, 20).Select(percentile => percentile * 4.5),
            thresholds,
        }));

        var run = await system.Http.WaitUntilFinishedAsync($"/api/runs/{started.GetProperty("id").GetString()}", TimeSpan.FromSeconds(120));
        var stored = run.GetRawText();

        output.WriteLine($"stored run at every bound: {stored.Length:#,0} characters; plan {run.GetProperty("plan").GetRawText().Length:#,0}, verdict {run.GetProperty("verdict").GetRawText().Length:#,0}");
        Assert.Equal("Completed", run.GetProperty("state").GetString());
        Assert.Equal(20, run.GetProperty("plan").GetProperty("thresholds").GetArrayLength());
        Assert.True(run.GetProperty("plan").GetRawText().Length + run.GetProperty("verdict").GetRawText().Length <= 16 * 1024, "plan and verdict over 16 KB");
        Assert.True(stored.Length <= 64 * 1024, $"the stored run is {stored.Length:#,0} characters");
    }

    private async Task<long> StoredAsync() => (await system.Http.GetJsonAsync("/api/runs?limit=1")).GetProperty("total").GetInt64();
}
