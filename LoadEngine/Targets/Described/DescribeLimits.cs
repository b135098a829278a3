namespace LoadEngine.Targets.Described;

/// <summary>
/// The ceilings on what a target's descriptors may make this tool do, each with the sentence that names it, after
/// Kestrel's limits: a set beyond one is refused before protoc or the compiler sees it. They leave room for a large real
/// service (a thousand messages compile in about 15 s on one core) and none for a set built to exhaust the tool.
/// </summary>
public static class DescribeLimits
{
    /// <summary>The FileDescriptorSet's size, and what server reflection may send in all.</summary>
    public const int Bytes = 8 * 1024 * 1024;

    public const int Files = 500;

    /// <summary>The longest chain of files each importing the next.</summary>
    public const int ImportDepth = 64;

    /// <summary>Messages declared inside messages.</summary>
    public const int NestingDepth = 32;

    /// <summary>Messages and enums together (map entries included): what the compiler's time and memory grow with.</summary>
    public const int Types = 2_000;

    /// <summary>Fields and enum values together.</summary>
    public const int Fields = 20_000;

    /// <summary>The characters of one name (a message, field, package, file…) and of one default value.</summary>
    public const int NameLength = 256;

    /// <summary>Describing from start to end: reflection, protoc and the compiler together.</summary>
    public static readonly TimeSpan Time = TimeSpan.FromSeconds(60);
}
