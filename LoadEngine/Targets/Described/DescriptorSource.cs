namespace LoadEngine.Targets.Described;

/// <summary>
/// Where a target's methods are described: <paramref name="Protos"/> (compiled by protoc with <paramref name="ImportPaths"/>,
/// the well-known types always found), a <paramref name="Protoset"/> file (a FileDescriptorSet), or, when neither is
/// given, the target's own server reflection.
/// </summary>
public sealed record DescriptorSource(IReadOnlyList<string> Protos, IReadOnlyList<string> ImportPaths, string? Protoset)
{
    public bool UsesReflection => Protos.Count == 0 && string.IsNullOrEmpty(Protoset);
}
