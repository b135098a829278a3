using System.Reflection;
using System.Runtime.CompilerServices;
using System.Text.Json;
using System.Text.Json.Serialization;
using LoadEngine.Protocols;

namespace LoadEngine.Runs;

/// <summary>
/// A plan's JSON as answers, events, exports, agents and stored histories have always had it: flat, the called part's
/// fields among the load settings. <see cref="RunPlan"/>'s own settings are written and read as they are declared, each
/// by its type (so a new setting needs nothing here); the built-in call's delay and payload come right after the
/// warm-up, and a workload's or a described call's fields after the settings. Read back, the fields present tell the
/// part: a workload and its contender, a described call, or else the built-in service's call.
/// </summary>
public sealed class RunPlanJson : JsonConverter<RunPlan>
{
    // Written with the caller's options but for nulls, which only the settings marked JsonIgnoreCondition.Never write (Written).
    private static readonly ConditionalWeakTable<JsonSerializerOptions, JsonSerializerOptions> LeavingOutNulls = [];

    // The called part's fields are read from the whole plan, among fields that are not theirs.
    private static readonly ConditionalWeakTable<JsonSerializerOptions, JsonSerializerOptions> SkippingOthers = [];

    /// <summary>The plan's settings in the order they are declared: everything but what is computed or [JsonIgnore]d.</summary>
    public static IReadOnlyList<PropertyInfo> Settings { get; } =
    [
        .. typeof(RunPlan).GetProperties(BindingFlags.Public | BindingFlags.Instance)
            .Where(property => property.SetMethod is { IsPublic: true } && property.GetCustomAttribute<JsonIgnoreAttribute>() is not { Condition: JsonIgnoreCondition.Always })
            .OrderBy(property => property.MetadataToken),
    ];

    /// <summary>The called part's fields, for documents that describe the JSON: the built-in call's after the warm-up, the others after the settings.</summary>
    public static (Type AfterWarmup, Type AfterSettings) CalledShapes => (typeof(BuiltInFields), typeof(OtherFields));

    public override RunPlan Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options)
    {
        using var document = JsonDocument.ParseValue(ref reader);
        var root = document.RootElement;
        if (root.ValueKind != JsonValueKind.Object)
        {
            throw new JsonException($"A plan is a JSON object, not {root.ValueKind}.");
        }

        var comparison = options.PropertyNameCaseInsensitive ? StringComparer.OrdinalIgnoreCase : StringComparer.Ordinal;
        var fields = new Dictionary<string, JsonElement>(comparison);
        foreach (var field in root.EnumerateObject())
        {
            fields[field.Name] = field.Value;
        }

        var plan = new RunPlan { Strategy = null! };
        foreach (var setting in Settings)
        {
            // Left out or null, a setting keeps its default.
            if (fields.TryGetValue(Name(setting, options), out var value) && value.ValueKind != JsonValueKind.Null)
            {
                setting.SetValue(plan, value.Deserialize(setting.PropertyType, options));
            }
        }

        var partOptions = SkippingOthers.GetValue(options, given => new(given) { UnmappedMemberHandling = JsonUnmappedMemberHandling.Skip });
        var builtIn = root.Deserialize<BuiltInFields>(partOptions)!;
        var other = root.Deserialize<OtherFields>(partOptions)!;
        return plan with
        {
            Called = other.Workload is { } id ? new WorkloadContender(id, other.Contender(), other.FileBytes, other.Connection, other.Clients, other.Variant, other.Users)
                : other.Call is { } call ? new MethodCall { Target = other.Target, Call = call, Data = other.Data, DescriptorSet = other.DescriptorSet }
                : new BuiltInCall(builtIn.DelayMs, builtIn.PayloadBytes),
        };
    }

    public override void Write(Utf8JsonWriter writer, RunPlan value, JsonSerializerOptions options)
    {
        var leavingOutNulls = LeavingOutNulls.GetValue(options, given => new(given) { DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull });
        var (builtIn, workload, described) = (value.Called as BuiltInCall ?? new BuiltInCall(), value.Workload, value.Described);
        writer.WriteStartObject();
        foreach (var setting in Settings)
        {
            var set = setting.GetValue(value);
            if (Written(setting, set))
            {
                writer.WritePropertyName(Name(setting, options));
                JsonSerializer.Serialize(writer, set, setting.PropertyType, leavingOutNulls);
            }

            if (setting.Name == nameof(RunPlan.Warmup))
            {
                WriteFields(writer, new BuiltInFields(builtIn.DelayMs, builtIn.PayloadBytes), leavingOutNulls);
            }
        }

        WriteFields(writer, new OtherFields(
            workload?.Id, workload?.Contender?.Protocol, workload?.Contender?.Serializer, workload?.Contender?.HttpVersion, workload?.Contender?.Security,
            workload?.FileBytes, workload?.Connection, workload?.Clients, workload?.Variant, workload?.Users,
            described?.Target, described?.Call, described?.Data, described?.DescriptorSet), leavingOutNulls);
        writer.WriteEndObject();
    }

    /// <summary>
    /// Whether a setting's value is written, as its [JsonIgnore] says: a null one only when marked Never; a default one not
    /// when marked WhenWritingDefault (a setting added later, so plans stored before it read and write back unchanged).
    /// </summary>
    internal static bool Written(PropertyInfo setting, object? value) => (value, setting.GetCustomAttribute<JsonIgnoreAttribute>()?.Condition) switch
    {
        (null, var condition) => condition == JsonIgnoreCondition.Never,
        (_, JsonIgnoreCondition.WhenWritingDefault) => !setting.PropertyType.IsValueType || !value.Equals(Activator.CreateInstance(setting.PropertyType)),
        _ => true,
    };

    private static string Name(PropertyInfo setting, JsonSerializerOptions options) =>
        setting.GetCustomAttribute<JsonPropertyNameAttribute>()?.Name ?? options.PropertyNamingPolicy?.ConvertName(setting.Name) ?? setting.Name;

    /// <summary>Writes a part's fields into the object being written, as its own JSON object would hold them.</summary>
    private static void WriteFields<T>(Utf8JsonWriter writer, T part, JsonSerializerOptions options)
    {
        using var fields = JsonSerializer.SerializeToDocument(part, options);
        foreach (var field in fields.RootElement.EnumerateObject())
        {
            field.WriteTo(writer);
        }
    }

    private sealed record BuiltInFields(int DelayMs = 0, int PayloadBytes = RunPlanRules.DefaultPayloadBytes);

    private sealed record OtherFields(
        string? Workload = null, ApiProtocol? Protocol = null, PayloadSerializer? Serializer = null, WireVersion? HttpVersion = null, WireSecurity? Security = null,
        long? FileBytes = null, ConnectionUse? Connection = null, int? Clients = null, BulkReadVariant? Variant = null, int? Users = null,
        string? Target = null, string? Call = null, string? Data = null, string? DescriptorSet = null)
    {
        public Contender? Contender() => (Protocol, Serializer, HttpVersion, Security) is ({ } protocol, { } serializer, { } version, { } security)
            ? new Contender(protocol, serializer, version, security)
            : null;
    }
}
