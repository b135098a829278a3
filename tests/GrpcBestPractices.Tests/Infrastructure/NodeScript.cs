using System.Diagnostics;

namespace GrpcBestPractices.Tests.Infrastructure;

/// <summary>Runs a Node.js script from the repository's tests folder and collects what it printed, bounded in time.</summary>
public static class NodeScript
{
    public sealed record Result(int ExitCode, string Output, string Errors);

    public static async Task<Result> RunAsync(string directory, string script, TimeSpan timeout, params string[] arguments)
    {
        var start = new ProcessStartInfo("node") { WorkingDirectory = directory, RedirectStandardOutput = true, RedirectStandardError = true };
        start.ArgumentList.Add(script);
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        using var node = Process.Start(start)!;
        using var cancel = new CancellationTokenSource(timeout);
        var output = node.StandardOutput.ReadToEndAsync(cancel.Token);
        var errors = node.StandardError.ReadToEndAsync(cancel.Token);
        try
        {
            await node.WaitForExitAsync(cancel.Token);
        }
        catch (OperationCanceledException)
        {
            // A hung browser or server must not outlive the test that started it.
            node.Kill(entireProcessTree: true);
            Assert.Fail($"node {script} did not finish within {timeout.TotalSeconds:0} s.");
        }

        return new Result(node.ExitCode, await output, await errors);
    }
}
