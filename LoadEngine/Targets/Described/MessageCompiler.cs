using System.Diagnostics;
using System.Reflection;
using System.Runtime.Loader;
using Google.Protobuf;
using Google.Protobuf.Reflection;

namespace LoadEngine.Targets.Described;

/// <summary>
/// A descriptor set's message types as real classes: protoc writes Google.Protobuf's C# for every file of the set (but the
/// well-known types, which Google.Protobuf.dll already has), Roslyn compiles it in memory (<see cref="CSharpCompiler"/>),
/// and the image is loaded into a collectible load context of its own. Google.Protobuf's JsonParser and JsonFormatter then
/// give the exact proto3 JSON mapping, and its generated code encodes. Only a set <see cref="DescriptorAllowlist"/> rebuilt comes here, so protoc's command line and
/// the C# it writes hold no text of the target's but checked names and numbers.
/// </summary>
internal static class MessageCompiler
{
    private const string TemporaryPrefix = "loadtest-described-";

    private static readonly Lazy<bool> Swept = new(SweepAbandoned);

    /// <summary>
    /// The set's files, each as the FileDescriptor of its classes (well-known types from Google.Protobuf), in a collectible
    /// load context; the image comes from <paramref name="cache"/> when it has this set, and goes into it otherwise.
    /// </summary>
    public static async Task<CompiledSet> CompileAsync(SafeDescriptorSet set, CompiledSetCache? cache, CancellationToken cancellation)
    {
        var generated = set.Files.Where(file => DescriptorAllowlist.WellKnownFile(file.Name) is null).ToList();
        if (generated.Count == 0)
        {
            return new CompiledSet([.. set.Files.Select(file => DescriptorAllowlist.WellKnownFile(file.Name)!)], null);
        }

        if (cache?.Read(set.Hash) is { } cached)
        {
            try
            {
                return Load(set, generated, cached);
            }
            catch (Exception unusable) when (unusable is BadImageFormatException or TargetDescriptionException or FileLoadException)
            {
                // A cached image that no longer loads (cut short, from another build) is made again.
                cache.Forget(set.Hash);
            }
        }

        var image = await GenerateAsync(set, generated, cancellation);
        var compiled = Load(set, generated, image);
        cache?.Write(set.Hash, image);
        return compiled;
    }

    private static CompiledSet Load(SafeDescriptorSet set, List<FileDescriptorProto> generated, byte[] image)
    {
        var context = new AssemblyLoadContext($"Described.{set.Hash[..16]}", isCollectible: true);
        try
        {
            var assembly = context.LoadFromStream(new MemoryStream(image, writable: false));
            // Touching Descriptor runs each file's static constructor: code protoc wrote from checked names and numbers only.
            var byName = assembly.GetTypes()
                .Where(type => type.IsAbstract && type.IsSealed && type.Name.EndsWith("Reflection", StringComparison.Ordinal))
                .Select(type => type.GetProperty("Descriptor", BindingFlags.Public | BindingFlags.Static)?.GetValue(null))
                .OfType<FileDescriptor>()
                .ToDictionary(file => file.Name, StringComparer.Ordinal);
            if (generated.FirstOrDefault(file => !byName.ContainsKey(file.Name)) is { } missing)
            {
                throw new TargetDescriptionException($"The C# protoc wrote for the target's descriptors has no classes for {missing.Name} (two of its files may compile to the same class name).");
            }

            return new CompiledSet([.. set.Files.Select(file => DescriptorAllowlist.WellKnownFile(file.Name) ?? byName[file.Name])], context);
        }
        catch
        {
            context.Unload();
            throw;
        }
    }

    private static async Task<byte[]> GenerateAsync(SafeDescriptorSet set, List<FileDescriptorProto> generated, CancellationToken cancellation)
    {
        _ = Swept.Value;
        var folder = Directory.CreateTempSubdirectory($"{TemporaryPrefix}{Environment.ProcessId}-");
        try
        {
            var setPath = Path.Combine(folder.FullName, "set.protoset");
            await File.WriteAllBytesAsync(setPath, set.Bytes, cancellation);
            var output = Directory.CreateDirectory(Path.Combine(folder.FullName, "cs")).FullName;
            try
            {
                await ProtocTool.RunAsync(
                    [$"--descriptor_set_in={setPath}", $"--csharp_out={output}", "--csharp_opt=file_extension=.g.cs,base_namespace=", .. generated.Select(file => file.Name)],
                    "protoc could not write C# for the target's descriptors",
                    cancellation);
            }
            catch (TargetDescriptionException problem) when (problem.Message.Contains("which is not imported by", StringComparison.Ordinal))
            {
                // @grpc/reflection serves proto-loader's rebuilt files, which name no imports (grpc/grpc-node#3034); grpcurl and ghz fail on them too.
                throw new TargetDescriptionException(
                    problem.Message + " Its descriptors do not list their imports, as grpc-js's @grpc/reflection serves them (grpc/grpc-node#3034): " +
                    "describe the target with its .proto files or a protoset instead.", problem);
            }

            var sources = new List<(string Path, string Text)>();
            foreach (var path in Directory.EnumerateFiles(output, "*.g.cs", SearchOption.AllDirectories))
            {
                sources.Add((path, await File.ReadAllTextAsync(path, cancellation)));
            }

            return await CSharpCompiler.EmitAsync(sources, $"Described.{set.Hash[..16]}", cancellation);
        }
        finally
        {
            folder.Delete(recursive: true);
        }
    }

    /// <summary>Folders a process that ended without its finally left (killed, out of memory): each names its process.</summary>
    private static bool SweepAbandoned()
    {
        foreach (var folder in Directory.EnumerateDirectories(Path.GetTempPath(), TemporaryPrefix + "*"))
        {
            var owner = Path.GetFileName(folder)[TemporaryPrefix.Length..].Split('-')[0];
            if (int.TryParse(owner, out var processId) && processId != Environment.ProcessId && !IsRunning(processId))
            {
                try
                {
                    Directory.Delete(folder, recursive: true);
                }
                catch (Exception busy) when (busy is IOException or UnauthorizedAccessException)
                {
                    // Another user's, or being removed by another sweep: left alone.
                }
            }
        }

        return true;
    }

    private static bool IsRunning(int processId)
    {
        try
        {
            using var process = Process.GetProcessById(processId);
            return !process.HasExited;
        }
        catch (ArgumentException)
        {
            return false;
        }
    }
}
