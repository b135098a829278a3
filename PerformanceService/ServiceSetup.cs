using System.ComponentModel.DataAnnotations;
using GrpcBestPractices.ServiceDefaults;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;
using PerformanceService.Metrics;
using PerformanceService.Services;

namespace PerformanceService;

public sealed class MonitorOptions
{
    public const string Section = "Monitor";

    /// <summary>How often the service samples its own CPU, memory, threads and connections.</summary>
    [Range(50, 10_000, ErrorMessage = "Monitor:SampleIntervalMilliseconds must be between 50 and 10000.")]
    public int SampleIntervalMilliseconds { get; set; } = 250;

    /// <summary>
    /// Bytes of answers built and not yet written (each holds its two payloads); an answer beyond it is refused with
    /// RESOURCE_EXHAUSTED, so 10 000 calls of 1 MiB payloads cannot build 20 GiB at once. At least two of the largest answers.
    /// </summary>
    [Range(4, 1_048_576, ErrorMessage = "Monitor:MaxAnswerMegabytesInFlight must be between 4 and 1048576.")]
    public int MaxAnswerMegabytesInFlight { get; set; } = 1024;
}

/// <summary>
/// How long Kestrel keeps an HTTP/2 connection that carries no streams before closing it; a PING from the client
/// resets the timer (measured: see docs/lessons.md, lesson 3). Section <c>Kestrel:Limits</c>, which Kestrel itself does not bind.
/// </summary>
public sealed class IdleConnectionOptions
{
    public const string Section = "Kestrel:Limits";

    [Range(typeof(TimeSpan), "00:00:01", "1.00:00:00", ErrorMessage = "Kestrel:Limits:KeepAliveTimeout must be between 00:00:01 and 1.00:00:00.")]
    public TimeSpan KeepAliveTimeout { get; set; } = TimeSpan.FromSeconds(130);
}

public static class ServiceSetup
{
    /// <summary>
    /// The idle timeout as a typed, validated setting. Without this, <c>Kestrel:Limits</c> in configuration is silently
    /// ignored (measured: a 3 s value left idle connections open for 8 s); Kestrel's own default is 130 s.
    /// </summary>
    public static WebApplicationBuilder AddIdleConnectionTimeout(this WebApplicationBuilder builder)
    {
        builder.Services.AddValidatedOptions<IdleConnectionOptions>(IdleConnectionOptions.Section);
        builder.Services.AddOptions<KestrelServerOptions>().Configure<IOptions<IdleConnectionOptions>>((kestrel, idle) =>
            kestrel.Limits.KeepAliveTimeout = idle.ValidOrNull()?.KeepAliveTimeout ?? kestrel.Limits.KeepAliveTimeout);
        return builder;
    }

    public static WebApplicationBuilder AddProcessSampling(this WebApplicationBuilder builder)
    {
        builder.Services.AddValidatedOptions<MonitorOptions>(MonitorOptions.Section);
        builder.Services.TryAddSingleton(TimeProvider.System);
        builder.Services.AddSingleton<ProcessSampler>();
        builder.Services.AddHostedService(services => services.GetRequiredService<ProcessSampler>());
        return builder;
    }

    /// <summary>
    /// performance.Monitor on grpc-dotnet, with the standard health service (SERVING only while the sampler that feeds
    /// every answer runs) and server reflection, so grpcurl, ghz or Postman can call it without the proto file.
    /// </summary>
    public static WebApplicationBuilder AddMonitorService(this WebApplicationBuilder builder)
    {
        // Registered, grpc-dotnet resolves the service from DI for each call instead of constructing one per call.
        builder.Services.AddSingleton<AnswerBudget>();
        builder.Services.AddSingleton<PerformanceMonitor>();
        builder.Services.AddGrpc();
        builder.Services.AddGrpcReflection();
        builder.Services.AddGrpcHealthChecks(health =>
            {
                // "" is the whole server, as grpc health probes ask by default; the service is also asked by name.
                health.Services.Map(string.Empty, _ => true);
                health.Services.Map(Monitor.Descriptor.FullName, _ => true);
            })
            .AddCheck<SamplerHealthCheck>(SamplerHealthCheck.Name);
        return builder;
    }
}
