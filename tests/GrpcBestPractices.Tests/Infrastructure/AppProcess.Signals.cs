using System.Diagnostics;

namespace GrpcBestPractices.Tests.Infrastructure;

/// <summary>Real signals to the app's process (it is the dotnet process itself): SIGSTOP hangs it, SIGCONT resumes it, SIGTERM asks it to stop.</summary>
public sealed partial class AppProcess
{
    public int ProcessId => _process.Id;

    public Task SignalAsync(string signal) => SendSignalAsync(signal, ProcessId);

    /// <summary>Waits (bounded) for the process to exit by itself; false if it is still running.</summary>
    public async Task<bool> WaitForExitAsync(TimeSpan timeout)
    {
        using var cancel = new CancellationTokenSource(timeout);
        try
        {
            await _process.WaitForExitAsync(cancel.Token);
            return true;
        }
        catch (OperationCanceledException)
        {
            return false;
        }
    }

    internal static async Task SendSignalAsync(string signal, int pid)
    {
        using var kill = Process.Start(new ProcessStartInfo("kill", [$"-{signal}", pid.ToString(System.Globalization.CultureInfo.InvariantCulture)]) { UseShellExecute = false })!;
        await kill.WaitForExitAsync();
        Assert.Equal(0, kill.ExitCode);
    }
}
