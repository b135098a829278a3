using System.Text.RegularExpressions;
using LoadEngine;
using LoadEngine.Clients;
using Microsoft.Extensions.Options;

namespace ApiGateway.Targets;

/// <summary>
/// One gRPC service the gateway may load, configured under <c>Targets:&lt;name&gt;</c>; never taken from a request. Its
/// methods are described by <see cref="Proto"/> files, a <see cref="Protoset"/>, or server reflection when neither is set.
/// Paths are relative to the gateway's content root.
/// </summary>
public sealed class TargetOptions
{
    /// <summary>
    /// The service's http:// or https:// address: any host the operator names (this machine, a staging host, a Kubernetes
    /// service such as http://billing.staging.svc.cluster.local:8080); only configuration sets it, never a request.
    /// </summary>
    public string Address { get; set; } = string.Empty;

    /// <summary>The .proto files that describe it: a list (<c>Proto:0</c>, <c>Proto:1</c>) or one file (<c>Proto</c>).</summary>
    public List<string> Proto { get; set; } = [];

    /// <summary>Folders the .proto files' imports are found in; the well-known types need none.</summary>
    public List<string> ImportPaths { get; set; } = [];

    /// <summary>A compiled FileDescriptorSet (protoc --descriptor_set_out, with --include_imports).</summary>
    public string? Protoset { get; set; }

    /// <summary>Headers sent with every call, reflection's included; values are secrets to the gateway: never shown, never logged.</summary>
    public Dictionary<string, string> Metadata { get; set; } = new(StringComparer.OrdinalIgnoreCase);

    /// <summary>A PEM file of the CAs to trust for an https:// address instead of the system's.</summary>
    public string? CaCertificate { get; set; }

    /// <summary>A PEM client certificate for mutual TLS, with <see cref="ClientKey"/>.</summary>
    public string? ClientCertificate { get; set; }

    /// <summary>The PEM private key of <see cref="ClientCertificate"/>.</summary>
    public string? ClientKey { get; set; }

    /// <summary>The :authority (and TLS server name) to send instead of the address's host.</summary>
    public string? Authority { get; set; }

    /// <summary>Trust any server certificate: only when set, by name, to true.</summary>
    public bool InsecureSkipVerify { get; set; }

    /// <summary>gzip to compress every request message; empty for none.</summary>
    public string? Compression { get; set; }

    /// <summary>How its methods are described, in one word: reflection, proto or protoset.</summary>
    public string DescribedBy => Protoset is { Length: > 0 } ? "protoset" : Proto.Count > 0 ? "proto" : "reflection";

    public Uri AddressUri => new(Address, UriKind.Absolute);

    /// <summary>How the engine connects to it, files relative to <paramref name="fullPath"/>'s root, sentences naming Targets:<paramref name="name"/>'s keys.</summary>
    public TargetConnection Connection(string name, Func<string, string> fullPath) => new()
    {
        CaCertificate = Full(CaCertificate, fullPath),
        ClientCertificate = Full(ClientCertificate, fullPath),
        ClientKey = Full(ClientKey, fullPath),
        Authority = string.IsNullOrEmpty(Authority) ? null : Authority,
        InsecureSkipVerify = InsecureSkipVerify,
        Metadata = [.. Metadata.Select(pair => new KeyValuePair<string, string>(pair.Key.ToLowerInvariant(), pair.Value))],
        Compression = string.IsNullOrEmpty(Compression) ? null : Compression,
        SettingNames = ConnectionSettingNames.Under($"{TargetsOptions.Section}:{name}"),
    };

    private static string? Full(string? path, Func<string, string> fullPath) => string.IsNullOrEmpty(path) ? null : fullPath(path);
}

/// <summary>Every configured target by name. Section <c>Targets</c>; the built-in PerformanceService is always there too, as <see cref="BuiltIn"/>.</summary>
public sealed class TargetsOptions
{
    public const string Section = "Targets";

    /// <summary>The built-in PerformanceService at ServerUrl: a run that names no target loads it, as every chapter route does.</summary>
    public const string BuiltIn = "performance";

    public const string NameRule = "letters, digits, '-' and '_', at most 64";

    /// <summary><see cref="NameRule"/> as a regular expression.</summary>
    public const string NamePattern = "^[A-Za-z0-9_-]{1,64}$";

    public Dictionary<string, TargetOptions> Targets { get; } = new(StringComparer.OrdinalIgnoreCase);

