using System.Diagnostics;
using System.Globalization;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.Faults;

/// <summary>
/// The tests' processes end with the test host however it ends: here a stand-in host is killed with SIGKILL (as a
/// test-session timeout or the OOM killer would), and everything started under its bond must be gone soon after.
/// </summary>
[Trait("Category", "Process")]
public sealed class TestHostBondTests
{
    // The watchdog looks once a second; a loaded machine may stretch that, never to this.
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(60);

    [Fact]
    public async Task EveryProcessBoundToAHostEndsWhenTheHostIsKilled()
    {
        var marker = Random.Shared.Next(1_000_000, 9_000_000).ToString(CultureInfo.InvariantCulture);
        // The stand-in host starts its own child the way the bond does: a tree with a grandchild in its own process group
        // and one in a session of its own (as Playwright starts Chromium), which no process-group kill reaches. It is
        // itself bound to the real test host, so a failure here leaves nothing behind either.
        using var host = TestHostBond.Start(new ProcessStartInfo("bash",
        [
            "-c", """setsid bash "$1" $$ bash -c 'sleep "$0" & setsid sleep "$0" & exec sleep "$0"' "$2" </dev/null >/dev/null 2>&1 & echo started; exec sleep 600""",
            "host", TestHostBond.Script, marker,
        ]) { RedirectStandardOutput = true });
        var certificates = Directory.CreateTempSubdirectory("grpcbp-bond-");
        var listening = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using var app = StartServiceBoundTo(host.Id, certificates.FullName, listening);
        try
        {
            Assert.Equal("started", await host.StandardOutput.ReadLineAsync().WaitAsync(Patience));
            Assert.True(await WaitUntilAsync(() => Sleepers(marker).Count == 3), $"the host's tree did not start: {Describe(marker)}");
            await listening.Task.WaitAsync(Patience);
            var watchdogs = Watchdogs(host.Id);
            Assert.Equal(2, watchdogs.Count);

            host.Kill();

            Assert.True(await WaitUntilAsync(() => Sleepers(marker).Count == 0 && !Alive(app.Id) && !watchdogs.Any(Alive)),
                $"still running {Patience} after the host was killed: {Describe(marker)}; service {Alive(app.Id)}; watchdogs {string.Join(' ', watchdogs.Where(Alive))}");
        }
        finally
        {
            foreach (var pid in Sleepers(marker).Append(app.Id).Where(Alive))
            {
                using var leftover = Process.GetProcessById(pid);
                leftover.Kill();
            }

            host.Kill(entireProcessTree: true);
            certificates.Delete(recursive: true);
        }
    }

    [Fact]
    public async Task ABoundProgramKeepsItsOwnIdAndItsWatchdogGoesWithIt()
    {
        var marker = Random.Shared.Next(1_000_000, 9_000_000).ToString(CultureInfo.InvariantCulture);
        using var program = TestHostBond.Start(new ProcessStartInfo("bash", ["-c", "read -r _; echo $$", marker]) { RedirectStandardInput = true, RedirectStandardOutput = true });
        Assert.True(await WaitUntilAsync(() => Watchdogs(Environment.ProcessId).Any(pid => CommandLine(pid).Contains(marker, StringComparison.Ordinal))),
            "the program runs with no watchdog");

        await program.StandardInput.WriteLineAsync();
        // The program's id is the one the test holds, so signals and /proc reach it.
        Assert.Equal(program.Id.ToString(CultureInfo.InvariantCulture), await program.StandardOutput.ReadLineAsync().WaitAsync(Patience));
        // Its streams end with it: the watchdog holds none of them.
        Assert.Null(await program.StandardOutput.ReadLineAsync().WaitAsync(Patience));
        Assert.True(await WaitUntilAsync(() => !Watchdogs(Environment.ProcessId).Any(pid => CommandLine(pid).Contains(marker, StringComparison.Ordinal))),
            $"the watchdog outlived the program it watched; what holds the marker: {Describe(marker)}; the program's session: {Session(program.Id)}");
    }

