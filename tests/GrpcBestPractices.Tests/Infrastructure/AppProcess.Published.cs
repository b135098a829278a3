using System.Diagnostics;
using System.Text;

namespace GrpcBestPractices.Tests.Infrastructure;

/// <summary>An app from a publish folder, run as its container image runs it.</summary>
public sealed partial class AppProcess
{
    /// <summary>
    /// Starts <c>dotnet {assembly}</c> in its own folder (the image's WORKDIR) with no arguments and only
    /// <paramref name="environment"/> plus PATH and the DOTNET_ root variables: nothing of this machine's environment, the
    /// repository or the build output reaches it. Waits until the first listener's address is logged.
    /// </summary>
    public static async Task<AppProcess> StartPublishedAsync(string assembly, IDictionary<string, string> environment)
    {
        var start = new ProcessStartInfo("dotnet")
        {
            WorkingDirectory = Path.GetDirectoryName(assembly)!,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            StandardOutputEncoding = Encoding.UTF8,
        };
        start.ArgumentList.Add(assembly);
        start.Environment.Clear();
        foreach (var kept in new[] { "PATH", "DOTNET_ROOT", "DOTNET_ROOT_X64" })
        {
            if (Environment.GetEnvironmentVariable(kept) is { } value)
            {
                start.Environment[kept] = value;
            }
        }

        foreach (var (key, value) in environment)
        {
            start.Environment[key] = value;
        }

        var app = new AppProcess(new Process { StartInfo = TestHostBond.Bind(start), EnableRaisingEvents = true });
        app._process.Start();
        app._process.BeginOutputReadLine();
        app._process.BeginErrorReadLine();
        await app.WaitUntilListeningAsync(Path.GetFileName(assembly));
        return app;
    }
}
