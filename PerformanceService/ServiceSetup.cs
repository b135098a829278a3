using System.ComponentModel.DataAnnotations;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using PerformanceService.Metrics;

namespace PerformanceService;

public sealed class MonitorOptions
{
    public const string Section = "Monitor";

    /// <summary>How often the service samples its own CPU, memory, threads and connections.</summary>
    [Range(50, 10_000, ErrorMessage = "Monitor:SampleIntervalMilliseconds must be between 50 and 10000.")]
    public int SampleIntervalMilliseconds { get; set; } = 250;
}

public static class ServiceSetup
{
    /// <summary>h2c only (gRPC needs HTTP/2; without TLS there is no ALPN to negotiate it), and every connection counted.</summary>
    public static WebApplicationBuilder AddHttp2OnlyKestrelWithConnectionCounting(this WebApplicationBuilder builder)
    {
        builder.Services.AddSingleton<ConnectionCounter>();
        builder.WebHost.ConfigureKestrel(kestrel =>
        {
            // Kestrel's default, stated because lesson 2 depends on it: about 100 calls in flight per connection.
            kestrel.Limits.Http2.MaxStreamsPerConnection = 100;
            kestrel.ConfigureEndpointDefaults(listen =>
            {
                listen.Protocols = HttpProtocols.Http2;
                var counter = listen.ApplicationServices.GetRequiredService<ConnectionCounter>();
                listen.Use(next => async connection =>
                {
                    counter.Opened();
                    try
                    {
                        await next(connection);
                    }
                    finally
                    {
                        counter.Closed();
                    }
                });
            });
        });
        return builder;
    }

    public static WebApplicationBuilder AddProcessSampling(this WebApplicationBuilder builder)
    {
        builder.Services.AddOptions<MonitorOptions>()
            .BindConfiguration(MonitorOptions.Section)
            .ValidateDataAnnotations()
            .ValidateOnStart();
        builder.Services.AddSingleton<ProcessSampler>();
        builder.Services.AddHostedService(services => services.GetRequiredService<ProcessSampler>());
        return builder;
    }
}
