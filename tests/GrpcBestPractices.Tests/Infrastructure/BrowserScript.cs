using System.Text.Json;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.Infrastructure;

/// <summary>Runs a script of tests/browser in headless Chromium and reads the JSON line it answers with.</summary>
public static class BrowserScript
{
    private const string Chromium = "/usr/bin/chromium";
    private static readonly string BrowserDirectory = Path.Combine(AppProcess.RepositoryRoot, "tests", "browser");

    /// <summary>Where the scripts leave their screenshots, for a person to look at after the run.</summary>
    public static string Screenshots { get; } = Path.Combine(AppProcess.RepositoryRoot, "artifacts", "screenshots");

    /// <summary>Fails unless the script exits 0 and answers ok; returns its answer for the test's own checks.</summary>
    public static async Task<JsonElement> RunAsync(ITestOutputHelper output, string script, TimeSpan timeout, params string[] arguments)
    {
        // A missing browser must fail the build, never skip: the page is what a workshop sees.
        Assert.True(File.Exists(Chromium), $"{Chromium} is missing; install Debian's chromium (apt-get install chromium), as .ci/run does.");
        Assert.True(File.Exists(Path.Combine(BrowserDirectory, "node_modules", "playwright-core", "package.json")),
            $"playwright-core is not installed in {BrowserDirectory}; building the test project runs npm ci there.");

        var (exitCode, stdout, stderr) = await NodeScript.RunAsync(BrowserDirectory, script, timeout, arguments);

        output.WriteLine(stdout);
        var lastLine = stdout.Split('\n', StringSplitOptions.RemoveEmptyEntries).LastOrDefault() ?? "";
        Assert.True(exitCode == 0, $"the browser test failed (exit {exitCode}): {lastLine}{Environment.NewLine}{stderr}");
        var result = JsonDocument.Parse(lastLine).RootElement;
        Assert.True(result.GetProperty("ok").GetBoolean());
        return result;
    }
}
