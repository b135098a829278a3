namespace LoadEngine.Protocols;

/// <summary>
/// The twelve contenders: gRPC contract-first and code-first over HTTP/2, REST with System.Text.Json and with
/// Newtonsoft.Json over HTTP/1.1 and HTTP/2, each in cleartext and over TLS. Validation, GET /api/workloads, the OpenAPI
/// text and the CLI's --contenders all come from this list and its rules.
/// </summary>
public static class ContenderList
{
    /// <summary>The sentence every refusal ends with: what may be combined.</summary>
    public const string Allowed =
        "Allowed: protocol grpc or grpc-code-first with serializer protobuf over httpVersion 2; protocol rest with serializer system-text-json or newtonsoft " +
        "over httpVersion 1.1 or 2; each with security cleartext or tls.";

    public static IReadOnlyList<Contender> All { get; } =
    [
        .. from protocol in Enum.GetValues<ApiProtocol>()
           from serializer in Enum.GetValues<PayloadSerializer>()
           from version in Enum.GetValues<WireVersion>()
           from security in Enum.GetValues<WireSecurity>()
           let contender = new Contender(protocol, serializer, version, security)
           where Refusal(contender) is null
           select contender,
    ];

    public static IReadOnlyList<string> Names { get; } = [.. All.Select(contender => contender.Name)];

    public static Contender? Find(string? name) => All.FirstOrDefault(contender => contender.Name == name);

    /// <summary>
    /// A contender from its four fields. Only the protocol is required: gRPC defaults to protobuf over HTTP/2,
    /// REST to System.Text.Json over HTTP/1.1 (as the studies ran it), both to cleartext.
    /// </summary>
    public static bool TryCreate(ApiProtocol? protocol, PayloadSerializer? serializer, WireVersion? version, WireSecurity? security, out Contender contender, out string error)
    {
        contender = null!;
        if (protocol is not { } api)
        {
            error = $"A workload run needs a protocol: {WireNames<ApiProtocol>.Listed}.";
            return false;
        }

        var grpc = api != ApiProtocol.Rest;
        contender = new Contender(
            api, serializer ?? (grpc ? PayloadSerializer.Protobuf : PayloadSerializer.SystemTextJson), version ?? (grpc ? WireVersion.Http2 : WireVersion.Http11), security ?? WireSecurity.Cleartext);
        error = Refusal(contender) is { } refusal ? $"{refusal} {Allowed}" : string.Empty;
        contender = error.Length == 0 ? contender : null!;
        return error.Length == 0;
    }

    /// <summary>Why a combination makes no sense, or null when it is one of the twelve.</summary>
    private static string? Refusal(Contender contender) => contender switch
    {
        { IsGrpc: true, Serializer: not PayloadSerializer.Protobuf } =>
            $"serializer was '{WireNames<PayloadSerializer>.Name(contender.Serializer)}' with protocol {WireNames<ApiProtocol>.Name(contender.Protocol)}; gRPC sends protobuf only.",
        { IsGrpc: true, HttpVersion: WireVersion.Http11 } =>
            $"httpVersion was '1.1' with protocol {WireNames<ApiProtocol>.Name(contender.Protocol)}; gRPC needs HTTP/2 (gRPC over HTTP/1.1 makes no sense, and the service's HTTP/1.1 listener refuses it).",
        { IsGrpc: false, Serializer: PayloadSerializer.Protobuf } =>
            "serializer was 'protobuf' with protocol rest; REST here is JSON, with system-text-json or newtonsoft.",
        _ => null,
    };
}
