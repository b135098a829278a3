using System.Net;
using System.Text;
using System.Text.Json;
using Grpc.Core;
using Grpc.Net.Client;
using GrpcBestPractices.Tests.Infrastructure;
using Performance;

namespace GrpcBestPractices.Tests.Faults;

/// <summary>Issue 13, item 1: no valid request can exhaust the gateway's or the service's memory, and every piece of work takes a slot.</summary>
[Trait("Category", "Process")]
public sealed class MemoryBudgetTests : IAsyncLifetime
{
    private AppProcess _service = null!;

    public async Task InitializeAsync() => _service = await AppProcess.StartAsync("PerformanceService");

    public async Task DisposeAsync() => await _service.DisposeAsync();

    [Fact]
    public async Task ARunOverTheMemoryBudgetIs400WithTheEstimateTheLimitAndHowToFit()
    {
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", _service.Url, "--Runs:MaxRunMemoryMegabytes", "64"]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress };

        using var kept = await http.GetAsync("/Performance/client-wrapper/1000?payloadBytes=65536");
        using var background = await http.PostJsonAsync("/api/runs", """{"strategy": "single-connection", "count": 100, "concurrency": 100, "payloadBytes": 1048576}""");
        using var notKept = await http.GetAsync("/Performance/client-wrapper/1000?payloadBytes=65536&includeStatuses=false");

        Assert.Equal(HttpStatusCode.BadRequest, kept.StatusCode);
        var problem = await SystemFixture.ReadProblemAsync(kept);
        Assert.Equal("The run would not fit its memory budget", problem.GetProperty("title").GetString());
        var detail = problem.GetProperty("detail").GetString();
        Assert.Contains("would need about 168 MiB", detail);
        Assert.Contains("the 64 MiB a run may use (Runs:MaxRunMemoryMegabytes)", detail);
        Assert.Contains("includeStatuses=false", detail);
        Assert.Equal(HttpStatusCode.BadRequest, background.StatusCode);
        Assert.Contains("a smaller concurrency", (await SystemFixture.ReadProblemAsync(background)).GetProperty("detail").GetString());
        Assert.Equal(HttpStatusCode.OK, notKept.StatusCode);
        Assert.Equal(1000, JsonDocument.Parse(await notKept.Content.ReadAsStringAsync()).RootElement.GetProperty("stats").GetProperty("succeeded").GetInt64());
    }

    [Fact]
    public async Task TheCliRefusesARunOverTheBudgetAsAUsageErrorWithTheSameSentence()
    {
        var result = await CliProcess.RunAsync("--target", _service.Url, "--strategy", "single-connection", "--count", "10000", "--concurrency", "10000", "--payload-bytes", "1048576");

        Assert.Equal(2, result.ExitCode);
        Assert.Contains("This run would need about 40,157 MiB (40,157 MiB for 10000 call(s) in flight", result.Error);
        Assert.Contains("a smaller concurrency", result.Error);
    }

    [Fact]
    public async Task ALargeStatusesAnswerStreamsFiguresFirstWithTheGatewaysPeakMemoryWellBelowItsSize()
    {
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", _service.Url, "--Runs:MaxRunMemoryMegabytes", "4096"]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = TimeSpan.FromMinutes(3) };

        using var response = await http.GetAsync("/Performance/client-wrapper/2000?payloadBytes=262144", HttpCompletionOption.ResponseHeadersRead);
        await using var body = await response.Content.ReadAsStreamAsync();
        var head = new byte[64 * 1024];
        var headLength = await body.ReadAtLeastAsync(head, head.Length, throwOnEndOfStream: false);
        var spoolsWhileAnswering = OpenSpools(gateway.Id);
        var total = headLength + await CountRestAsync(body);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        var start = Encoding.UTF8.GetString(head, 0, headLength);
        Assert.True(start.IndexOf("\"stats\"", StringComparison.Ordinal) is var stats and >= 0 && stats < start.IndexOf("\"performanceStatuses\"", StringComparison.Ordinal), start[..200]);
        // 2000 answers of two 256 KiB payloads as base64: about 1.4 GB, of which the gateway may hold a third at most.
        Assert.True(total > 1_390_000_000, $"The answer was {total} bytes.");
        var peak = ProcessMemory.PeakResidentBytes(gateway.Id);
        Assert.True(peak < total / 3, $"The gateway's peak memory was {peak / 1048576} MiB for an answer of {total / 1048576} MiB.");
        Assert.Equal(1, spoolsWhileAnswering);
        Assert.True(await WaitAsync(() => OpenSpools(gateway.Id) == 0, TimeSpan.FromSeconds(10)), "The statuses' spool file was still open after the answer.");
    }

