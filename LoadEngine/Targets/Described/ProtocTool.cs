using System.Diagnostics;
using System.Runtime.InteropServices;

namespace LoadEngine.Targets.Described;

/// <summary>
/// protoc as Grpc.Tools ships it, copied beside this assembly (LoadEngine.csproj): the binary for this OS and architecture,
/// and the include folder that holds the well-known types' .proto files.
/// </summary>
internal static class ProtocTool
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(60);
    private static readonly Lazy<string> Binary = new(Locate);

    public static string Root { get; } = Path.Combine(AppContext.BaseDirectory, "protoc");

    /// <summary>Where google/protobuf/*.proto are: always on protoc's import path.</summary>
    public static string IncludeDirectory { get; } = Path.Combine(Root, "include");

    /// <summary>
    /// Runs protoc with <paramref name="arguments"/> (awaited, never blocked on); a failure is a sentence that begins with
    /// <paramref name="what"/> and quotes protoc, or says what <paramref name="explain"/> makes of protoc's lines.
    /// <paramref name="cancellation"/> (the describe's time budget) kills it.
    /// </summary>
    public static async Task RunAsync(IReadOnlyList<string> arguments, string what, CancellationToken cancellation, Func<IReadOnlyList<string>, string?>? explain = null)
    {
        using var process = new Process
        {
            StartInfo = new ProcessStartInfo(Binary.Value)
            {
                RedirectStandardError = true,
                RedirectStandardOutput = true,
                UseShellExecute = false,
            },
        };
        foreach (var argument in arguments)
        {
            process.StartInfo.ArgumentList.Add(argument);
        }

        // protoc's lines are gathered as they come; WaitForExitAsync returns once both streams have ended.
        var said = new System.Collections.Concurrent.ConcurrentQueue<string>();
        process.ErrorDataReceived += (_, line) => Keep(said, line.Data);
        process.OutputDataReceived += (_, line) => Keep(said, line.Data);
        process.Start();
        process.BeginErrorReadLine();
        process.BeginOutputReadLine();
        using var limit = CancellationTokenSource.CreateLinkedTokenSource(cancellation);
        limit.CancelAfter(Timeout);
        try
        {
            await process.WaitForExitAsync(limit.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            await process.WaitForExitAsync(CancellationToken.None);
            cancellation.ThrowIfCancellationRequested();
            throw new TargetDescriptionException($"{what}: protoc did not finish within {Timeout.TotalSeconds:0} seconds.");
        }

        if (process.ExitCode != 0)
        {
            throw new TargetDescriptionException($"{what}: {explain?.Invoke([.. said]) ?? TargetText.Escape(string.Join(" ", said.Take(3)), 1000).TrimEnd('.')}.");
        }
    }

    private static void Keep(System.Collections.Concurrent.ConcurrentQueue<string> said, string? line)
    {
        if (!string.IsNullOrWhiteSpace(line))
        {
            said.Enqueue(line.Trim());
        }
    }

    private static string Locate()
    {
        // Grpc.Tools' folder for this machine: tools/<os>_<arch>.
        var arch = RuntimeInformation.OSArchitecture;
        var folder = arch switch
        {
            _ when OperatingSystem.IsMacOS() => "macosx_universal",
            Architecture.X64 or Architecture.X86 or Architecture.Arm64 when OperatingSystem.IsLinux() => $"linux_{arch.ToString().ToLowerInvariant()}",
            // Windows on Arm runs the x64 build under emulation; Grpc.Tools ships no arm64 one.
            Architecture.X64 or Architecture.Arm64 when OperatingSystem.IsWindows() => "windows_x64",
            Architecture.X86 when OperatingSystem.IsWindows() => "windows_x86",
            _ => null,
        }
            ?? throw new TargetDescriptionException($"Describing a target from .proto files needs protoc, and Grpc.Tools ships none for {RuntimeInformation.OSDescription} on {RuntimeInformation.OSArchitecture}: give a protoset (the CLI's --protoset, the gateway's Targets:<name>:Protoset) or use server reflection instead.");
        var path = Path.Combine(Root, "tools", folder, OperatingSystem.IsWindows() ? "protoc.exe" : "protoc");
        if (!File.Exists(path))
        {
            throw new TargetDescriptionException($"protoc is missing from {Path.GetDirectoryName(path)}: this build of LoadEngine did not ship it for {folder}.");
        }

        // A NuGet package (the packed tool) loses the execute bit.
        if (!OperatingSystem.IsWindows() && (File.GetUnixFileMode(path) & UnixFileMode.UserExecute) == 0)
        {
            File.SetUnixFileMode(path, File.GetUnixFileMode(path) | UnixFileMode.UserExecute | UnixFileMode.GroupExecute | UnixFileMode.OtherExecute);
        }

        return path;
    }
}
