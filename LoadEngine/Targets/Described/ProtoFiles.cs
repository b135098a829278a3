using System.Text.RegularExpressions;

namespace LoadEngine.Targets.Described;

/// <summary>.proto files as one FileDescriptorSet, their imports included: protoc --include_imports --descriptor_set_out.</summary>
internal static partial class ProtoFiles
{
    public static async Task<byte[]> DescribeAsync(IReadOnlyList<string> protos, IReadOnlyList<string> importPaths, CancellationToken cancellation)
    {
        var files = protos.Select(Path.GetFullPath).ToList();
        var paths = importPaths.Select(path => Path.TrimEndingDirectorySeparator(Path.GetFullPath(path))).ToList();
        if (files.FirstOrDefault(file => !File.Exists(file)) is { } missing)
        {
            throw new TargetDescriptionException($"The proto file {missing} does not exist.");
        }

        if (paths.FirstOrDefault(path => !Directory.Exists(path)) is { } absent)
        {
            throw new TargetDescriptionException($"The import path {absent} is not a folder.");
        }

        // protoc names a file by the import path that holds it (as its errors and imports do); one outside every given path
        // is found in its own folder, as ghz does.
        var named = files.Select(file => paths.FirstOrDefault(path => file.StartsWith(path + Path.DirectorySeparatorChar, StringComparison.Ordinal)) is { } holder
            ? (Path: holder, Name: Path.GetRelativePath(holder, file))
            : (Path: Path.GetDirectoryName(file)!, Name: Path.GetFileName(file))).ToList();
        var searched = paths.Concat(named.Select(file => file.Path)).Distinct(StringComparer.Ordinal).Append(ProtocTool.IncludeDirectory);
        var output = Path.Combine(Path.GetTempPath(), $"loadtest-{Guid.NewGuid():N}.protoset");
        try
        {
            await ProtocTool.RunAsync(
                [
                    "--include_imports",
                    $"--descriptor_set_out={output}",
                    .. searched.Select(path => $"--proto_path={path}"),
                    .. named.Select(file => file.Name.Replace(Path.DirectorySeparatorChar, '/')),
                ],
                $"protoc could not compile {string.Join(", ", protos.Select(Path.GetFileName))}",
                cancellation,
                said => MissingImport(said, [.. searched.SkipLast(1)]));
            return await File.ReadAllBytesAsync(output, cancellation);
        }
        finally
        {
            File.Delete(output);
        }
    }

    /// <summary>An import protoc found in no folder ("warehouse/location.proto: File not found."): which, where it looked, and what to give.</summary>
    private static string? MissingImport(IReadOnlyList<string> said, IReadOnlyList<string> searched) =>
        said.Select(line => NotFound().Match(line)).FirstOrDefault(match => match.Success) is { } missing
            ? TargetText.Escape($"its import {missing.Groups[1].Value} is in none of the folders searched ({string.Join(", ", searched)}); add the folder that " +
                $"{missing.Groups[1].Value} lies under as an import path (the CLI's -i/--import-path, the gateway's Targets:<name>:ImportPaths)", 1000)
            : null;

    [GeneratedRegex(@"^(\S+\.proto): File not found\.?$")]
    private static partial Regex NotFound();
}
