using System.Globalization;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.Json.Serialization;
using System.Text.Json.Serialization.Metadata;
using LoadEngine.Protocols;

namespace LoadEngine.Runs;

/// <summary>
/// The one way a plan is bound to <see cref="RunPlanInput"/>, whoever wrote it: a JSON body, or a query string's or the
/// command line's values by their names, which become a JSON object of strings. System.Text.Json reads every value into its
/// type; one that does not read is refused with a sentence naming the field, what it held and what is allowed. The range of
/// a number that reads is <see cref="RunPlanRules"/>' to check, on the typed value.
/// </summary>
public static class RunPlanText
{
    // Numbers may come as JSON numbers or strings; enums by their wire names in any case; stages and percentiles as lists or text; thresholds as a list or one string.
    private static readonly JsonSerializerOptions Options = new(JsonSerializerDefaults.Web)
    {
        PropertyNameCaseInsensitive = false,
        TypeInfoResolver = new DefaultJsonTypeInfoResolver(),
        Converters =
        {
            new WireNameReader(), new ListReader<RampStage>(Stage), new ListReader<double>(Percentile), new OneOrManyReader(), new BooleanReader(),
        },
    };

    /// <summary>A plan's fields, the typed input's own JSON names in their order.</summary>
    public static IReadOnlyList<string> Fields { get; } = [.. Options.GetTypeInfo(typeof(RunPlanInput)).Properties.Select(property => property.Name)];

    /// <summary>Values by name (any case), each a string, and the thresholds given; bounded, then bound as a body is.</summary>
    public static bool TryRead(IReadOnlyDictionary<string, string?> values, IReadOnlyList<string>? thresholds, PlanLimits limits, out RunPlanInput input, out string error)
    {
        input = null!;
        var plan = new JsonObject();
        foreach (var field in Fields.Where(field => field != "thresholds"))
        {
            var text = values.FirstOrDefault(pair => string.Equals(pair.Key, field, StringComparison.OrdinalIgnoreCase)).Value;
            if (!string.IsNullOrEmpty(text) && !(field is "stages" or "percentiles" && string.IsNullOrWhiteSpace(text)))
            {
                plan[field] = text;
            }
        }

        // Every value is bounded before it is read: a list by its items, as it is written.
        error = plan.Select(pair => (Field: pair.Key, Text: pair.Value!.GetValue<string>()))
            .Select(pair => pair.Field is "stages" or "percentiles" ? Refused(pair.Field, pair.Text, limits, null) : InputBounds.TooLong(pair.Field, pair.Text, InputBounds.MaxLength(pair.Field)))
            .FirstOrDefault(problem => problem is not null) ?? string.Empty;
        if (thresholds is not null)
        {
            plan["thresholds"] = new JsonArray([.. thresholds.Select(threshold => JsonValue.Create(threshold))]);
        }

        using var document = JsonSerializer.SerializeToDocument(plan);
        return error.Length == 0 && TryBind(document.RootElement, limits, out input, out error);
    }

    /// <summary>A JSON object whose fields are the plan's (the caller has refused any other, and bounded each).</summary>
    public static bool TryBind(JsonElement plan, PlanLimits limits, out RunPlanInput input, out string error)
    {
        input = null!;
        error = string.Empty;
        try
        {
            input = plan.Deserialize<RunPlanInput>(Options)!;
            return true;
        }
        catch (JsonException unbound) when (unbound.Path is { } path)
        {
            var field = path.TrimStart('$', '.').Split('.', '[')[0];
            var text = Text(plan, field) ?? "";
            error = Refused(field, text, limits, Text(plan, "load")) ?? $"{field} was '{Excerpt.Of(text)}'; it must be a JSON string.";
            return false;
        }
    }

    /// <summary>A field's value as text (a string's own text, else its JSON), or null when the plan does not hold it.</summary>
    public static string? Text(JsonElement plan, string field) =>
        !plan.TryGetProperty(field, out var value) || value.ValueKind == JsonValueKind.Null ? null
        : value.ValueKind == JsonValueKind.String ? value.GetString() : value.GetRawText();

