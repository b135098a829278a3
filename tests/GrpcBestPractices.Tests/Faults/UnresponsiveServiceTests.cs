using System.Diagnostics;
using System.Globalization;
using System.Net;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.Faults;

/// <summary>
/// A hung service (SIGSTOP: it accepts nothing and answers nothing) ends a run within the silence window instead of
/// holding it until every call's deadline or Runs:MaxRunSeconds; the service is always resumed (SIGCONT) afterwards.
/// </summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class UnresponsiveServiceTests
{
    private const int SilenceSeconds = 2;

    // The window, plus time for a loaded machine to notice (a 100 ms tick), stop the calls and store the run.
    private static readonly TimeSpan AnswerBound = TimeSpan.FromSeconds(SilenceSeconds + 8);

    [Theory]
    [InlineData("/Performance/client-wrapper/1000")]
    [InlineData("/Concurrency/single-connection/1000")]
    public async Task AChapterRunAgainstAStoppedServiceAnswers503WithinTheSilenceWindowNamingTheAddressAndANewRunWorksAfterItResumes(string route)
    {
        await using var system = await HungSystem.StartAsync();

        await system.WhileServiceStoppedAsync(async () =>
        {
            var clock = Stopwatch.StartNew();
            using var response = await system.Http.GetAsync(route);

            Assert.True(clock.Elapsed < AnswerBound, $"the answer took {clock.Elapsed}");
            Assert.True(response.StatusCode == HttpStatusCode.ServiceUnavailable,
                $"a stopped service's run answered {(int)response.StatusCode} (service threads '{system.ServiceThreadStates}'): {Head(await response.Content.ReadAsStringAsync())}");
            var problem = await SystemFixture.ReadProblemAsync(response);
            Assert.Equal("Failed", problem.GetProperty("state").GetString());
            Assert.Contains($"no answer from {system.ServiceAddress} for {SilenceSeconds} s while", problem.GetProperty("detail").GetString());
        });

        using var after = await system.Http.GetAsync("/Performance/client-wrapper/5");
        Assert.Equal(HttpStatusCode.OK, after.StatusCode);
    }

    [Fact]
    public async Task AStreamWhoseServiceStopsMidwayEndsFailedNeverCompletedWithLostMessages()
    {
        await using var system = await HungSystem.StartAsync();
        var run = system.Http.GetAsync("/Performance/streaming-call/100000?includeStatuses=false&delayMs=1");
        await system.Http.WaitForRunningProgressAsync(calls: 100);

        await system.WhileServiceStoppedAsync(async () =>
        {
            var clock = Stopwatch.StartNew();
            using var response = await run;

            Assert.True(clock.Elapsed < AnswerBound, $"the answer took {clock.Elapsed}");
            Assert.Equal(HttpStatusCode.ServiceUnavailable, response.StatusCode);
            var problem = await SystemFixture.ReadProblemAsync(response);
            Assert.Equal("Failed", problem.GetProperty("state").GetString());
            Assert.Contains("stream message(s) were unanswered", problem.GetProperty("detail").GetString());
            Assert.InRange(problem.GetProperty("completedCalls").GetInt64(), 100, 99_999);
        });
    }

    [Fact]
    public async Task ABackgroundRunAgainstAStoppedServiceIsStoredFailedWithTheReason()
    {
        await using var system = await HungSystem.StartAsync();

        await system.WhileServiceStoppedAsync(async () =>
        {
            var started = await system.Http.StartRunAsync("""{"strategy": "client-wrapper", "count": 1000}""");
            var ended = await system.Http.WaitUntilFinishedAsync($"/api/runs/{started.GetProperty("id").GetString()}", AnswerBound);

            Assert.Equal("Failed", ended.GetProperty("state").GetString());
            Assert.Contains($"no answer from {system.ServiceAddress}", ended.GetProperty("error").GetString());
        });
    }

    [Fact]
    public async Task ASuiteWhoseEveryRunFailedIsStoredFailedNotCompleted()
    {
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", $"http://127.0.0.1:{Ports.Unused()}"]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress };

        var started = await http.StartRunAsync("""{"count": 3}""", "/api/suites");
        var ended = await http.WaitUntilFinishedAsync($"/api/suites/{started.GetProperty("id").GetString()}");

        Assert.Equal("Failed", ended.GetProperty("state").GetString());
        Assert.StartsWith("Every run failed; the first: The service is unreachable", ended.GetProperty("error").GetString());
    }

    /// <summary>The start of an answer, for a failure message: the figures come before the per-call statuses.</summary>
    private static string Head(string body) => body.Length <= 2000 ? body : body[..2000] + "…";

    /// <summary>A service and a gateway with a short silence window, warmed by one run so the connection is up before the service stops.</summary>
    private sealed class HungSystem(AppProcess service, AppProcess gateway) : IAsyncDisposable
    {
        public HttpClient Http { get; } = new() { BaseAddress = gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(120) };

        public string ServiceAddress => service.Url.TrimEnd('/');

        public string ServiceThreadStates => service.ThreadStates;

        public static async Task<HungSystem> StartAsync()
        {
            var service = await AppProcess.StartAsync("PerformanceService");
            AppProcess gateway;
            try
            {
                gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", service.Url, "--Runs:SilenceSeconds", SilenceSeconds.ToString(CultureInfo.InvariantCulture)]);
            }
            catch
            {
                await service.DisposeAsync();
                throw;
            }

            var system = new HungSystem(service, gateway);
            // Warm both processes first. A cold service on a loaded machine can be silent for longer than this gateway's
            // short window on its very first calls (the window doing its job), so the warm-up may take a few runs.
            var warm = HttpStatusCode.ServiceUnavailable;
            for (var attempt = 0; attempt < 5 && warm != HttpStatusCode.OK; attempt++)
            {
                using var response = await system.Http.GetAsync("/Performance/client-wrapper/5");
                warm = response.StatusCode;
            }

            Assert.Equal(HttpStatusCode.OK, warm);
            return system;
        }

        /// <summary>
        /// Runs <paramref name="test"/> with every thread of the service stopped, and resumes it whatever happens. Nothing in
        /// the test resumes it, so a test that fails while the service is found running again proves nothing about a hung
        /// service: it is run once more, and a second such failure says so.
        /// </summary>
        public async Task WhileServiceStoppedAsync(Func<Task> test)
        {
            for (var attempt = 1; ; attempt++)
            {
                await service.StopAsync();
                try
                {
                    await test();
                    return;
                }
                catch (Exception failure) when (!service.IsStopped && attempt == 2)
                {
                    throw new InvalidOperationException(
                        $"The service (process {service.ProcessId}) was running again when the test failed, twice, though nothing in the test resumed it; " +
                        $"its threads' states: '{service.ThreadStates}'.", failure);
                }
                catch (Exception) when (!service.IsStopped)
                {
                }
                finally
                {
                    await service.SignalAsync("CONT");
                }
            }
        }

        public async ValueTask DisposeAsync()
        {
            Http.Dispose();
            await gateway.DisposeAsync();
            await service.DisposeAsync();
        }
    }
}
