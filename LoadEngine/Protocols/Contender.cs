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

    public static IReadOnlyList<string> Names { get; } = [.. Pairs.Select(pair => pair.Name)];

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

/// <summary>
/// An enum setting's value, read from its wire name only (never the C# name nor the number, which a plain enum of a chapter
/// route's query would take): ASP.NET Core binds a query's text to it through <see cref="TryParse"/>.
/// </summary>
public readonly record struct WireName<TEnum>(TEnum Value) : IParsable<WireName<TEnum>> where TEnum : struct, Enum
{
    public static bool TryParse(string? text, IFormatProvider? provider, out WireName<TEnum> result)
    {
        var read = WireNames<TEnum>.TryParse(text, out var value);
        result = new(value);
        return read;
    }

    public static WireName<TEnum> Parse(string text, IFormatProvider? provider) =>
        TryParse(text, provider, out var result) ? result : throw new FormatException($"'{text}' is none of {WireNames<TEnum>.Listed}.");

    public override string ToString() => WireNames<TEnum>.Name(Value);
}

/// <summary>A <see cref="WireName{TEnum}"/> whose enum is known only when the program runs (a setting's type): its names, and text read as one.</summary>
public static class WireName
{
    /// <summary>The enum a <see cref="WireName{TEnum}"/> (or its nullable) names; null for any other type.</summary>
    public static Type? EnumOf(Type type) =>
        (Nullable.GetUnderlyingType(type) ?? type) is { IsGenericType: true } named && named.GetGenericTypeDefinition() == typeof(WireName<>) ? named.GetGenericArguments()[0] : null;

    public static IReadOnlyList<string> Names(Type enumType) => (IReadOnlyList<string>)Of(enumType).GetProperty(nameof(WireNames<ApiProtocol>.Names))!.GetValue(null)!;

    public static string Listed(Type enumType) => (string)Of(enumType).GetProperty(nameof(WireNames<ApiProtocol>.Listed))!.GetValue(null)!;

    /// <summary>The <see cref="WireName{TEnum}"/> <paramref name="text"/> names, boxed; null when it names none.</summary>
    public static object? Read(Type enumType, string text)
    {
        object?[] arguments = [text, null];
        return (bool)Of(enumType).GetMethod(nameof(WireNames<ApiProtocol>.TryParse))!.Invoke(null, arguments)!
            ? Activator.CreateInstance(typeof(WireName<>).MakeGenericType(enumType), arguments[1]) : null;
    }

    private static Type Of(Type enumType) => typeof(WireNames<>).MakeGenericType(enumType);
}
