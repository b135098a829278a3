using System.Runtime.Loader;
using Google.Protobuf.Reflection;

namespace LoadEngine.Targets.Described;

/// <summary>
/// One set's compiled classes and the collectible load context they live in, owned by one <see cref="DescribedTarget"/>:
/// when the target is collected (replaced, and no run uses it), the context is unloaded and the code goes with it.
/// </summary>
internal sealed class CompiledSet(IReadOnlyList<FileDescriptor> files, AssemblyLoadContext? context)
{
    public IReadOnlyList<FileDescriptor> Files => files;

    ~CompiledSet()
    {
        // Unloading begins now and ends when nothing holds a class of the set: answers, Methods a kept channel cached (their
        // marshallers hold the parser weakly), runs in flight (each holds the target).
        context?.Unload();
    }
}

/// <summary>
/// Compiled sets on disk, for a process that starts often (the CLI): each image under the user's cache folder, named by the
/// rebuilt set's hash and this build of the engine, so a second run against the same descriptors loads it instead of
/// running protoc and the compiler again. The folder is the user's own (whoever can write it can run code as the user
/// anyway); an image that does not load is made again.
/// </summary>
public sealed class CompiledSetCache(string folder)
{
    private const int Kept = 64;

    // A new build of the engine (its protoc, Google.Protobuf, compiler) writes its own images.
    private static readonly string Build = typeof(CompiledSetCache).Assembly.ManifestModule.ModuleVersionId.ToString("N")[..12];

    /// <summary>
    /// The cache in the user's cache folder: $XDG_CACHE_HOME, else ~/.cache on Linux and macOS, %LOCALAPPDATA% on Windows;
    /// null when there is none to write to.
    /// </summary>
    public static CompiledSetCache? ForUser()
    {
        var root = Environment.GetEnvironmentVariable("XDG_CACHE_HOME") is { Length: > 0 } xdg && Path.IsPathFullyQualified(xdg) ? xdg
            : OperatingSystem.IsWindows() ? Environment.GetFolderPath(Environment.SpecialFolder.LocalApplicationData)
            : Environment.GetFolderPath(Environment.SpecialFolder.UserProfile) is { Length: > 0 } home ? Path.Combine(home, ".cache")
            : null;
        return root is null ? null : new CompiledSetCache(Path.Combine(root, "grpcbestpractices", "described"));
    }

    internal byte[]? Read(string hash)
    {
        try
        {
            return File.ReadAllBytes(PathOf(hash));
        }
        catch (Exception absent) when (absent is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }

    /// <summary>Keeps the image (written whole, then renamed into place), and only the newest <see cref="Kept"/> of them.</summary>
    internal void Write(string hash, byte[] image)
    {
        try
        {
            Directory.CreateDirectory(folder);
            var writing = Path.Combine(folder, $"{hash}.{Guid.NewGuid():N}.tmp");
            File.WriteAllBytes(writing, image);
            File.Move(writing, PathOf(hash), overwrite: true);
            foreach (var old in new DirectoryInfo(folder).EnumerateFiles("*.dll").OrderByDescending(file => file.LastWriteTimeUtc).Skip(Kept))
            {
                old.Delete();
            }
        }
        catch (Exception unwritable) when (unwritable is IOException or UnauthorizedAccessException)
        {
            // A cache that cannot be written costs the next run a compile, nothing more.
        }
    }

    internal void Forget(string hash)
    {
        try
        {
            File.Delete(PathOf(hash));
        }
        catch (Exception busy) when (busy is IOException or UnauthorizedAccessException)
        {
        }
    }

    private string PathOf(string hash) => Path.Combine(folder, $"{hash}.{Build}.dll");
}
