using System.Reflection;
using System.Text.Json.Serialization;

namespace LoadEngine.Protocols;

/// <summary>How the calls are made: generated stubs, protobuf-net.Grpc's interface, or REST/JSON with HttpClient.</summary>
[JsonConverter(typeof(JsonStringEnumConverter<ApiProtocol>))]
public enum ApiProtocol
{
    [JsonStringEnumMemberName("grpc")]
    Grpc,

    [JsonStringEnumMemberName("grpc-code-first")]
    GrpcCodeFirst,

    [JsonStringEnumMemberName("rest")]
    Rest,
}

[JsonConverter(typeof(JsonStringEnumConverter<PayloadSerializer>))]
public enum PayloadSerializer
{
    [JsonStringEnumMemberName("protobuf")]
    Protobuf,

    [JsonStringEnumMemberName("system-text-json")]
    SystemTextJson,

    [JsonStringEnumMemberName("newtonsoft")]
    Newtonsoft,
}

[JsonConverter(typeof(JsonStringEnumConverter<WireVersion>))]
public enum WireVersion
{
    [JsonStringEnumMemberName("1.1")]
    Http11,

    [JsonStringEnumMemberName("2")]
    Http2,
}

[JsonConverter(typeof(JsonStringEnumConverter<WireSecurity>))]
public enum WireSecurity
{
    [JsonStringEnumMemberName("cleartext")]
    Cleartext,

    [JsonStringEnumMemberName("tls")]
    Tls,
}

/// <summary>big-dto's "kept" client or "from zero": a new channel or HttpClient per call.</summary>
[JsonConverter(typeof(JsonStringEnumConverter<ConnectionUse>))]
public enum ConnectionUse
{
    [JsonStringEnumMemberName("kept")]
    Kept,

    [JsonStringEnumMemberName("new-per-call")]
    NewPerCall,
}

/// <summary>bulk-read as pages (every contender) or as one server stream (gRPC).</summary>
[JsonConverter(typeof(JsonStringEnumConverter<BulkReadVariant>))]
public enum BulkReadVariant
{
    [JsonStringEnumMemberName("pages")]
    Pages,

    [JsonStringEnumMemberName("stream")]
    Stream,
}

/// <summary>
/// One way of calling the service's workloads: protocol × serializer × HTTP version × security. Only the combinations
/// of <see cref="ContenderList"/> are made; <see cref="ContenderList.TryCreate"/> says why any other is refused.
/// </summary>
public sealed record Contender(ApiProtocol Protocol, PayloadSerializer Serializer, WireVersion HttpVersion, WireSecurity Security)
{
    public bool IsGrpc => Protocol != ApiProtocol.Rest;

    /// <summary>"rest-stj-h1-tls", "grpc-code-first-h2-cleartext": the run's strategy name, in the history and on the charts.</summary>
    public string Name => string.Join('-', new[]
    {
        WireNames<ApiProtocol>.Name(Protocol),
        Serializer switch { PayloadSerializer.SystemTextJson => "stj", PayloadSerializer.Newtonsoft => "newtonsoft", _ => null },
        HttpVersion == WireVersion.Http11 ? "h1" : "h2",
        WireNames<WireSecurity>.Name(Security),
    }.Where(part => part is not null));

    /// <summary>"REST · System.Text.Json · HTTP/1.1 · TLS".</summary>
    public string Label => string.Join(" · ",
        Protocol switch { ApiProtocol.Grpc => "gRPC contract-first", ApiProtocol.GrpcCodeFirst => "gRPC code-first", _ => "REST" },
        Serializer switch { PayloadSerializer.Protobuf => "Protobuf", PayloadSerializer.SystemTextJson => "System.Text.Json", _ => "Newtonsoft.Json" },
        HttpVersion == WireVersion.Http11 ? "HTTP/1.1" : "HTTP/2",
        Security == WireSecurity.Tls ? "TLS" : HttpVersion == WireVersion.Http2 ? "cleartext (h2c)" : "cleartext");

    /// <summary>A plan's input run by this contender.</summary>
    public Runs.RunPlanInput Into(Runs.RunPlanInput input) => input with { Protocol = Protocol, Serializer = Serializer, HttpVersion = HttpVersion, Security = Security };

    /// <summary>Which of the service's request counters (GET /diagnostics, "protocols") this contender's calls land in.</summary>
    public string ServiceApi => (Protocol, Serializer) switch
    {
        (ApiProtocol.Grpc, _) => "grpc",
        (ApiProtocol.GrpcCodeFirst, _) => "grpc-code-first",
        (_, PayloadSerializer.SystemTextJson) => "rest-stj",
        _ => "rest-newtonsoft",
    };
}

/// <summary>An enum's wire names (its <see cref="JsonStringEnumMemberNameAttribute"/>s), for parsing text and for the sentences that list what is allowed.</summary>
public static class WireNames<TEnum> where TEnum : struct, Enum
{
    private static readonly (TEnum Value, string Name)[] Pairs =
    [
        .. Enum.GetValues<TEnum>().Select(value => (value,
            typeof(TEnum).GetField(value.ToString())!.GetCustomAttribute<JsonStringEnumMemberNameAttribute>()?.Name ?? value.ToString().ToLowerInvariant())),
    ];

    /// <summary>"grpc, grpc-code-first or rest".</summary>
    public static string Listed { get; } = Pairs.Length == 1 ? Pairs[0].Name : $"{string.Join(", ", Pairs[..^1].Select(pair => pair.Name))} or {Pairs[^1].Name}";

    public static string Name(TEnum value) => Array.Find(Pairs, pair => EqualityComparer<TEnum>.Default.Equals(pair.Value, value)).Name;

    public static bool TryParse(string? text, out TEnum value)
    {
        var found = Array.FindIndex(Pairs, pair => string.Equals(pair.Name, text, StringComparison.OrdinalIgnoreCase));
        value = found < 0 ? default : Pairs[found].Value;
        return found >= 0;
    }
}