    [Fact]
    public async Task TheServiceRefusesAnswersBeyondItsBudgetWithResourceExhausted()
    {
        await using var service = await AppProcess.StartAsync("PerformanceService", ["--Monitor:MaxAnswerMegabytesInFlight", "4"]);
        using var channel = GrpcChannel.ForAddress(service.Url);
        var client = new Monitor.MonitorClient(channel);
        var request = new PerformanceStatusRequest { ClientName = "budget", PayloadBytes = 1024 * 1024 };

        var outcomes = await Task.WhenAll(Enumerable.Range(0, 100).Select(async _ =>
        {
            try
            {
                await client.GetPerformanceAsync(request);
                return null;
            }
            catch (RpcException refused)
            {
                return refused;
            }
        }));

        var refusal = Assert.Single(outcomes.OfType<RpcException>().Select(error => error.Status).DistinctBy(status => status.StatusCode));
        Assert.Equal(StatusCode.ResourceExhausted, refusal.StatusCode);
        Assert.Contains("Monitor:MaxAnswerMegabytesInFlight", refusal.Detail);
        Assert.Contains(outcomes, outcome => outcome is null);
        // The budget comes back as answers are written: once the burst is over, a 2 MiB answer fits again.
        Assert.True(await WaitAsync(async () => (await client.GetPerformanceAsync(request)).DataLoad1.Length == request.PayloadBytes, TimeSpan.FromSeconds(10)));
    }

    [Theory]
    [InlineData("/Lessons/payload?payloadBytes=1048576")]
    [InlineData("/Lessons/keep-alive?pauseMs=0")]
    public async Task LessonRoutesTakeAnInFlightSlotAndGet429WhenAllAreTaken(string lesson)
    {
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", _service.Url, "--Runs:MaxRunsInFlight", "1"]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress };
        var run = await http.StartRunAsync("""{"strategy": "client-wrapper", "count": 1000, "delayMs": 50}""");

        using var refused = await http.GetAsync(lesson);
        await http.PostAsync($"/api/runs/{run.GetProperty("id").GetString()}/cancel", null);
        await http.WaitUntilFinishedAsync($"/api/runs/{run.GetProperty("id").GetString()}");
        using var admitted = await http.GetAsync(lesson);

        Assert.Equal(HttpStatusCode.TooManyRequests, refused.StatusCode);
        Assert.NotNull(refused.Headers.RetryAfter?.Delta);
        Assert.Contains("Runs:MaxRunsInFlight", (await SystemFixture.ReadProblemAsync(refused)).GetProperty("detail").GetString());
        Assert.Equal(HttpStatusCode.OK, admitted.StatusCode);
    }

    [Fact]
    public async Task ConcurrentPayloadLessonsBeyondTheLimitGet429()
    {
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", _service.Url, "--Runs:MaxRunsInFlight", "2"]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = TimeSpan.FromMinutes(2) };

        var statuses = await Task.WhenAll(Enumerable.Range(0, 50).Select(async _ =>
        {
            using var response = await http.GetAsync("/Lessons/payload?payloadBytes=1048576");
            return response.StatusCode;
        }));

        Assert.Contains(HttpStatusCode.TooManyRequests, statuses);
        Assert.Contains(HttpStatusCode.OK, statuses);
        Assert.All(statuses, status => Assert.True(status is HttpStatusCode.OK or HttpStatusCode.TooManyRequests, status.ToString()));
    }

    private static async Task<long> CountRestAsync(Stream body)
    {
        var buffer = new byte[256 * 1024];
        long total = 0;
        int read;
        while ((read = await body.ReadAsync(buffer)) > 0)
        {
            total += read;
        }

        return total;
    }

    // The spool is unlinked once open, so only the process's descriptors show whether it is still held.
    private static int OpenSpools(int processId) =>
        new DirectoryInfo($"/proc/{processId}/fd").EnumerateFileSystemInfos().Count(fd => fd.LinkTarget?.Contains("grpc-statuses-", StringComparison.Ordinal) == true);

    private static Task<bool> WaitAsync(Func<bool> condition, TimeSpan timeout) => WaitAsync(() => Task.FromResult(condition()), timeout);

    private static async Task<bool> WaitAsync(Func<Task<bool>> condition, TimeSpan timeout)
    {
        var deadline = DateTime.UtcNow + timeout;
        while (true)
        {
            try
            {
                if (await condition())
                {
                    return true;
                }
            }
            catch (RpcException) when (DateTime.UtcNow < deadline)
            {
            }

            if (DateTime.UtcNow >= deadline)
            {
                return false;
            }

            await Task.Delay(50);
        }
    }
}
