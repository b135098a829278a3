using System.Collections.Concurrent;
using System.Diagnostics;

namespace GrpcBestPractices.Tests.Infrastructure;

/// <summary>
/// A server script from tests/interop (Node.js, or Python with <see cref="StartAsync(string, string, IEnumerable{string})"/>)
/// as its own process: started, its lines gathered, and waited on (bounded) until it prints "Now listening on: &lt;url&gt;";
/// killed when disposed.
/// </summary>
public sealed class ListeningScript : IAsyncDisposable
{
    private const string Listening = "Now listening on: ";

    private readonly Process _process;
    private readonly ConcurrentQueue<string> _output = new();
    private readonly TaskCompletionSource<string> _listening = new(TaskCreationOptions.RunContinuationsAsynchronously);

    private ListeningScript(Process process) => _process = process;

    public string Url { get; private set; } = string.Empty;

    public string Output => string.Join(Environment.NewLine, _output);

    /// <summary>Starts <c>node script arguments...</c> in tests/interop and waits for its listening line; one that exits or never listens is killed and reported with its output.</summary>
    public static Task<ListeningScript> StartAsync(string script, IEnumerable<string> arguments) => StartAsync("node", script, arguments);

    /// <summary>Starts <c>program script arguments...</c> in tests/interop and waits for its listening line, as <see cref="StartAsync(string, IEnumerable{string})"/> does.</summary>
    public static async Task<ListeningScript> StartAsync(string program, string script, IEnumerable<string> arguments)
    {
        var start = new ProcessStartInfo(program)
        {
            WorkingDirectory = GrpcJsTarget.InteropDirectory,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            // Held open by this process only: a script that stops when it ends (--stop-with-stdin) goes with the test host.
            RedirectStandardInput = true,
            UseShellExecute = false,
        };
        foreach (var argument in (string[])[script, .. arguments])
        {
            start.ArgumentList.Add(argument);
        }

        var node = new ListeningScript(new Process { StartInfo = TestHostBond.Bind(start) });
        node._process.OutputDataReceived += (_, e) => node.OnLine(e.Data);
        node._process.ErrorDataReceived += (_, e) => node.OnLine(e.Data);
        node._process.Start();
        node._process.BeginOutputReadLine();
        node._process.BeginErrorReadLine();

        var finished = await Task.WhenAny(node._listening.Task, node._process.WaitForExitAsync(), Task.Delay(TimeSpan.FromSeconds(30)));
        if (finished != node._listening.Task)
        {
            await node.DisposeAsync();
            throw new InvalidOperationException($"{script} did not start listening. Its output:{Environment.NewLine}{node.Output}");
        }

        node.Url = await node._listening.Task;
        return node;
    }

    /// <summary>Sends SIGTERM and waits (bounded) for it to exit; its exit code, or null if it still runs.</summary>
    public async Task<int?> TerminateAsync(TimeSpan timeout)
    {
        await AppProcess.SendSignalAsync("TERM", _process.Id);
        using var cancel = new CancellationTokenSource(timeout);
        try
        {
            await _process.WaitForExitAsync(cancel.Token);
            return _process.ExitCode;
        }
        catch (OperationCanceledException)
        {
            return null;
        }
    }

    public async ValueTask DisposeAsync()
    {
        using (_process)
        {
            if (!_process.HasExited)
            {
                _process.Kill(entireProcessTree: true);
                await _process.WaitForExitAsync();
            }
        }
    }

    private void OnLine(string? line)
    {
        if (line is null)
        {
            return;
        }

        _output.Enqueue(line);
        if (line.StartsWith(Listening, StringComparison.Ordinal))
        {
            _listening.TrySetResult(line[Listening.Length..]);
        }
    }
}
