using GrpcBestPractices.ServiceDefaults;
using System.ComponentModel.DataAnnotations;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.Options;

namespace ApiGateway.Security;

/// <summary>
/// How long a client may take to send its request headers before Kestrel answers 408 and closes the connection, and how
/// large a request body may be. Section <c>Kestrel:Limits</c>, which Kestrel itself does not bind. A stalled body is Kestrel's MinRequestBodyDataRate
/// (240 bytes/s after a 5 s grace), answered 408 with a problem body by the exception handler.
/// </summary>
public sealed class SlowClientOptions
{
    public const string Section = "Kestrel:Limits";

    [Range(typeof(TimeSpan), "00:00:01", "00:10:00", ErrorMessage = "Kestrel:Limits:RequestHeadersTimeout must be between 00:00:01 and 00:10:00.")]
    public TimeSpan RequestHeadersTimeout { get; set; } = TimeSpan.FromSeconds(10);

    /// <summary>
    /// The largest request body: a plan is a JSON object of a few KB at its bounds (LoadEngine's InputBounds), so Kestrel's
    /// own 30 MB only let a request hold the gateway's memory. Over it, 413 naming the limit.
    /// </summary>
    [Range(1024, 104_857_600, ErrorMessage = "Kestrel:Limits:MaxRequestBodySize must be between 1024 and 104857600 bytes.")]
    public long MaxRequestBodySize { get; set; } = 1024 * 1024;
}

public static class SlowClients
{
    public static WebApplicationBuilder AddSlowClientLimits(this WebApplicationBuilder builder)
    {
        builder.Services.AddValidatedOptions<SlowClientOptions>(SlowClientOptions.Section);
        builder.Services.AddOptions<KestrelServerOptions>().Configure<IOptions<SlowClientOptions>>((kestrel, limits) =>
        {
            // Kestrel reads its options before ExitOnInvalidConfiguration reports a bad value in one line; keep its default meanwhile.
            try
            {
                kestrel.Limits.RequestHeadersTimeout = limits.Value.RequestHeadersTimeout;
                kestrel.Limits.MaxRequestBodySize = limits.Value.MaxRequestBodySize;
            }
            catch (OptionsValidationException)
            {
            }
        });
        return builder;
    }
}
