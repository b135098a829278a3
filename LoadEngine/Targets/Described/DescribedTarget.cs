using System.Collections.Concurrent;
using Google.Protobuf;
using Google.Protobuf.Reflection;
using Grpc.Core;
using LoadEngine.Runs;

namespace LoadEngine.Targets.Described;

/// <summary>
/// A gRPC service the project did not write, described by a FileDescriptorSet (from .proto files through protoc, a
/// protoset, or server reflection): every method of every service it declares, callable by the engine with real message
/// types compiled from the set. Every set is rebuilt by <see cref="DescriptorAllowlist"/> first (wherever it came from, a
/// stored plan included), named by the SHA-256 of what was rebuilt, and compiled once per process while anything uses it:
/// its classes live in a collectible load context owned by this target, unloaded once nothing holds the target.
/// </summary>
public sealed class DescribedTarget
{
    /// <summary>How long a describe stopped by its caller waits for the compile it started to end (protoc and the compiler killed, its folder gone).</summary>
    private static readonly TimeSpan UnwindAtMost = TimeSpan.FromSeconds(10);

    private static readonly Lock Gate = new();

    // One cache, by hash: a set compiled while anything still holds its target, a compile under way (a second describe of
    // the same set joins it), and the built-in contracts, which are this process's own classes and never unloaded.
    private static readonly Dictionary<string, WeakReference<DescribedTarget>> Made = new(StringComparer.Ordinal);
    private static readonly Dictionary<string, Task<DescribedTarget>> Making = new(StringComparer.Ordinal);
    private static readonly ConcurrentDictionary<string, DescribedTarget> Generated = new(StringComparer.Ordinal);

    // Held only to be kept: its classes are unloaded when this target is collected.
    private readonly CompiledSet? _compiled;

    private DescribedTarget(byte[] set, string hash, IReadOnlyList<FileDescriptor> files, CompiledSet? compiled)
    {
        DescriptorSet = set;
        Hash = hash;
        _compiled = compiled;
        Methods = files
            .SelectMany(file => file.Services)
            .Where(service => !service.FullName.StartsWith("grpc.reflection.", StringComparison.Ordinal))
            .SelectMany(service => service.Methods)
            .Select(method => new DescribedMethod(method, this))
            .ToList();
    }

    /// <summary>The FileDescriptorSet (every file, its imports included) as <see cref="DescriptorAllowlist"/> rebuilt it.</summary>
    public byte[] DescriptorSet { get; }

    /// <summary>The SHA-256 of <see cref="DescriptorSet"/>, in hex: what a plan names the set by (<see cref="MethodCall.DescriptorSet"/>).</summary>
    public string Hash { get; }

    /// <summary>Every method of every service in the set but server reflection's own, in the order the files declare them.</summary>
    public IReadOnlyList<DescribedMethod> Methods { get; }

    /// <summary><paramref name="plan"/> calling this target: the set's bytes and its hash.</summary>
    public RunPlan Describing(RunPlan plan) => plan.Described is { } call ? plan with { Called = call with { Descriptors = DescriptorSet, DescriptorSet = Hash } } : plan;

    /// <summary>
    /// Describes a target from <paramref name="source"/>: its .proto files or protoset, or (when it names neither) the
    /// server reflection reached through <paramref name="invoker"/>, which is used for nothing else (null will do for
    /// files). Reflection, protoc and the compiler together get <paramref name="budget"/> (<see cref="DescribeLimits.Time"/>
    /// by default); a compiled image is read from and written to <paramref name="cache"/> when one is given.
    /// </summary>
    public static Task<DescribedTarget> DescribeAsync(DescriptorSource source, CallInvoker? invoker, CallOptions options, CompiledSetCache? cache = null, TimeSpan? budget = null) =>
        WithinAsync(budget ?? DescribeLimits.Time, options.CancellationToken, async limit => await FromDescriptorSetAsync(
            source.UsesReflection ? await ReflectionDescriber.DescribeAsync(invoker ?? throw new ArgumentNullException(nameof(invoker), "Server reflection needs the target's invoker."), options.WithCancellationToken(limit))
                : string.IsNullOrEmpty(source.Protoset) ? await ProtoFiles.DescribeAsync(source.Protos, source.ImportPaths, limit)
                : await ReadProtosetAsync(source.Protoset, limit),
            limit,
            cache));

