using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;

namespace LoadEngine.Compiler;

/// <summary>
/// Compiles C# into an assembly image in memory, for the worker's loop (Program.cs).
/// </summary>
public static class CSharpImage
{
    // Comments protoc writes (doc comments of field numbers and the like) are not parsed as documentation: nothing reads them.
    private static readonly CSharpParseOptions Parsing = CSharpParseOptions.Default.WithDocumentationMode(DocumentationMode.None);

    // Kept for this context's life: Roslyn reads each reference's metadata once, however many compiles use it.
    private static readonly Dictionary<string, MetadataReference> References = new(StringComparer.Ordinal);

    /// <summary>The image of <paramref name="sources"/> (path and text) compiled as <paramref name="name"/>, or the first error with the file it is in.</summary>
    public static (byte[]? Image, string? Error) Emit(IReadOnlyList<(string Path, string Text)> sources, string name, IReadOnlyList<string> references, CancellationToken cancellation)
    {
        var trees = sources.Select(source => CSharpSyntaxTree.ParseText(source.Text, Parsing, source.Path, cancellationToken: cancellation)).ToList();
        var compilation = CSharpCompilation.Create(
            name,
            trees,
            references.Select(Reference).ToList(),
            new CSharpCompilationOptions(OutputKind.DynamicallyLinkedLibrary, optimizationLevel: OptimizationLevel.Release, nullableContextOptions: NullableContextOptions.Disable));
        using var image = new MemoryStream();
        var emitted = compilation.Emit(image, cancellationToken: cancellation);
        if (emitted.Success)
        {
            return (image.ToArray(), null);
        }

        var first = emitted.Diagnostics.First(diagnostic => diagnostic.Severity == DiagnosticSeverity.Error);
        return (null, $"{first.GetMessage()} in {Path.GetFileName(first.Location.SourceTree?.FilePath)}");
    }

    private static MetadataReference Reference(string path)
    {
        lock (References)
        {
            if (!References.TryGetValue(path, out var reference))
            {
                reference = MetadataReference.CreateFromFile(path);
                References[path] = reference;
            }

            return reference;
        }
    }
}