    /// <summary>Every target's name, the built-in one first.</summary>
    public IReadOnlyList<string> Names => [BuiltIn, .. Targets.Keys.Order(StringComparer.Ordinal)];

    /// <summary>A target's name as configured (names are case-insensitive), the built-in one's included; null when none is.</summary>
    public string? Find(string name) => Names.FirstOrDefault(known => string.Equals(known, name, StringComparison.OrdinalIgnoreCase));
}

/// <summary>
/// Checks every target at start, each problem one sentence naming its key: an address that is not an absolute http(s)
/// address with a host, a file that is not there, settings that cannot go together.
/// </summary>
public sealed partial class TargetsValidation(IHostEnvironment environment) : IValidateOptions<TargetsOptions>
{
    public ValidateOptionsResult Validate(string? name, TargetsOptions options)
    {
        var problems = options.Targets.SelectMany(target => Problems(target.Key, target.Value)).ToList();
        return problems.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(problems);
    }

    public string FullPath(string path) => Path.GetFullPath(path, environment.ContentRootPath);

    private IEnumerable<string> Problems(string name, TargetOptions target)
    {
        var key = $"{TargetsOptions.Section}:{name}";
        if (!TargetName().IsMatch(name))
        {
            yield return $"{key}: a target's name may hold {TargetsOptions.NameRule} characters; '{name}' does not fit.";
        }

        if (string.Equals(name, TargetsOptions.BuiltIn, StringComparison.OrdinalIgnoreCase))
        {
            yield return $"{key}: '{TargetsOptions.BuiltIn}' is the built-in PerformanceService at ServerUrl; give this target another name.";
        }

        if (!EngineOptions.TryServiceAddress(target.Address, out var address) || address.Host.Length == 0 || address.Fragment.Length > 0)
        {
            yield return $"{key}:Address must be an absolute http:// or https:// address of a host and port with no path, " +
                $"e.g. http://127.0.0.1:50051 or http://billing.staging.svc.cluster.local:8080; it was '{target.Address}'.";
        }
        else if (address.UserInfo.Length > 0)
        {
            // Said without the address: what sits before the @ is a credential.
            yield return $"{key}:Address holds a user name or password before its host, which gRPC never sends; give credentials as {key}:Metadata (the address is not shown).";
        }
        else if (target.Metadata.FirstOrDefault(pair => pair.Key.EndsWith("-bin", StringComparison.OrdinalIgnoreCase) && !IsBase64(pair.Value)).Key is { } binary)
        {
            // Said here, before the connection's own check would quote the value: a metadata value is a secret.
            yield return $"{key}:Metadata:{binary} ends in -bin, so its value must be base64; it is not (the value is not shown).";
        }
        else if (!target.Connection(name, FullPath).TryLoad(address, out _, out var connection))
        {
            // Its certificates loaded, its metadata and compression checked: a sentence naming the key (never a metadata value).
            yield return connection;
        }

        if (target.Proto.Count > 0 && target.Protoset is { Length: > 0 })
        {
            yield return $"{key}: Proto and Protoset both describe the service; set one of them (or neither, for server reflection).";
        }

        if (target.ImportPaths.Count > 0 && target.Proto.Count == 0)
        {
            yield return $"{key}:ImportPaths are where Proto files' imports are found; set {key}:Proto too, or leave ImportPaths out.";
        }

        foreach (var missing in target.Proto.Select((proto, index) => MissingFile($"{key}:Proto:{index}", proto)).OfType<string>())
        {
            yield return missing;
        }

        foreach (var (folder, index) in target.ImportPaths.Select((folder, index) => (FullPath(folder), index)).Where(each => !Directory.Exists(each.Item1)))
        {
            yield return $"{key}:ImportPaths:{index} must be a folder; '{folder}' is not one.";
        }

        if (target.Protoset is { Length: > 0 } protoset && MissingFile($"{key}:Protoset", protoset) is { } noProtoset)
        {
            yield return noProtoset;
        }
    }

    private static bool IsBase64(string value) => Convert.TryFromBase64String(value, new byte[value.Length], out _);

    private string? MissingFile(string key, string path) =>
        File.Exists(FullPath(path)) ? null : $"{key} must be a file; '{FullPath(path)}' is not one.";

    [GeneratedRegex(TargetsOptions.NamePattern)]
    private static partial Regex TargetName();
}