    /// <summary>The sentence for a field whose text does not read as its type; null when it does.</summary>
    private static string? Refused(string field, string text, PlanLimits limits, string? load) => field switch
    {
        "users" => Whole(field, text, 1, int.MaxValue) is null ? null : Must(field, text, $"a whole number from {WorkloadParameters.Users.Allowed}"),
        "fileBytes" => long.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out _) ? null : Must(field, text, WorkloadRules.FileBytesAllowed),
        "includeStatuses" => bool.TryParse(text, out _) ? null : Must(field, text, "true or false"),
        "load" => Wire<LoadKind>(field, text, $"one of: {RunPlanRules.LoadNames}"),
        "rate" => TryNumber(text, out _) ? null : RunPlanRules.RateRefused(text, WireNames<LoadKind>.TryParse(load, out var kind) ? kind : LoadKind.Open),
        "duration" => TryNumber(text, out _) ? null : RunPlanRules.SecondsRefused(text, limits.MaxRunSeconds),
        "stages" => List<RampStage>(field, text, PlanLimits.MaxStages, InputBounds.MaxStageLength, "\"10:5000,20:5000\"", Stage, RunPlanRules.NotAStage),
        "percentiles" => List<double>(field, text, PlanLimits.MaxPercentiles, InputBounds.MaxValueLength, "\"50,90,99,99.9\"", Percentile, RunPlanRules.NotAPercentile),
        "protocol" => Wire<ApiProtocol>(field, text),
        "serializer" => Wire<PayloadSerializer>(field, text),
        "httpVersion" => Wire<WireVersion>(field, text),
        "security" => Wire<WireSecurity>(field, text),
        "connection" => Wire<ConnectionUse>(field, text, WorkloadParameters.Connection.Allowed),
        "variant" => Wire<BulkReadVariant>(field, text, WorkloadParameters.Variant.Allowed),
        // A whole number's sentence comes from its range on RunPlanInput.
        _ => RunPlanRules.WholeRange(field, limits) is { } setting ? Whole(field, text, setting.Min, setting.Max) : null,
    };

    /// <summary>Stages as text writes them ("10:5000,20:5000"), bounded before they are read; else the sentence that refuses them.</summary>
    public static bool TryStages(string text, out IReadOnlyList<RampStage> stages, out string error) =>
        TryList(text, "stages", PlanLimits.MaxStages, InputBounds.MaxStageLength, "\"10:5000,20:5000\"", Stage, RunPlanRules.NotAStage, out stages, out error);

    /// <summary>Percentiles as text writes them ("50,90,p99,99.9"), bounded before they are read; else the sentence that refuses them.</summary>
    public static bool TryPercentiles(string text, out IReadOnlyList<double> percentiles, out string error) =>
        TryList(text, "percentiles", PlanLimits.MaxPercentiles, InputBounds.MaxValueLength, "\"50,90,99,99.9\"", Percentile, RunPlanRules.NotAPercentile, out percentiles, out error);

    private static bool TryList<T>(string text, string field, int maxItems, int maxItemLength, string example, Parse<T> parse, Func<string, string, string> refused, out IReadOnlyList<T> values, out string error)
    {
        error = List(field, text, maxItems, maxItemLength, example, parse, refused) ?? string.Empty;
        values = error.Length > 0 ? [] : [.. text.Split(',', StringSplitOptions.TrimEntries).Select(item => parse(item, out var value) ? value : default!)];
        return error.Length == 0;
    }

    private static string Must(string field, string text, string allowed) => $"{field} was '{text}'; it must be {allowed}.";

    private static string? Whole(string field, string text, int min, int max) =>
        int.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out _) ? null : RunPlanRules.WholeRefused(field, text, min, max);

    private static string? Wire<TEnum>(string field, string text, string? allowed = null) where TEnum : struct, Enum =>
        WireNames<TEnum>.TryParse(text, out _) ? null : Must(field, text, allowed ?? WireNames<TEnum>.Listed);

    private delegate bool Parse<T>(string text, out T value);

    /// <summary>A comma-separated list, bounded before its items are read; the sentence for its first item that does not read.</summary>
    private static string? List<T>(string field, string text, int maxItems, int maxItemLength, string example, Parse<T> parse, Func<string, string, string> refused)
    {
        var items = text.Split(',', StringSplitOptions.TrimEntries);
        return InputBounds.Items(field, items.Length, maxItems, example)
            ?? items.Select((item, index) => InputBounds.TooLong($"{field}[{index}]", item, maxItemLength)).FirstOrDefault(problem => problem is not null)
            ?? items.Where(item => !parse(item, out _)).Select(item => refused(text, item)).FirstOrDefault();
    }

    private static bool Stage(string pair, out RampStage stage)
    {
        var parts = pair.Split(':', StringSplitOptions.TrimEntries);
        var duration = 0.0;
        var rate = 0.0;
        var ok = parts.Length == 2 && TryNumber(parts[0], out duration) && TryNumber(parts[1], out rate);
        stage = new RampStage(duration, rate);
        return ok;
    }

    private static bool Percentile(string item, out double value) => TryNumber(item.TrimStart('p', 'P'), out value);

    private static bool TryNumber(string text, out double value) => double.TryParse(text, NumberStyles.AllowDecimalPoint | NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out value);

    /// <summary>
    /// Stages or percentiles as a JSON list, or as a query string writes them ("10:5000,20:5000", "p50,99.9"), whole or item
    /// by item.
    /// </summary>
    private sealed class ListReader<T>(Parse<T> parse) : JsonConverter<IReadOnlyList<T>>
    {
        public override IReadOnlyList<T> Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options)
        {
            if (reader.TokenType == JsonTokenType.String)
            {
                return FromText(reader.GetString()!);
            }

            if (reader.TokenType != JsonTokenType.StartArray)
            {
                throw new JsonException();
            }

            var items = new List<T>();
            while (reader.Read() && reader.TokenType != JsonTokenType.EndArray)
            {
                items.AddRange(reader.TokenType == JsonTokenType.String ? FromText(reader.GetString()!) : [JsonSerializer.Deserialize<T>(ref reader, options)!]);
            }

            return items;
        }

        private List<T> FromText(string text) =>
            [.. text.Split(',', StringSplitOptions.TrimEntries).Select(item => parse(item, out var value) ? value : throw new JsonException())];

        public override void Write(Utf8JsonWriter writer, IReadOnlyList<T> value, JsonSerializerOptions options) => throw new NotSupportedException();
    }

    /// <summary>Any enum by its wire name in any case, as a query string has always taken it; never by its number.</summary>
    private sealed class WireNameReader : JsonConverterFactory
    {
        public override bool CanConvert(Type typeToConvert) => typeToConvert.IsEnum;

        public override JsonConverter CreateConverter(Type typeToConvert, JsonSerializerOptions options) =>
            (JsonConverter)Activator.CreateInstance(typeof(Reader<>).MakeGenericType(typeToConvert))!;

        private sealed class Reader<TEnum> : JsonConverter<TEnum> where TEnum : struct, Enum
        {
            public override TEnum Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options) =>
                reader.TokenType == JsonTokenType.String && WireNames<TEnum>.TryParse(reader.GetString(), out var value) ? value : throw new JsonException();

            public override void Write(Utf8JsonWriter writer, TEnum value, JsonSerializerOptions options) => writer.WriteStringValue(WireNames<TEnum>.Name(value));
        }
    }

    /// <summary>true or false, as JSON or as text.</summary>
    private sealed class BooleanReader : JsonConverter<bool>
    {
        public override bool Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options) =>
            reader.TokenType is JsonTokenType.True or JsonTokenType.False ? reader.GetBoolean()
            : reader.TokenType == JsonTokenType.String && bool.TryParse(reader.GetString(), out var value) ? value : throw new JsonException();

        public override void Write(Utf8JsonWriter writer, bool value, JsonSerializerOptions options) => writer.WriteBooleanValue(value);
    }

    /// <summary>Thresholds as a list of strings, or one string.</summary>
    private sealed class OneOrManyReader : JsonConverter<IReadOnlyList<string>>
    {
        public override IReadOnlyList<string> Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options) =>
            reader.TokenType == JsonTokenType.String ? [reader.GetString()!] : JsonSerializer.Deserialize<List<string>>(ref reader, options) ?? [];

        public override void Write(Utf8JsonWriter writer, IReadOnlyList<string> value, JsonSerializerOptions options) => throw new NotSupportedException();
    }
}