    [Fact]
    public async Task AProgramThatEndsAtOnceLeavesNoWatchdog()
    {
        // The program may end before its watchdog has started: the watchdog must still know it gone, not wait for the host.
        var marker = Random.Shared.Next(1_000_000, 9_000_000).ToString(CultureInfo.InvariantCulture);
        using var program = TestHostBond.Start(new ProcessStartInfo("bash", ["-c", "exit 0", marker]));
        await program.WaitForExitAsync().WaitAsync(Patience);

        Assert.True(await WaitUntilAsync(() => !Watchdogs(Environment.ProcessId).Any(pid => CommandLine(pid).Contains(marker, StringComparison.Ordinal))),
            $"the watchdog outlived a program that ended at once; what holds the marker: {Describe(marker)}");
    }

    /// <summary>A real .NET app (the service, with its thread pool) bound to the stand-in host by the tests' own bond.</summary>
    private static Process StartServiceBoundTo(int host, string certificates, TaskCompletionSource listening)
    {
        var start = new ProcessStartInfo("dotnet",
        [
            Path.Combine(AppProcess.RepositoryRoot, "PerformanceService", "bin", AppProcess.Configuration, "net10.0", "PerformanceService.dll"),
            "--urls", "http://127.0.0.1:0", "--Protocols:Http1Url=", "--Protocols:TlsUrl=", "--Metrics:Url=",
        ]) { WorkingDirectory = Path.Combine(AppProcess.RepositoryRoot, "PerformanceService"), RedirectStandardOutput = true, RedirectStandardError = true };
        start.Environment["Protocols__CertificateFolder"] = certificates;
        var app = Process.Start(TestHostBond.Bind(start, host))!;
        app.OutputDataReceived += (_, e) =>
        {
            if (e.Data?.Contains("Now listening on", StringComparison.Ordinal) == true)
            {
                listening.TrySetResult();
            }
        };
        app.ErrorDataReceived += (_, _) => { };
        app.BeginOutputReadLine();
        app.BeginErrorReadLine();
        return app;
    }

    private static async Task<bool> WaitUntilAsync(Func<bool> condition)
    {
        var started = Stopwatch.GetTimestamp();
        while (!condition())
        {
            if (Stopwatch.GetElapsedTime(started) > Patience)
            {
                return false;
            }

            await Task.Delay(100);
        }

        return true;
    }

    private static List<int> Sleepers(string marker) => Processes().Where(pid => CommandLine(pid) == $"sleep {marker}").ToList();

    private static List<int> Watchdogs(int host) =>
        Processes().Where(pid => CommandLine(pid).StartsWith($"bash {TestHostBond.Script} {host} ", StringComparison.Ordinal)).ToList();

    private static string Describe(string marker) =>
        string.Join("; ", Processes().Select(pid => (pid, CommandLine(pid))).Where(p => p.Item2.Contains(marker, StringComparison.Ordinal)).Select(p => $"{p.pid}: {p.Item2}"));

    /// <summary>Each process in session <paramref name="session"/>: its id, its state letter and its parent.</summary>
    private static string Session(int session) => string.Join("; ", Processes().Select(pid => (pid, Stat(pid))).Where(p => p.Item2.Length > 3 && p.Item2[3] == session.ToString(CultureInfo.InvariantCulture))
        .Select(p => $"{p.pid} {p.Item2[0]} (parent {p.Item2[1]})"));

    /// <summary>The fields of /proc/PID/stat after the command name: state, parent, group, session, …; empty once it is gone.</summary>
    private static string[] Stat(int pid)
    {
        try
        {
            var stat = File.ReadAllText($"/proc/{pid}/stat");
            return stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
        }
        catch (IOException)
        {
            return [];
        }
    }

    private static bool Alive(int pid)
    {
        try
        {
            // A zombie has ended; only its parent has yet to read its exit code.
            var stat = File.ReadAllText($"/proc/{pid}/stat");
            return stat[(stat.LastIndexOf(')') + 2)..][0] != 'Z';
        }
        catch (IOException)
        {
            return false;
        }
    }

    private static IEnumerable<int> Processes() =>
        Directory.EnumerateDirectories("/proc").Select(Path.GetFileName).Select(name => int.TryParse(name, out var pid) ? pid : 0).Where(pid => pid > 0);

    private static string CommandLine(int pid)
    {
        try
        {
            return File.ReadAllText($"/proc/{pid}/cmdline").TrimEnd('\0').Replace('\0', ' ');
        }
        catch (IOException)
        {
            return string.Empty;
        }
        catch (UnauthorizedAccessException)
        {
            return string.Empty;
        }
    }
}
