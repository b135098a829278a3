using System.Diagnostics;
using System.Text;

namespace GrpcBestPractices.Tests.Infrastructure;

/// <summary>Another program run to its end (dotnet publish, kubectl, a published app), both of its streams read.</summary>
public static class ToolRun
{
    /// <summary>Runs it within <paramref name="bound"/>: a hang fails the test instead of holding it, and the process is killed.</summary>
    public static async Task<CliResult> RunAsync(ProcessStartInfo start, TimeSpan bound)
    {
        start.RedirectStandardOutput = true;
        start.RedirectStandardError = true;
        start.UseShellExecute = false;
        start.StandardOutputEncoding = Encoding.UTF8;
        using var process = TestHostBond.Start(start);
        var output = process.StandardOutput.ReadToEndAsync();
        var error = process.StandardError.ReadToEndAsync();
        using var cancel = new CancellationTokenSource(bound);
        try
        {
            await process.WaitForExitAsync(cancel.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            Assert.Fail($"{start.FileName} {string.Join(' ', start.ArgumentList)} was still running after {bound}.");
        }

        return new CliResult(process.ExitCode, await output, await error);
    }
}
