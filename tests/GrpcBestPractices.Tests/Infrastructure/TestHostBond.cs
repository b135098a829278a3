using System.Diagnostics;
using System.Globalization;

namespace GrpcBestPractices.Tests.Infrastructure;

/// <summary>
/// Every process the tests start ends with the test host, however the host ends (a normal end, the test-session timeout,
/// SIGKILL, a crash): it runs under scripts/die-with.sh, in a session of its own beside a watchdog that checks every
/// second that the host still runs and, once it does not, kills the process and everything below it. The program keeps
/// its own PID, so signals and /proc reach it as if it had been started directly.
/// </summary>
public static class TestHostBond
{
    public static string Script { get; } = Path.Combine(AppProcess.RepositoryRoot, "scripts", "die-with.sh");

    /// <summary>
    /// Rewrites <paramref name="start"/> so its program runs under the watchdog of <paramref name="host"/> (the test host
    /// unless a test names another), and returns it.
    /// </summary>
    public static ProcessStartInfo Bind(ProcessStartInfo start, int? host = null)
    {
        if (!string.IsNullOrEmpty(start.Arguments))
        {
            throw new ArgumentException($"Give {start.FileName}'s arguments as ArgumentList: a single Arguments string cannot be passed on unchanged.", nameof(start));
        }

        string[] arguments = ["bash", Script, (host ?? Environment.ProcessId).ToString(CultureInfo.InvariantCulture), start.FileName, .. start.ArgumentList];
        start.ArgumentList.Clear();
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        // util-linux's setsid execs in place (a process just forked is no group leader), so the program keeps this PID.
        start.FileName = "setsid";
        start.UseShellExecute = false;
        return start;
    }

    /// <summary>Starts <paramref name="start"/>'s program bound to the test host.</summary>
    public static Process Start(ProcessStartInfo start) => Process.Start(Bind(start))!;

    /// <summary>
    /// Puts a process that is not the tests' child (a daemon such as PostgreSQL's postmaster, which leaves the session of
    /// the program that started it) under a watchdog of the test host.
    /// </summary>
    public static async Task AdoptAsync(int pid)
    {
        var start = new ProcessStartInfo("bash") { UseShellExecute = false };
        foreach (var argument in new[] { Script, Environment.ProcessId.ToString(CultureInfo.InvariantCulture), "--adopt", pid.ToString(CultureInfo.InvariantCulture) })
        {
            start.ArgumentList.Add(argument);
        }

        // The script leaves its watchdog in the background and exits at once.
        using var adopt = Process.Start(start)!;
        using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        await adopt.WaitForExitAsync(bound.Token);
    }
}
