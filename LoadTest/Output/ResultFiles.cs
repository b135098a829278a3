using System.Text.Json;

namespace LoadTest.Output;

/// <summary>The files a command writes when it ends, interrupted or not: the JSON of its runs in the shape the gateway's API returns.</summary>
public static class ResultFiles
{
    /// <summary>Writes what the settings ask for; returns a line per file written or not, and how many could not be.</summary>
    public static async Task<(IReadOnlyList<string> Notes, int Failed)> WriteAsync(LoadTestSettings settings, LoadTestResult result)
    {
        var notes = new List<string>();
        var failed = 0;
        if (settings.JsonPath is { } jsonPath)
        {
            object document = result.Suite is { } suite ? SuiteDocument.From(suite, result.Runs) : result.Runs.Single();
            if (await TryWriteAsync(jsonPath, stream => JsonSerializer.SerializeAsync(stream, document, RunJson.Options), notes, "JSON"))
            {
                notes.Add($"JSON: {jsonPath}");
            }
            else
            {
                failed++;
            }
        }

        return (notes, failed);
    }

    private static async Task<bool> TryWriteAsync(string path, Func<Stream, Task> write, List<string> notes, string what)
    {
        try
        {
            await using var file = File.Create(path);
            await write(file);
            return true;
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            notes.Add($"The {what} file {path} could not be written: {ex.Message}");
            return false;
        }
    }
}
