namespace GrpcBestPractices.Tests.Hostile;

/// <summary>What the tool must make of a hostile case once issue 28 is fixed.</summary>
public enum HostileVerdict
{
    /// <summary>Described and run: a big but plausible set, or one that changes on every describe.</summary>
    Works,

    /// <summary>Described with the dangerous part dropped (comments, options beyond those that change encoding), or refused in one sentence.</summary>
    WorksOrRefused,

    /// <summary>Refused in one sentence that names the bound or the fault.</summary>
    Refused,
}

/// <summary>
/// One case of issue 28: the set the hostile server serves (or a stored plan carries), built into the test's folder so
/// its marker lands there; the server's mode; and what the tool must do with it. <see cref="Says"/> must all be in the
/// sentence of a refusal (case-insensitive), one of <see cref="SaysOneOf"/> too when given, and
/// <see cref="NeverSays"/> nowhere in what the tool prints or answers.
/// </summary>
public sealed record HostileCase(string Name, Func<string, byte[]> Set, HostileVerdict Verdict)
{
    public string[] ServerOptions { get; init; } = [];

    public string[] Says { get; init; } = [];

    public string[] SaysOneOf { get; init; } = [];

    public string[] NeverSays { get; init; } = [];

    /// <summary>Whether the attack is in the set itself, so a stored plan carries it to agents; false for the server's modes.</summary>
    public bool InTheSet => ServerOptions.Length == 0;

    /// <summary>Where the case's code writes if it ever runs: the file the tests assert never appears.</summary>
    public static string Marker(string folder) => Path.Combine(folder, "marker");

    public override string ToString() => Name;
}

/// <summary>Every case of issue 28 that a hostile server or a stored descriptor set can bring, by name (for theories).</summary>
public static class HostileCases
{
    /// <summary>Escape sequences that set a terminal's title, clear its screen and turn its text red.</summary>
    public const string EscapeSequences = "\u001b]0;pwned-title\u0007\u001b[2J\u001b[31mred";

    // The first line of /etc/passwd, which protoc's error quotes when a file is named @/etc/passwd.
    private const string PasswdLine = "root:x:0:0";

    public static readonly IReadOnlyList<HostileCase> All =
    [
        new("comment-carriage-return", folder => HostileDescriptors.CommentWithCarriageReturn(HostileCase.Marker(folder)), HostileVerdict.WorksOrRefused),
        new("csharp-namespace", folder => HostileDescriptors.CSharpNamespace(HostileCase.Marker(folder)), HostileVerdict.WorksOrRefused),
        new("plugin-flag-file-names", folder => HostileDescriptors.PluginFlag(HostileCase.Marker(folder)), HostileVerdict.Refused) { Says = ["file name"] },
        new("descriptor-set-out-file-name", folder => HostileDescriptors.DescriptorSetOutFlag(HostileCase.Marker(folder)), HostileVerdict.Refused) { Says = ["file name"] },
        new("response-file-name", folder => HostileDescriptors.ResponseFile(HostileCase.Marker(folder), Path.Combine(folder, "arguments.txt")), HostileVerdict.Refused) { Says = ["file name"] },
        new("response-file-etc-passwd", _ => HostileDescriptors.ResponseFileQuotingAFile(), HostileVerdict.Refused) { Says = ["file name"], NeverSays = [PasswdLine] },
        new("missing-compiled-file", _ => HostileDescriptors.MissingCompiledFile(), HostileVerdict.Refused) { Says = ["file name"] },
        new("import-chain-100001", _ => HostileDescriptors.ImportChain(100_001), HostileVerdict.Refused) { Says = ["at most"], SaysOneOf = ["file", "import"] },
        new("import-chain-10000", _ => HostileDescriptors.ImportChain(10_000), HostileVerdict.Refused) { Says = ["at most"], SaysOneOf = ["file", "import"] },
        new("import-cycle", _ => HostileDescriptors.ImportCycle(), HostileVerdict.Refused) { Says = ["import"] },
        new("messages-20000", _ => HostileDescriptors.Messages(20_000), HostileVerdict.Refused) { Says = ["at most", "message"] },
        new("messages-1000", _ => HostileDescriptors.Messages(1_000), HostileVerdict.Works),
        new("nesting-1000", _ => HostileDescriptors.Nesting(1_000), HostileVerdict.Refused) { Says = ["at most", "nest"] },
        new("fields-60000", _ => HostileDescriptors.Fields(60_000), HostileVerdict.Refused) { Says = ["at most", "field"] },
        new("bytes-64mb", _ => HostileDescriptors.Bytes(64), HostileVerdict.Refused) { Says = ["at most", "byte"] },
        new("wrong-kind", _ => HostileDescriptors.Tiny(), HostileVerdict.Refused) { ServerOptions = ["--wrong-kind"] },
        new("error-message-escapes", _ => HostileDescriptors.Tiny(), HostileVerdict.Refused) { ServerOptions = ["--error-message", EscapeSequences], Says = ["pwned-title"] },
        new("never-answer", _ => HostileDescriptors.Tiny(), HostileVerdict.Refused) { ServerOptions = ["--never-answer"] },
        new("changing", _ => HostileDescriptors.Tiny(), HostileVerdict.Works) { ServerOptions = ["--changing"] },
    ];

    public static TheoryData<string> Names => new(All.Select(hostile => hostile.Name));

    public static TheoryData<string> InSets => new(All.Where(hostile => hostile.InTheSet).Select(hostile => hostile.Name));

    public static HostileCase Named(string name) => All.Single(hostile => hostile.Name == name);
}
