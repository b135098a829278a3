using System.Diagnostics;
using System.Globalization;
using System.Text;
using System.Text.RegularExpressions;

namespace GrpcBestPractices.Benchmarks;

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

    public static async Task<App> StartAsync(string root, string project, params string[] arguments)
    {
        var start = new ProcessStartInfo("dotnet") { WorkingDirectory = Path.Combine(root, project), RedirectStandardOutput = true, RedirectStandardError = true };
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
    public static async Task<string> RunAsync(string file, IEnumerable<string> arguments, string? workingDirectory = null, TimeSpan? timeout = null)
    {
        var start = new ProcessStartInfo(file) { RedirectStandardOutput = true, RedirectStandardError = true, WorkingDirectory = workingDirectory ?? Environment.CurrentDirectory };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
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
