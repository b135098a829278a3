using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Options;

namespace PerformanceService.Metrics;

/// <summary>
/// Ready means the figures in every answer are live: the sampler has sampled, and recently. A sampler that stopped
/// (or never started) would make the service answer stale CPU, memory and connection counts, so it is not SERVING then.
/// </summary>
public sealed class SamplerHealthCheck(ProcessSampler sampler, IOptions<MonitorOptions> options) : IHealthCheck
{
    public const string Name = "process-sampler";

    /// <summary>Missed ticks tolerated before the figures count as stale: a loaded machine may delay a few.</summary>
    public const int MissedTicksAllowed = 4;

    public Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default)
    {
        var interval = TimeSpan.FromMilliseconds(options.Value.SampleIntervalMilliseconds);
        var allowed = interval * MissedTicksAllowed + TimeSpan.FromSeconds(1);
        return Task.FromResult(sampler.SinceLastSample switch
        {
            null => HealthCheckResult.Unhealthy("The process sampler has not taken its first sample yet."),
            { } age when age > allowed => HealthCheckResult.Unhealthy(
                $"The process sampler last sampled {age.TotalSeconds:0.0} s ago; it samples every {interval.TotalMilliseconds:0} ms (Monitor:SampleIntervalMilliseconds)."),
            { } age => HealthCheckResult.Healthy($"Sampled {age.TotalMilliseconds:0} ms ago."),
        });
    }
}
