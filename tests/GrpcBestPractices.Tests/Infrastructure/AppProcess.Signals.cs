using System.Diagnostics;

namespace GrpcBestPractices.Tests.Infrastructure;

/// <summary>Real signals to the app's process (it is the dotnet process itself): SIGSTOP hangs it, SIGCONT resumes it, SIGTERM asks it to stop.</summary>
public sealed partial class AppProcess
{
    public int ProcessId => _process.Id;

    public Task SignalAsync(string signal) => SendSignalAsync(signal, ProcessId);

    /// <summary>
    /// SIGSTOP, then waits (bounded) until every thread of the process is stopped: kill returns once the signal is sent,
    /// and each thread stops on its own way back to user mode.
    /// </summary>
    public async Task StopAsync()
    {
        await SignalAsync("STOP");
        var clock = Stopwatch.StartNew();
        while (!IsStopped)
        {
            Assert.True(clock.Elapsed < TimeSpan.FromSeconds(30), $"process {ProcessId} was not stopped 30 s after SIGSTOP; its threads' states: {ThreadStates}");
            await Task.Delay(10);
        }
    }

    /// <summary>Whether every thread of the process is stopped by a signal ('T' in /proc/PID/task/TID/stat).</summary>
    public bool IsStopped => ThreadStates is { Length: > 0 } states && states.All(state => state == 'T');

    /// <summary>Each live thread's state letter from /proc (R running, S sleeping, D in the kernel, T stopped); empty once the process is gone.</summary>
    public string ThreadStates
    {
        get
        {
            var states = new System.Text.StringBuilder();
            try
            {
                foreach (var task in Directory.EnumerateDirectories($"/proc/{ProcessId}/task"))
                {
                    try
                    {
                        // The command name in parentheses may hold anything: the state is the field after its closing one.
                        var stat = File.ReadAllText(Path.Combine(task, "stat"));
                        states.Append(stat[(stat.LastIndexOf(')') + 2)..][0]);
                    }
                    catch (IOException)
                    {
                        // The thread ended between the listing and the read.
                    }
                }
            }
            catch (DirectoryNotFoundException)
            {
            }

            return states.ToString();
        }
    }

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
