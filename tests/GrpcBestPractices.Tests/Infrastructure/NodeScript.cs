using System.Diagnostics;

namespace GrpcBestPractices.Tests.Infrastructure;

/// <summary>Runs a Node.js script from the repository's tests folder and collects what it printed, bounded in time.</summary>
public static class NodeScript
{
    public sealed record Result(int ExitCode, string Output, string Errors);

    public static async Task<Result> RunAsync(string directory, string script, TimeSpan timeout, params string[] arguments)
    {
        var start = new ProcessStartInfo("node") { WorkingDirectory = directory };
        start.ArgumentList.Add(script);
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        // A hung browser or server must not outlive the test that started it.
        var node = await ToolRun.RunAsync(start, timeout);
        return new Result(node.ExitCode, node.Output, node.Error);
    }
}
