using System.Diagnostics;
using System.Globalization;
using System.Text;
using System.Text.RegularExpressions;

namespace GrpcBestPractices.Benchmarks;

/// <summary>
/// Where the service and the load run. bench/run.sh starts this process under <c>taskset -c 1</c> (and says so with
/// --pinned) when the machine has two cores or more: then the services run on core 0, and everything that makes load
/// (this process's engine and bare loops, the gateway, h2load, grpc-js, all inheriting core 1) on core 1. On shared
/// cores a ratio measures two processes competing for the same CPU, so the table says which it was.
/// </summary>
public static class Cores
{
    public static bool Pinned { get; set; }

    public static string Service => Pinned ? "0" : "";

    public static string Load => Pinned ? "1" : "";

    public static string Describe => Pinned
        ? "service on core 0, load (this engine and bare loops, the gateway, h2load, grpc-js) on core 1, pinned with taskset"
        : "service and load share every core (one core, or no taskset): ratios include the two competing for CPU";
}

/// <summary>An app of the repository started from its Release build on a free loopback port.</summary>
public sealed partial class App : IAsyncDisposable
{
    private readonly Process _process;

    private App(Process process, string url)
    {
        _process = process;
        Url = url;
    }

    public string Url { get; }

    public Uri BaseAddress => new(Url);

    /// <summary>Starts <paramref name="project"/>, on <paramref name="cores"/> (taskset's list) when they are given.</summary>
    public static async Task<App> StartAsync(string root, string project, string cores, params string[] arguments)
    {
        var start = new ProcessStartInfo(cores.Length > 0 ? "taskset" : "dotnet") { WorkingDirectory = Path.Combine(root, project), RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (var pin in cores.Length > 0 ? ["-c", cores, "dotnet"] : Array.Empty<string>())
        {
            start.ArgumentList.Add(pin);
        }

        start.ArgumentList.Add(Path.Combine("bin", "Release", "net10.0", project + ".dll"));
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        var process = Process.Start(start)!;
        var listening = new TaskCompletionSource<string>(TaskCreationOptions.RunContinuationsAsynchronously);
        var output = new StringBuilder();
        process.OutputDataReceived += (_, e) =>
        {
            lock (output)
            {
                output.AppendLine(e.Data);
            }

            if (e.Data is not null && Listening().Match(e.Data) is { Success: true } match)
            {
                listening.TrySetResult(match.Groups[1].Value);
            }
        };
        process.ErrorDataReceived += (_, e) =>
        {
            lock (output)
            {
                output.AppendLine(e.Data);
            }
        };
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        if (await Task.WhenAny(listening.Task, process.WaitForExitAsync(), Task.Delay(TimeSpan.FromSeconds(60))) != listening.Task)
        {
            process.Kill(entireProcessTree: true);
            throw new InvalidOperationException($"{project} did not start: {output}");
        }

        return new App(process, await listening.Task);
    }

    public async ValueTask DisposeAsync()
    {
        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
            await _process.WaitForExitAsync();
        }

        _process.Dispose();
    }

    [GeneratedRegex(@"Now listening on: (https?://\S+)")]
    private static partial Regex Listening();
}

/// <summary>Runs a command to its end (bounded) and returns what it printed.</summary>
public static class Command
{
    /// <summary><paramref name="environment"/>'s variables are set for the command, an empty value unset.</summary>
    public static async Task<string> RunAsync(string file, IEnumerable<string> arguments, string? workingDirectory = null, TimeSpan? timeout = null,
        Dictionary<string, string>? environment = null)
    {
        var start = new ProcessStartInfo(file) { RedirectStandardOutput = true, RedirectStandardError = true, WorkingDirectory = workingDirectory ?? Environment.CurrentDirectory };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        foreach (var (name, value) in environment ?? [])
        {
            if (value.Length > 0)
            {
                start.Environment[name] = value;
            }
            else
            {
                start.Environment.Remove(name);
            }
        }

        using var process = Process.Start(start) ?? throw new InvalidOperationException($"{file} could not start");
        using var limit = new CancellationTokenSource(timeout ?? TimeSpan.FromMinutes(5));
        var output = process.StandardOutput.ReadToEndAsync(limit.Token);
        var errors = process.StandardError.ReadToEndAsync(limit.Token);
        await process.WaitForExitAsync(limit.Token);
        return process.ExitCode == 0
            ? await output
            : throw new InvalidOperationException($"{file} {string.Join(' ', start.ArgumentList)} exited with {process.ExitCode}: {await errors}{await output}");
    }

    public static double Number(string text) => double.Parse(text, CultureInfo.InvariantCulture);
}
