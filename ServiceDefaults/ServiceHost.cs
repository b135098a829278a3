using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.Hosting;
using Serilog;

namespace GrpcBestPractices.ServiceDefaults;

/// <summary>
/// Serilog's two-stage start around an app: a console logger until configuration is read, and every way the app
/// can end logged and flushed. A failure to listen (an address in use) is one line; anything else keeps its stack trace.
/// </summary>
public static class ServiceHost
{
    public static async Task<int> RunAsync(string application, Func<Task<WebApplication>> build)
    {
        ServiceDefaultsExtensions.CreateBootstrapLogger(application);
        try
        {
            await using var app = await build();
            await app.RunAsync();
            return 0;
        }
        catch (IOException cannotListen) when (cannotListen.InnerException is Microsoft.AspNetCore.Connections.AddressInUseException)
        {
            Log.Fatal("{Application} cannot listen: {Reason}", application, cannotListen.Message);
            return 1;
        }
        catch (Exception crashed) when (crashed is not HostAbortedException)
        {
            Log.Fatal(crashed, "{Application} stopped unexpectedly", application);
            return 1;
        }
        finally
        {
            await Log.CloseAndFlushAsync();
        }
    }
}
