using System.Collections.Concurrent;
using System.Diagnostics;
using System.Reflection;
using System.Text;
using System.Text.RegularExpressions;

namespace GrpcBestPractices.Tests.Infrastructure;

/// <summary>One of the real apps, started from its build output as its own process, listening on a real loopback port.</summary>
public sealed partial class AppProcess : IAsyncDisposable
{
    private readonly Process _process;
    private readonly ConcurrentQueue<string> _output = new();
    private readonly TaskCompletionSource<string> _listening = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly ConcurrentDictionary<string, TaskCompletionSource<string>> _listeners = new();
    private bool _disposed;
    private string? _ownedDirectory;

    private AppProcess(Process process)
    {
        _process = process;
        _process.OutputDataReceived += (_, e) => OnLine(e.Data);
        _process.ErrorDataReceived += (_, e) => OnLine(e.Data);
    }

    public string Url { get; private set; } = string.Empty;

    /// <summary>The gateway's history file: its own temporary one unless the test named one.</summary>
    public string? HistoryPath { get; private set; }

    /// <summary>The service's certificate folder: its own temporary one unless the test named one.</summary>
    public string? CertificateFolder { get; private set; }

    public Uri BaseAddress => new(Url);

    public bool HasExited => _process.HasExited;

    /// <summary>The process's id, for what only /proc shows (its peak memory).</summary>
    public int Id => _process.Id;

    public int ExitCode => _process.ExitCode;

    public string Output => string.Join(Environment.NewLine, _output);

    public static string RepositoryRoot { get; } = FindRepositoryRoot();

    public static string Configuration { get; } =
        typeof(AppProcess).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>().Single(a => a.Key == "Configuration").Value!;

    /// <summary>Starts the app on port 0 and waits until Kestrel reports the port it got.</summary>
    public static async Task<AppProcess> StartAsync(string project, IEnumerable<string>? arguments = null, IDictionary<string, string>? environment = null)
    {
        var app = Launch(project, ["--urls", "http://127.0.0.1:0", .. arguments ?? []], environment);
        await app.WaitUntilListeningAsync(project);
        return app;
    }

    /// <summary>Waits (bounded) for Kestrel's first "Now listening on" line; an app that exits or never listens is disposed and reported with its output.</summary>
    private async Task WaitUntilListeningAsync(string name)
    {
        var finished = await Task.WhenAny(_listening.Task, _process.WaitForExitAsync(), Task.Delay(TimeSpan.FromSeconds(120)));
        if (finished != _listening.Task)
        {
            var output = Output;
            await DisposeAsync();
            throw new InvalidOperationException($"{name} did not start listening. Its output:{Environment.NewLine}{output}");
        }

        Url = await _listening.Task;
    }

    /// <summary>Starts the app and waits for it to exit by itself (for start-up failures).</summary>
    public static async Task<AppProcess> RunToExitAsync(string project, IEnumerable<string> arguments, TimeSpan timeout)
    {
        var app = Launch(project, arguments, null);
        using var cancel = new CancellationTokenSource(timeout);
        await app._process.WaitForExitAsync(cancel.Token);
        app._process.WaitForExit();
        return app;
    }

    /// <summary>
    /// The address the service announced for one of its listeners ("h2c", "HTTP/1.1", "TLS" or "metrics"), with the port it really
    /// got: the service logs one "Listening for {listener} on {address}" line per listener once all are bound.
    /// </summary>
    public async Task<string> ListenerAsync(string listener, TimeSpan? timeout = null)
    {
        var announced = _listeners.GetOrAdd(listener, _ => new TaskCompletionSource<string>(TaskCreationOptions.RunContinuationsAsynchronously)).Task;
        var finished = await Task.WhenAny(announced, _process.WaitForExitAsync(), Task.Delay(timeout ?? TimeSpan.FromSeconds(30)));
        return finished == announced
            ? await announced
            : throw new InvalidOperationException($"The service announced no {listener} listener. Its output:{Environment.NewLine}{Output}");
    }

    public Task<bool> WaitForOutputAsync(Func<string, bool> match, TimeSpan timeout) => WaitForOutputAsync(match, 1, timeout);

    /// <summary>Waits (bounded) until at least <paramref name="lines"/> lines of output match.</summary>
    public async Task<bool> WaitForOutputAsync(Func<string, bool> match, int lines, TimeSpan timeout)
    {
        var deadline = Stopwatch.GetTimestamp();
        while (Stopwatch.GetElapsedTime(deadline) < timeout)
        {
            if (_output.Count(match) >= lines)
            {
                return true;
            }

            await Task.Delay(50);
        }

        return false;
    }

