using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using System.Text;

namespace GrpcBestPractices.Tests.Infrastructure;

/// <summary>How a CLI process ended: its exit code, and what it wrote on stdout and on stderr.</summary>
public sealed record CliResult(int ExitCode, string Output, string Error)
{
    public string[] ErrorLines => Error.Split('\n', StringSplitOptions.RemoveEmptyEntries);

    public override string ToString() => $"exit code {ExitCode}{Environment.NewLine}stdout:{Environment.NewLine}{Output}{Environment.NewLine}stderr:{Environment.NewLine}{Error}";
}

/// <summary>
/// The CLI (or the ./loadtest script) as its own process with stdout and stderr redirected, as a CI job runs it. Every
/// wait is bounded, and a process still running when the test ends is killed.
/// </summary>
public sealed class CliProcess : IDisposable
{
    private readonly Process _process;
    private readonly ConcurrentQueue<string> _output = new();
    private readonly StringBuilder _error = new();
    private int _disposed;

    private CliProcess(ProcessStartInfo start)
    {
        start.RedirectStandardOutput = true;
        start.RedirectStandardError = true;
        start.UseShellExecute = false;
        start.StandardOutputEncoding = Encoding.UTF8;
        start.WorkingDirectory = AppProcess.RepositoryRoot;
        start.Environment["CONFIGURATION"] = AppProcess.Configuration;
        // The CLI keeps what it compiles in the user's cache folder: under test, one beside the test assembly, never the user's.
        if (!start.Environment.ContainsKey("XDG_CACHE_HOME"))
        {
            start.Environment["XDG_CACHE_HOME"] = CacheFolder;
        }

        _process = new Process { StartInfo = TestHostBond.Bind(start) };
        _process.OutputDataReceived += (_, e) =>
        {
            if (e.Data is not null)
            {
                _output.Enqueue(e.Data);
            }
        };
        _process.ErrorDataReceived += (_, e) =>
        {
            lock (_error)
            {
                _error.AppendLine(e.Data);
            }
        };
        _process.Start();
        _process.BeginOutputReadLine();
        _process.BeginErrorReadLine();
    }

    /// <summary>The cache folder every CLI under test writes its compiled descriptor sets to ($XDG_CACHE_HOME).</summary>
    public static string CacheFolder { get; } = Path.Combine(AppContext.BaseDirectory, "cli-cache");

    public static string Assembly { get; } = Path.Combine(AppProcess.RepositoryRoot, "LoadTest", "bin", AppProcess.Configuration, "net10.0", "LoadTest.dll");

    /// <summary>Starts <c>dotnet LoadTest.dll</c> with these arguments.</summary>
    public static CliProcess Start(params string[] arguments)
    {
        if (!File.Exists(Assembly))
        {
            throw new FileNotFoundException($"Build LoadTest in {AppProcess.Configuration} first.", Assembly);
        }

        return new CliProcess(StartInfo("dotnet", [Assembly, .. arguments]));
    }

    /// <summary>Starts the repository's ./loadtest script with these arguments.</summary>
    public static CliProcess StartScript(params string[] arguments) => new(StartInfo("bash", ["loadtest", .. arguments]));

    /// <summary>Starts any program with these arguments (dotnet pack, an installed tool), in the repository's root.</summary>
    public static CliProcess StartProgram(string program, IReadOnlyDictionary<string, string> environment, params string[] arguments)
    {
        var start = StartInfo(program, arguments);
        foreach (var (name, value) in environment)
        {
            start.Environment[name] = value;
        }

        return new CliProcess(start);
    }

    public static async Task<CliResult> RunAsync(params string[] arguments)
    {
        using var cli = Start(arguments);
        return await cli.WaitForExitAsync();
    }

    public async Task<bool> WaitForOutputAsync(Func<string, bool> match, TimeSpan timeout)
    {
        var started = Stopwatch.GetTimestamp();
        while (Stopwatch.GetElapsedTime(started) < timeout && !_process.HasExited)
        {
            if (_output.Any(match))
            {
                return true;
            }

            await Task.Delay(50);
        }

        return _output.Any(match);
    }

    /// <summary>Sends SIGINT, as Ctrl+C in a terminal does.</summary>
    public void Interrupt() => Signal("INT");

    /// <summary>Sends a signal (STOP freezes the process, as a hung machine or a paused pod would; CONT resumes it).</summary>
    public void Signal(string signal)
    {
        using var kill = Process.Start("kill", [$"-{signal}", _process.Id.ToString(CultureInfo.InvariantCulture)]);
        kill.WaitForExit();
    }

    /// <summary>Waits for the process to exit (a bound, not a timing: a run that hangs fails the test instead of holding it).</summary>
    public async Task<CliResult> WaitForExitAsync(TimeSpan? bound = null)
    {
        using var cancel = new CancellationTokenSource(bound ?? TimeSpan.FromSeconds(120));
        try
        {
            await _process.WaitForExitAsync(cancel.Token);
        }
        catch (OperationCanceledException)
        {
            Assert.Fail($"The CLI was still running after {bound ?? TimeSpan.FromSeconds(120)}:{Environment.NewLine}{string.Join(Environment.NewLine, _output)}");
        }

        // The parameterless wait also drains the redirected streams.
        _process.WaitForExit();
        lock (_error)
        {
            return new CliResult(_process.ExitCode, string.Join('\n', _output), _error.ToString());
        }
    }

    /// <summary>Kills the process if it still runs (kill -9: it has no last word); a second call does nothing.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) == 1)
        {
            return;
        }

        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
            _process.WaitForExit();
        }

        _process.Dispose();
    }

    private static ProcessStartInfo StartInfo(string program, IEnumerable<string> arguments)
    {
        var start = new ProcessStartInfo(program);
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        return start;
    }
}
