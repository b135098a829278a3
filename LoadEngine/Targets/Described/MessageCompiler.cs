using System.Reflection;
using System.Runtime.Loader;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;

namespace LoadEngine.Targets.Described;

/// <summary>
/// A descriptor set's message types as real classes: protoc writes Google.Protobuf's C# for every file of the set (but the
/// well-known types, which Google.Protobuf.dll already has), and Roslyn compiles it in memory into its own load context.
/// Google.Protobuf's JsonParser and JsonFormatter then give the exact proto3 JSON mapping, and its generated code encodes.
/// </summary>
internal static class MessageCompiler
{
    private static readonly Lazy<IReadOnlyList<MetadataReference>> References = new(() =>
    {
        var paths = ((string?)AppContext.GetData("TRUSTED_PLATFORM_ASSEMBLIES") ?? "").Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries);
        var framework = Path.GetDirectoryName(typeof(object).Assembly.Location)!;
        return
        [
            .. paths.Where(path => Path.GetDirectoryName(path) == framework).Select(path => MetadataReference.CreateFromFile(path)),
            MetadataReference.CreateFromFile(typeof(IMessage).Assembly.Location),
        ];
    });

    /// <summary>The set's files, each as the FileDescriptor of its compiled classes (well-known types from Google.Protobuf).</summary>
    public static IReadOnlyList<FileDescriptor> Compile(FileDescriptorSet set, byte[] bytes, string name)
    {
        var generated = set.File.Where(file => !IsWellKnown(file.Name)).ToList();
        if (generated.Count == 0)
        {
            return [];
        }

        var folder = Directory.CreateTempSubdirectory("loadtest-described-");
        try
        {
            var setPath = Path.Combine(folder.FullName, "set.protoset");
            File.WriteAllBytes(setPath, bytes);
            var output = Directory.CreateDirectory(Path.Combine(folder.FullName, "cs")).FullName;
            try
            {
                ProtocTool.Run(
                    [$"--descriptor_set_in={setPath}", $"--csharp_out={output}", "--csharp_opt=file_extension=.g.cs,base_namespace=", .. generated.Select(file => file.Name)],
                    "protoc could not write C# for the target's descriptors");
            }
            catch (TargetDescriptionException problem) when (problem.Message.Contains("which is not imported by", StringComparison.Ordinal))
            {
                // @grpc/reflection serves proto-loader's rebuilt files, which name no imports (grpc/grpc-node#3034); grpcurl and ghz fail on them too.
                throw new TargetDescriptionException(
                    problem.Message + " Its descriptors do not list their imports, as grpc-js's @grpc/reflection serves them (grpc/grpc-node#3034): " +
                    "describe the target with its .proto files or a protoset instead.", problem);
            }
            var trees = Directory.EnumerateFiles(output, "*.g.cs", SearchOption.AllDirectories)
                .Select(path => CSharpSyntaxTree.ParseText(File.ReadAllText(path), CSharpParseOptions.Default, path))
                .ToList();
            var assembly = Emit(trees, name);
            var byName = assembly.GetTypes()
                .Where(type => type.IsAbstract && type.IsSealed && type.Name.EndsWith("Reflection", StringComparison.Ordinal))
                .Select(type => type.GetProperty("Descriptor", BindingFlags.Public | BindingFlags.Static)?.GetValue(null))
                .OfType<FileDescriptor>()
                .ToDictionary(file => file.Name, StringComparer.Ordinal);
            return [.. generated.Select(file => byName[file.Name])];
        }
        finally
        {
            folder.Delete(recursive: true);
        }
    }

    public static bool IsWellKnown(string file) => file.StartsWith("google/protobuf/", StringComparison.Ordinal);

    private static Assembly Emit(IReadOnlyList<SyntaxTree> trees, string name)
    {
        var compilation = CSharpCompilation.Create(
            name,
            trees,
            References.Value,
            new CSharpCompilationOptions(OutputKind.DynamicallyLinkedLibrary, optimizationLevel: OptimizationLevel.Release, nullableContextOptions: NullableContextOptions.Disable));
        using var image = new MemoryStream();
        var emitted = compilation.Emit(image);
        if (!emitted.Success)
        {
            var first = emitted.Diagnostics.First(diagnostic => diagnostic.Severity == DiagnosticSeverity.Error);
            throw new TargetDescriptionException($"The C# protoc wrote for the target's descriptors does not compile ({first.GetMessage()} in {Path.GetFileName(first.Location.SourceTree?.FilePath)}).");
        }

        image.Position = 0;
        return new AssemblyLoadContext(name).LoadFromStream(image);
    }
}
