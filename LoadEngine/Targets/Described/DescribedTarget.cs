using System.Collections.Concurrent;
using System.Security.Cryptography;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using Grpc.Core;
using LoadEngine.Runs;

namespace LoadEngine.Targets.Described;

/// <summary>
/// A gRPC service the project did not write, described by a FileDescriptorSet (from .proto files through protoc, a
/// protoset, or server reflection): every method of every service it declares, callable by the engine with real message
/// types compiled from the set. One set is compiled once per process.
/// </summary>
public sealed class DescribedTarget
{
    private static readonly ConcurrentDictionary<string, Lazy<DescribedTarget>> Compiled = new(StringComparer.Ordinal);

    private DescribedTarget(byte[] set, IReadOnlyList<DescribedMethod> methods)
    {
        DescriptorSet = set;
        Hash = Convert.ToHexString(SHA256.HashData(set));
        Methods = methods;
    }

    /// <summary>The SHA-256 of <see cref="DescriptorSet"/>, in hex: what a plan names the set by (<see cref="RunPlan.DescriptorSet"/>).</summary>
    public string Hash { get; }

    /// <summary><paramref name="plan"/> calling this target: the set's bytes and its hash.</summary>
    public RunPlan Describing(RunPlan plan) => plan with { Descriptors = DescriptorSet, DescriptorSet = Hash };

    /// <summary>The FileDescriptorSet (every file, its imports included) as bytes: what a stored plan carries.</summary>
    public byte[] DescriptorSet { get; }

    /// <summary>Every method of every service in the set but server reflection's own, in the order the files declare them.</summary>
    public IReadOnlyList<DescribedMethod> Methods { get; }

    /// <summary>
    /// Describes a target from <paramref name="source"/>: its .proto files or protoset, or (when it names neither) the
    /// server reflection reached through <paramref name="invoker"/>, which is used for nothing else (null will do for files).
    /// </summary>
    public static async Task<DescribedTarget> DescribeAsync(DescriptorSource source, CallInvoker? invoker, CallOptions options)
    {
        var set = source.UsesReflection ? await ReflectionDescriber.DescribeAsync(invoker ?? throw new ArgumentNullException(nameof(invoker), "Server reflection needs the target's invoker."), options)
            : string.IsNullOrEmpty(source.Protoset) ? ProtoFiles.Describe(source.Protos, source.ImportPaths)
            : ReadProtoset(source.Protoset);
        return FromDescriptorSet(set);
    }

    /// <summary>The target a FileDescriptorSet describes; compiled once per distinct set in this process.</summary>
    public static DescribedTarget FromDescriptorSet(byte[] set)
    {
        var key = Convert.ToHexString(SHA256.HashData(set));
        var made = Compiled.GetOrAdd(key, _ => new Lazy<DescribedTarget>(() => Compile(set, key)));
        try
        {
            return made.Value;
        }
        catch (TargetDescriptionException)
        {
            // A set that failed is not kept: the next attempt (a fixed file, a server back up) tries again.
            Compiled.TryRemove(new KeyValuePair<string, Lazy<DescribedTarget>>(key, made));
            throw;
        }
    }

    /// <summary>
    /// A target whose contracts this process already has as generated classes (the built-in service's): described from
    /// them, with no protoc and no compiler, and kept so a plan that carries this set calls through the same classes.
    /// </summary>
    public static DescribedTarget FromGenerated(IReadOnlyList<FileDescriptor> files)
    {
        var all = new List<FileDescriptor>();
        foreach (var file in files)
        {
            AddWithImports(file, all);
        }

        var set = new FileDescriptorSet();
        set.File.AddRange(all.Select(file => FileDescriptorProto.Parser.ParseFrom(file.SerializedData)));
        var bytes = set.ToByteArray();
        var key = Convert.ToHexString(SHA256.HashData(bytes));
        return Compiled.GetOrAdd(key, _ => new Lazy<DescribedTarget>(() => FromFiles(files, bytes))).Value;
    }

    // Imports first, as protoc orders a set with --include_imports.
    private static void AddWithImports(FileDescriptor file, List<FileDescriptor> into)
    {
        if (into.Contains(file))
        {
            return;
        }

        foreach (var import in file.Dependencies)
        {
            AddWithImports(import, into);
        }

        into.Add(file);
    }

    /// <summary>
    /// The method <paramref name="call"/> names, as "pkg.Service/Method" or "pkg.Service.Method"; a method the target does not
    /// have is a sentence that lists those it has.
    /// </summary>
    public DescribedMethod Find(string call)
    {
        var trimmed = call.Trim().TrimStart('/');
        var cut = trimmed.IndexOf('/') is var slash and >= 0 ? slash : trimmed.LastIndexOf('.');
        var wanted = cut > 0 ? $"{trimmed[..cut]}/{trimmed[(cut + 1)..]}" : trimmed;
        return Methods.FirstOrDefault(method => method.Call == wanted)
            ?? throw new TargetDescriptionException(Methods.Count == 0
                ? $"The target has no method {call}: its descriptors declare no service."
                : $"The target has no method {call}; it has {string.Join(", ", Methods.Select(method => method.Call))}.");
    }

    private static DescribedTarget Compile(byte[] bytes, string key)
    {
        FileDescriptorSet set;
        try
        {
            set = FileDescriptorSet.Parser.ParseFrom(bytes);
        }
        catch (InvalidProtocolBufferException problem)
        {
            throw new TargetDescriptionException($"The target's descriptors are not a FileDescriptorSet ({problem.Message.TrimEnd('.')}).", problem);
        }

        return FromFiles(MessageCompiler.Compile(set, bytes, $"Described.{key[..16]}"), bytes);
    }

    /// <summary>The target that <paramref name="files"/>, compiled already, describe.</summary>
    internal static DescribedTarget FromFiles(IReadOnlyList<FileDescriptor> files, byte[] set)
    {
        var methods = files
            .SelectMany(file => file.Services)
            .Where(service => !service.FullName.StartsWith("grpc.reflection.", StringComparison.Ordinal))
            .SelectMany(service => service.Methods)
            .Select(method => new DescribedMethod(method))
            .ToList();
        return new DescribedTarget(set, methods);
    }

    private static byte[] ReadProtoset(string path)
    {
        if (!File.Exists(path))
        {
            throw new TargetDescriptionException($"The protoset {path} does not exist.");
        }

        return File.ReadAllBytes(path);
    }
}
