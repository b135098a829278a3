using System.ComponentModel.DataAnnotations;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.Options;

namespace ApiGateway.Security;

/// <summary>
/// How long a client may take to send its request headers before Kestrel answers 408 and closes the connection.
/// Section <c>Kestrel:Limits</c>, which Kestrel itself does not bind. A stalled body is Kestrel's MinRequestBodyDataRate
/// (240 bytes/s after a 5 s grace), answered 408 with a problem body by the exception handler.
/// </summary>
public sealed class SlowClientOptions
{
    public const string Section = "Kestrel:Limits";

    [Range(typeof(TimeSpan), "00:00:01", "00:10:00", ErrorMessage = "Kestrel:Limits:RequestHeadersTimeout must be between 00:00:01 and 00:10:00.")]
    public TimeSpan RequestHeadersTimeout { get; set; } = TimeSpan.FromSeconds(10);
}

public static class SlowClients
{
    public static WebApplicationBuilder AddSlowClientLimits(this WebApplicationBuilder builder)
    {
        builder.Services.AddOptions<SlowClientOptions>()
            .BindConfiguration(SlowClientOptions.Section)
            .ValidateDataAnnotations()
            .ValidateOnStart();
        builder.Services.AddOptions<KestrelServerOptions>().Configure<IOptions<SlowClientOptions>>((kestrel, limits) =>
        {
            // Kestrel reads its options before ExitOnInvalidConfiguration reports a bad value in one line; keep its default meanwhile.
            try
            {
                kestrel.Limits.RequestHeadersTimeout = limits.Value.RequestHeadersTimeout;
            }
            catch (OptionsValidationException)
            {
            }
        });
        return builder;
    }
}
