using System.Diagnostics;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.Hostile;

/// <summary>How a tool's process ended against a hostile target, and how long it took.</summary>
public sealed record ToolEnd(CliResult Result, TimeSpan Took)
{
    public override string ToString() => $"{Result} (after {Took.TotalSeconds:0.0} s)";
}

/// <summary>
/// The tool's processes as these tests start them: each in its own temp folder (so a describe's leftovers are seen, and
/// other tests' are not), its own cache folder, and a heap cap that keeps an unbounded describe from taking the machine.
/// </summary>
public static class HostileTool
{
    /// <summary>
    /// How long a tool's process, or a gateway's answer, may take against a hostile target: the describe's own budget
    /// (<see cref="LoadEngine.Targets.Described.DescribeLimits.Time"/>, 60 s) with room for starting .NET on a loaded 2-core machine.
    /// </summary>
    public static readonly TimeSpan CliBound = TimeSpan.FromSeconds(150);

    /// <summary>The temp folder the tool's processes get (TMPDIR): where a describe's protoc and compiler files go.</summary>
    public static string Temp(string folder) => Directory.CreateDirectory(Path.Combine(folder, "tmp")).FullName;

    public static Dictionary<string, string> Environment(string folder) => new()
    {
        ["TMPDIR"] = Temp(folder),
        ["XDG_CACHE_HOME"] = Directory.CreateDirectory(Path.Combine(folder, "cache")).FullName,
        // 2 GiB: far above what a bounded describe needs, far below what an unbounded one takes.
        ["DOTNET_GCHeapHardLimit"] = "0x80000000",
    };

    /// <summary>Runs <c>dotnet LoadTest.dll</c> with <paramref name="arguments"/> within <see cref="CliBound"/> (a hang fails the test and the process is killed).</summary>
    public static async Task<ToolEnd> CliAsync(string folder, params string[] arguments)
    {
        var started = Stopwatch.GetTimestamp();
        using var cli = CliProcess.StartProgram("dotnet", Environment(folder), [CliProcess.Assembly, .. arguments]);
        var result = await cli.WaitForExitAsync(CliBound);
        return new ToolEnd(result, Stopwatch.GetElapsedTime(started));
    }
}

/// <summary>What every hostile case must show, whatever path it came in by.</summary>
public static class HostileAssert
{
    /// <summary>
    /// Whether a refusal is the describe's time budget: the one refusal a set that works may get, on a machine so busy
    /// (load average 30 in one CI run) that compiling 1,000 messages takes longer than the budget. It is still a sentence, in its bound.
    /// </summary>
    public static bool IsOverTheTimeBudget(string? sentence) =>
        sentence is not null && sentence.Contains("Describing the target took longer than", StringComparison.Ordinal);

    /// <summary>The case's marker never appeared: none of the server's code ran, in the tool or in a program it started.</summary>
    public static void RanNoCode(string folder, string what)
    {
        var marker = HostileCase.Marker(folder);
        Assert.False(File.Exists(marker), File.Exists(marker) ? $"{what}: the target's code ran and wrote {marker}: '{File.ReadAllText(marker)}'." : null);
    }

    /// <summary>No crash: no abort (134), no unhandled exception, no stack trace.</summary>
    public static void DidNotCrash(string what, int? exitCode, string printed)
    {
        Assert.True(exitCode is null or (>= 0 and < 128), $"{what} ended with exit code {exitCode}:{System.Environment.NewLine}{printed}");
        Assert.DoesNotContain("Unhandled exception", printed, StringComparison.Ordinal);
        Assert.DoesNotContain("Stack overflow", printed, StringComparison.Ordinal);
        Assert.False(printed.Split('\n').Any(line => line.StartsWith("   at ", StringComparison.Ordinal)), $"{what} printed a stack trace:{System.Environment.NewLine}{printed}");
    }

    /// <summary>No describe's folder (protoc's input and output) was left in the ended process's temp folder.</summary>
    public static void LeftNoDescribeFolder(string folder, string what)
    {
        var left = DescribeFolders(folder);
        Assert.True(left.Count == 0, $"{what} left {string.Join(", ", left)} behind.");
    }

    /// <summary>
    /// A running process's describe folders all go within <paramref name="bound"/>: one may be in use by a describe still
    /// running (the gateway's, started by itself), but none stays.
    /// </summary>
    public static async Task KeepsNoDescribeFolderAsync(string folder, string what, TimeSpan bound)
    {
        var started = Stopwatch.GetTimestamp();
        while (DescribeFolders(folder).Count > 0 && Stopwatch.GetElapsedTime(started) < bound)
        {
            await Task.Delay(100);
        }

        LeftNoDescribeFolder(folder, what);
    }

    private static List<string> DescribeFolders(string folder) => [.. Directory.EnumerateFileSystemEntries(HostileTool.Temp(folder), "loadtest-described-*")];

    /// <summary>Nothing the target said reached a terminal as a control character (an escape sequence, a bell, a lone carriage return).</summary>
    public static void HasNoControlCharacters(string what, string text)
    {
        var control = text.Select((character, at) => (character, at)).FirstOrDefault(pair => char.IsControl(pair.character) && pair.character is not ('\n' or '\r' or '\t'));
        Assert.True(control == default, $"{what} holds the control character U+{(int)control.character:X4} at {control.at}: {text}");
        Assert.DoesNotContain("\r", text.Replace("\r\n", "\n", StringComparison.Ordinal), StringComparison.Ordinal);
    }

    /// <summary>A refusal: one line, a sentence, naming what the case says it must, and nothing it must never say.</summary>
    public static void IsTheSentence(HostileCase hostile, string what, string sentence)
    {
        Assert.False(string.IsNullOrWhiteSpace(sentence), $"{what} said nothing.");
        Assert.DoesNotContain('\n', sentence.TrimEnd());
        Assert.EndsWith(".", sentence.TrimEnd(), StringComparison.Ordinal);
        foreach (var says in hostile.Says)
        {
            Assert.True(sentence.Contains(says, StringComparison.OrdinalIgnoreCase), $"{what}'s sentence does not say '{says}': {sentence}");
        }

        Assert.True(hostile.SaysOneOf.Length == 0 || hostile.SaysOneOf.Any(says => sentence.Contains(says, StringComparison.OrdinalIgnoreCase)),
            $"{what}'s sentence says none of {string.Join(", ", hostile.SaysOneOf)}: {sentence}");
        NeverSays(hostile, what, sentence);
        HasNoControlCharacters(what, sentence);
    }

    /// <summary>Whether <paramref name="text"/>'s UTF-8 bytes are in any of the files (a database included, read while it is open).</summary>
    public static bool AnyFileHolds(string text, IEnumerable<string> paths)
    {
        var needle = System.Text.Encoding.UTF8.GetBytes(text);
        return paths.Where(File.Exists).Any(path =>
        {
            using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
            using var copy = new MemoryStream();
            stream.CopyTo(copy);
            return copy.GetBuffer().AsSpan(0, (int)copy.Length).IndexOf(needle) >= 0;
        });
    }

    public static void NeverSays(HostileCase hostile, string what, string text)
    {
        foreach (var secret in hostile.NeverSays)
        {
            Assert.False(text.Contains(secret, StringComparison.Ordinal), $"{what} quoted '{secret}': {text}");
        }
    }
}