    public async ValueTask DisposeAsync()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
            await _process.WaitForExitAsync();
        }

        _process.Dispose();
        if (_ownedDirectory is not null)
        {
            Directory.Delete(_ownedDirectory, recursive: true);
        }
    }

    private static AppProcess Launch(string project, IEnumerable<string> arguments, IDictionary<string, string>? environment)
    {
        var argumentList = arguments.ToList();
        string? ownedDirectory = null;
        string? historyPath = null;
        if (project == "ApiGateway")
        {
            var named = argumentList.IndexOf("--History:DatabasePath");
            if (named >= 0)
            {
                historyPath = argumentList[named + 1];
            }
            else
            {
                // Each gateway under test keeps its history in its own file, never in the repository.
                ownedDirectory = Directory.CreateTempSubdirectory("grpcbp-history-").FullName;
                historyPath = Path.Combine(ownedDirectory, "history.db");
                argumentList.AddRange(["--History:DatabasePath", historyPath]);
            }

            // Most tests start a gateway of their own; only those that ask (the shared system, the browser's) pay for the start-up warm-up.
            if (Named(argumentList, "--Runs:WarmUpAtStart") is null)
            {
                argumentList.AddRange(["--Runs:WarmUpAtStart", "false"]);
            }

            // Its defaults name ./run.sh's ports and the certificate ./run.sh's service keeps in the repository: a gateway under
            // test would call whatever listens there on a developer's machine. It gets the listeners its test names, or none.
            foreach (var key in new[] { "--Protocols:Http1Url", "--Protocols:TlsUrl", "--Protocols:CertificatePath" })
            {
                if (Named(argumentList, key) is null && environment?.ContainsKey(key[2..].Replace(":", "__", StringComparison.Ordinal)) != true)
                {
                    argumentList.AddRange([key, ""]);
                }
            }
        }

        string? certificateFolder = null;
        if (project == "PerformanceService")
        {
            // Every service under test listens on free ports only, and keeps its certificate in its own folder, never in the repository.
            foreach (var (key, value) in new[] { ("--Protocols:Http1Url", "http://127.0.0.1:0"), ("--Protocols:TlsUrl", "https://127.0.0.1:0"), ("--Metrics:Url", "http://127.0.0.1:0") })
            {
                if (Named(argumentList, key) is null)
                {
                    argumentList.AddRange([key, value]);
                }
            }

            certificateFolder = Named(argumentList, "--Protocols:CertificateFolder");
            if (certificateFolder is null)
            {
                ownedDirectory = Directory.CreateTempSubdirectory("grpcbp-certificate-").FullName;
                certificateFolder = ownedDirectory;
                argumentList.AddRange(["--Protocols:CertificateFolder", certificateFolder]);
            }
        }

        var directory = Path.Combine(RepositoryRoot, project);
        var assembly = Path.Combine(directory, "bin", Configuration, "net10.0", project + ".dll");
        if (!File.Exists(assembly))
        {
            throw new FileNotFoundException($"Build {project} in {Configuration} first.", assembly);
        }

        var start = new ProcessStartInfo("dotnet")
        {
            WorkingDirectory = directory,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            StandardOutputEncoding = Encoding.UTF8,
        };
        start.ArgumentList.Add(assembly);
        foreach (var argument in argumentList)
        {
            start.ArgumentList.Add(argument);
        }

        // Keep the developer's own settings (a shell's ASPNETCORE_URLS, say) out of the apps under test.
        foreach (var inherited in new[] { "ASPNETCORE_URLS", "ASPNETCORE_HTTP_PORTS", "ServerUrl", "History__DatabasePath", "History__Provider", "ConnectionStrings__History", "ASPNETCORE_ENVIRONMENT", "DOTNET_ENVIRONMENT" })
        {
            start.Environment.Remove(inherited);
        }

        foreach (var (key, value) in environment ?? new Dictionary<string, string>())
        {
            start.Environment[key] = value;
        }

        var app = new AppProcess(new Process { StartInfo = TestHostBond.Bind(start), EnableRaisingEvents = true })
        {
            _ownedDirectory = ownedDirectory,
            HistoryPath = historyPath,
            CertificateFolder = certificateFolder,
        };
        app._process.Start();
        app._process.BeginOutputReadLine();
        app._process.BeginErrorReadLine();
        return app;
    }

    private void OnLine(string? line)
    {
        if (line is null)
        {
            return;
        }

        _output.Enqueue(line);
        if (ListeningLine().Match(line) is { Success: true } match)
        {
            _listening.TrySetResult(match.Groups[1].Value);
        }

        if (ListenerLine().Match(line) is { Success: true } listener)
        {
            _listeners.GetOrAdd(listener.Groups[1].Value, _ => new TaskCompletionSource<string>(TaskCreationOptions.RunContinuationsAsynchronously))
                .TrySetResult(listener.Groups[2].Value);
        }
    }

    /// <summary>The value given for <paramref name="key"/> as "key value" or "key=value", or null when it is not given.</summary>
    private static string? Named(List<string> arguments, string key)
    {
        for (var i = 0; i < arguments.Count; i++)
        {
            if (arguments[i] == key && i + 1 < arguments.Count)
            {
                return arguments[i + 1];
            }

            if (arguments[i].StartsWith(key + "=", StringComparison.Ordinal))
            {
                return arguments[i][(key.Length + 1)..];
            }
        }

        return null;
    }

    private static string FindRepositoryRoot()
    {
        for (var directory = new DirectoryInfo(AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
        {
            if (File.Exists(Path.Combine(directory.FullName, "GrpcBestPractices.sln")))
            {
                return directory.FullName;
            }
        }

        throw new InvalidOperationException("GrpcBestPractices.sln not found above " + AppContext.BaseDirectory);
    }

    [GeneratedRegex(@"Now listening on: (http://\S+)")]
    private static partial Regex ListeningLine();

    [GeneratedRegex(@"Listening for (h2c|HTTP/1\.1|TLS|metrics) \(.*\) on (\S+)")]
    private static partial Regex ListenerLine();
}