    /// <summary>
    /// The target a FileDescriptorSet describes, whoever served or stored it: rebuilt from the allowlist, then found by its
    /// hash or compiled (a compile of the same set under way is joined). <paramref name="cancellation"/> stops the compile.
    /// </summary>
    public static Task<DescribedTarget> FromDescriptorSetAsync(byte[] set, CancellationToken cancellation, CompiledSetCache? cache = null) =>
        FromSafeAsync(DescriptorAllowlist.Rebuild(set), cancellation, cache);

    /// <summary>The target a plan's <see cref="MethodCall.DescriptorSet"/> names when this process has it compiled; null otherwise.</summary>
    public static DescribedTarget? WithHash(string hash)
    {
        if (Generated.TryGetValue(hash, out var own))
        {
            return own;
        }

        lock (Gate)
        {
            return Made.TryGetValue(hash, out var made) && made.TryGetTarget(out var target) ? target : null;
        }
    }

    /// <summary>
    /// The target a plan calls: found by the hash it names, else compiled from the bytes it carries (which must be the set
    /// the hash names: a stored plan's set is read back untrusted), within <see cref="DescribeLimits.Time"/>.
    /// </summary>
    public static async Task<DescribedTarget> OfAsync(RunPlan plan, CancellationToken cancellation)
    {
        var call = plan.Described;
        if (call?.DescriptorSet is { } hash && WithHash(hash) is { } found)
        {
            return found;
        }

        var safe = DescriptorAllowlist.Rebuild(call?.Descriptors ?? throw NoDescriptors(plan));
        if (call.DescriptorSet is not null && !string.Equals(call.DescriptorSet, safe.Hash, StringComparison.OrdinalIgnoreCase))
        {
            throw new TargetDescriptionException($"The plan's descriptor set is not the one it names ({CallTemplate.Excerpt(call.DescriptorSet, 16)}): it was changed after the plan was made.");
        }

        return await WithinAsync(DescribeLimits.Time, cancellation, limit => FromSafeAsync(safe, limit, null));
    }

    /// <summary>
    /// What <paramref name="describe"/> makes within <paramref name="budget"/>: past it, what stopped it (a cancelled compile,
    /// reflection's deadline, protoc killed) is the budget's sentence, unless <paramref name="cancellation"/> stopped it.
    /// </summary>
    private static async Task<DescribedTarget> WithinAsync(TimeSpan budget, CancellationToken cancellation, Func<CancellationToken, Task<DescribedTarget>> describe)
    {
        using var limit = CancellationTokenSource.CreateLinkedTokenSource(cancellation);
        limit.CancelAfter(budget);
        try
        {
            return await describe(limit.Token);
        }
        catch (Exception stopped) when (limit.IsCancellationRequested && !cancellation.IsCancellationRequested && stopped is OperationCanceledException or RpcException or TargetDescriptionException)
        {
            throw new TargetDescriptionException(
                $"Describing the target took longer than {budget.TotalSeconds:0.#} seconds, the most reflection, protoc and the compiler may take together; a set this slow to describe is refused.", stopped);
        }
    }

    /// <summary>
    /// The target a plan calls when this process has it compiled (a host describes its targets before their plans are
    /// checked); a plan whose set is not compiled here is a sentence, as <see cref="OfAsync"/> is what compiles one.
    /// </summary>
    public static DescribedTarget Of(RunPlan plan)
    {
        // The host names the set by its hash when it describes the target (Describing): it is not computed again here.
        var hash = plan.Described?.DescriptorSet ?? throw NoDescriptors(plan);
        return WithHash(hash)
            ?? throw new TargetDescriptionException($"The plan calls {plan.Described.Call} on {plan.Described.Target ?? "a target"} whose descriptors are not described in this process: describe the target again before the run.");
    }

