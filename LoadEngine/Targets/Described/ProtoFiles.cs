namespace LoadEngine.Targets.Described;

/// <summary>.proto files as one FileDescriptorSet, their imports included: protoc --include_imports --descriptor_set_out.</summary>
internal static class ProtoFiles
{
    public static byte[] Describe(IReadOnlyList<string> protos, IReadOnlyList<string> importPaths)
    {
        var files = protos.Select(Path.GetFullPath).ToList();
        var paths = importPaths.Select(Path.GetFullPath).ToList();
        if (files.FirstOrDefault(file => !File.Exists(file)) is { } missing)
        {
            throw new TargetDescriptionException($"The proto file {missing} does not exist.");
        }

        if (paths.FirstOrDefault(path => !Directory.Exists(path)) is { } absent)
        {
            throw new TargetDescriptionException($"The import path {absent} is not a folder.");
        }

        // protoc finds a file by the import path that holds it; one outside every given path is found in its own folder (as ghz does).
        var own = files
            .Where(file => !paths.Any(path => file.StartsWith(path + Path.DirectorySeparatorChar, StringComparison.Ordinal)))
            .Select(file => Path.GetDirectoryName(file)!)
            .Distinct(StringComparer.Ordinal);
        var output = Path.Combine(Path.GetTempPath(), $"loadtest-{Guid.NewGuid():N}.protoset");
        try
        {
            ProtocTool.Run(
                [
                    "--include_imports",
                    $"--descriptor_set_out={output}",
                    .. paths.Concat(own).Append(ProtocTool.IncludeDirectory).Select(path => $"--proto_path={path}"),
                    .. files,
                ],
                $"protoc could not compile {string.Join(", ", protos.Select(Path.GetFileName))}");
            return File.ReadAllBytes(output);
        }
        finally
        {
            File.Delete(output);
        }
    }
}
