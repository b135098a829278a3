using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Options;
using Microsoft.Extensions.Time.Testing;
using PerformanceService;
using PerformanceService.Metrics;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>The health the gRPC health service reports: SERVING only while the sampler that feeds every answer runs.</summary>
public sealed class SamplerHealthCheckTests : IDisposable
{
    private readonly FakeTimeProvider _time = new();
    private readonly IOptions<MonitorOptions> _options = Options.Create(new MonitorOptions { SampleIntervalMilliseconds = 250 });
    private readonly ProcessSampler _sampler;
    private readonly SamplerHealthCheck _check;

    public SamplerHealthCheckTests()
    {
        _sampler = new ProcessSampler(_options, new ConnectionCounter(), _time);
        _check = new SamplerHealthCheck(_sampler, _options);
    }

    [Fact]
    public async Task NotReadyBeforeTheSamplerHasSampled()
    {
        var result = await _check.CheckHealthAsync(new HealthCheckContext());

        Assert.Equal(HealthStatus.Unhealthy, result.Status);
        Assert.Contains("not taken its first sample", result.Description);
    }

    [Fact]
    public async Task ReadyOnceTheSamplerRunsAndWhileItKeepsSampling()
    {
        await StartSamplerAsync();
        Assert.Equal(HealthStatus.Healthy, (await _check.CheckHealthAsync(new HealthCheckContext())).Status);

        // Time passes and the sampler's timer keeps firing: still fresh. Each tick's sample runs on the thread pool, so wait for it.
        for (var tick = 0; tick < 20; tick++)
        {
            _time.Advance(TimeSpan.FromMilliseconds(250));
            await WaitUntilAsync(() => _sampler.SinceLastSample == TimeSpan.Zero, "the sampler did not sample at its tick");
        }

        Assert.Equal(HealthStatus.Healthy, (await _check.CheckHealthAsync(new HealthCheckContext())).Status);
        await _sampler.StopAsync(CancellationToken.None);
    }

    [Fact]
    public async Task NotReadyOnceTheSamplerHasStoppedSampling()
    {
        await StartSamplerAsync();
        await _sampler.StopAsync(CancellationToken.None);

        _time.Advance(TimeSpan.FromMilliseconds(250 * SamplerHealthCheck.MissedTicksAllowed) + TimeSpan.FromSeconds(1.1));
        var result = await _check.CheckHealthAsync(new HealthCheckContext());

        Assert.Equal(HealthStatus.Unhealthy, result.Status);
        Assert.Contains("Monitor:SampleIntervalMilliseconds", result.Description);
    }

    public void Dispose() => _sampler.Dispose();

    // ExecuteAsync runs on its own task since .NET 10, so the first sample comes just after StartAsync returns.
    private async Task StartSamplerAsync()
    {
        await _sampler.StartAsync(CancellationToken.None);
        await WaitUntilAsync(() => _sampler.SinceLastSample is not null, "the sampler never took its first sample");
    }

    private static async Task WaitUntilAsync(Func<bool> condition, string failure)
    {
        for (var waited = TimeSpan.Zero; !condition(); waited += TimeSpan.FromMilliseconds(5))
        {
            Assert.True(waited < TimeSpan.FromSeconds(30), failure);
            await Task.Delay(5);
        }
    }
}