    /// <summary>
    /// A target whose contracts this process already has as generated classes (the built-in service's): described from
    /// them, with no protoc and no compiler, and kept so a plan that carries this set calls through the same classes.
    /// </summary>
    public static DescribedTarget FromGenerated(IReadOnlyList<FileDescriptor> files)
    {
        // Imports first, as protoc orders a set with --include_imports; the generated contracts' imports are few and shallow.
        static IEnumerable<FileDescriptor> WithImports(FileDescriptor file) => file.Dependencies.SelectMany(WithImports).Append(file);
        var all = files.SelectMany(WithImports).Distinct();
        var safe = DescriptorAllowlist.Rebuild(new FileDescriptorSet { File = { all.Select(file => FileDescriptorProto.Parser.ParseFrom(file.SerializedData)) } }.ToByteArray());
        return Generated.GetOrAdd(safe.Hash, _ => new DescribedTarget(safe.Bytes, safe.Hash, files, null));
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

    private static async Task<DescribedTarget> FromSafeAsync(SafeDescriptorSet safe, CancellationToken cancellation, CompiledSetCache? cache)
    {
        if (WithHash(safe.Hash) is { } found)
        {
            return found;
        }

        while (true)
        {
            Task<DescribedTarget> making;
            var started = false;
            lock (Gate)
            {
                if (Made.TryGetValue(safe.Hash, out var made) && made.TryGetTarget(out var target))
                {
                    return target;
                }

                if (!Making.TryGetValue(safe.Hash, out making!))
                {
                    // Started off the lock, and always started: the compile removes itself from Making when it ends.
                    making = Task.Run(() => CompileAsync(safe, cache, cancellation), CancellationToken.None);
                    Making[safe.Hash] = making;
                    started = true;
                }
            }

            try
            {
                return await making.WaitAsync(cancellation);
            }
            catch (OperationCanceledException) when (!cancellation.IsCancellationRequested && making.IsCanceled)
            {
                // The compile joined was stopped by whoever started it, not by this caller: start one of its own.
            }
            catch (OperationCanceledException) when (started)
            {
                // This caller's token stops the compile it started too: its protoc and its compile are killed and its folder
                // deleted, which takes a moment after the token. The caller waits for that (a while at most), so a process
                // that exits next (the CLI) leaves no folder behind.
                await Task.WhenAny(making, Task.Delay(UnwindAtMost, CancellationToken.None));
                throw;
            }
        }
    }

    private static async Task<DescribedTarget> CompileAsync(SafeDescriptorSet safe, CompiledSetCache? cache, CancellationToken cancellation)
    {
        try
        {
            var compiled = await MessageCompiler.CompileAsync(safe, cache, cancellation);
            var target = new DescribedTarget(safe.Bytes, safe.Hash, compiled.Files, compiled);
            lock (Gate)
            {
                foreach (var dead in Made.Where(entry => !entry.Value.TryGetTarget(out _)).Select(entry => entry.Key).ToList())
                {
                    Made.Remove(dead);
                }

                Made[safe.Hash] = new WeakReference<DescribedTarget>(target);
            }

            // A set compiled now usually replaces one (a refresh): a background collection lets the one replaced unload
            // now rather than whenever the heap next fills, which a gateway that mostly waits may take hours to do.
            GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: false);
            return target;
        }
        finally
        {
            lock (Gate)
            {
                Making.Remove(safe.Hash);
            }
        }
    }

    private static TargetDescriptionException NoDescriptors(RunPlan plan) =>
        new($"The plan calls {plan.Described?.Call} but carries no descriptors of {plan.Described?.Target ?? "its target"}: the host describes the target before the run.");

    private static async Task<byte[]> ReadProtosetAsync(string path, CancellationToken cancellation)
    {
        var file = new FileInfo(path);
        if (!file.Exists)
        {
            throw new TargetDescriptionException($"The protoset {path} does not exist.");
        }

        return file.Length > DescribeLimits.Bytes
            ? throw new TargetDescriptionException($"The protoset {path} is {file.Length:N0} bytes; at most {DescribeLimits.Bytes:N0} bytes of descriptors are described.")
            : await File.ReadAllBytesAsync(path, cancellation);
    }
}
