using System.Globalization;
using System.Reflection;
using System.Text.Json;
using System.Text.Json.Serialization;
using System.Text.Json.Serialization.Metadata;
using LoadEngine.Protocols;
using LoadEngine.Thresholds;

namespace LoadEngine.Runs;

/// <summary>
/// How a plan is bound to <see cref="RunPlanInput"/> (or a body derived from it), whoever wrote it: System.Text.Json reads
/// every value into its type with the readers <see cref="Bind"/> gives each field; one that does not read is refused with a
/// sentence naming the field, what it held and what is allowed (<see cref="Refusal"/>). The range of a number that reads
/// is <see cref="RunPlanRules"/>' to check, on the typed value.
/// </summary>
public static class RunPlanText
{
    private static readonly JsonSerializerOptions Options = Bind(new JsonSerializerOptions(JsonSerializerDefaults.Web), new Dictionary<Type, IReadOnlyList<string>>());

    /// <summary>A plan's fields, the typed input's own JSON names in their order.</summary>
    public static IReadOnlyList<string> Fields { get; } = [.. Options.GetTypeInfo(typeof(RunPlanInput)).Properties.Select(property => property.Name)];

    /// <summary>
    /// Makes <paramref name="options"/> read plans: a field no plan holds is refused, names match exactly, numbers come as JSON
    /// numbers or strings, enums by their wire names in any case, stages and percentiles as lists or as text writes them,
    /// thresholds as a list or one string, data as JSON or a string holding it (kept as text). A body whose type is in
    /// <paramref name="only"/> holds only the fields listed there.
    /// </summary>
    public static JsonSerializerOptions Bind(JsonSerializerOptions options, IReadOnlyDictionary<Type, IReadOnlyList<string>> only)
    {
        options.PropertyNameCaseInsensitive = false;
        options.TypeInfoResolver = (options.TypeInfoResolver ?? new DefaultJsonTypeInfoResolver()).WithAddedModifier(info =>
        {
            if (info.Kind != JsonTypeInfoKind.Object || !typeof(RunPlanInput).IsAssignableFrom(info.Type))
            {
                return;
            }

            info.UnmappedMemberHandling = JsonUnmappedMemberHandling.Disallow;
            // The contract keeps a [JsonIgnore]d member (the caller's SharedBy) as a property that reads nothing: a body naming it
            // would be taken and dropped, and the sentences would list it as a setting. Without it, it is refused like any unknown field.
            foreach (var property in info.Properties.Where(property => property.AttributeProvider?.IsDefined(typeof(JsonIgnoreAttribute), inherit: true) == true
                || only.TryGetValue(info.Type, out var fields) && !fields.Contains(property.Name)).ToList())
            {
                info.Properties.Remove(property);
            }

            foreach (var property in info.Properties)
            {
                property.CustomConverter = Reader(property.Name, property.PropertyType);
            }
        });
        return options;
    }

    /// <summary>The sentence for a value one of <see cref="Bind"/>'s readers refused; null when the JSON itself did not read.</summary>
    public static string? Refusal(JsonException unbound, PlanLimits limits)
    {
        var field = unbound.Path?.TrimStart('$', '.').Split('.', '[')[0] ?? "";
        return unbound switch
        {
            RefusedValue { Sentence: { } sentence } => sentence,
            RefusedValue { Text: var text } => Refused(field, text, limits) ?? $"{field} was '{Excerpt.Of(text)}'; it must be a JSON string.",
            _ => null,
        };
    }

    /// <summary>The sentence for a query's value of <paramref name="field"/> that did not read, as its body value's would be; null for a text field.</summary>
    public static string? Refusal(string field, string text, PlanLimits limits) =>
        InputBounds.TooLong(field, text, InputBounds.MaxValueLength) ?? Refused(field, text, limits);

    /// <summary>A value a reader refused: the sentence when the reader could say it, else the value as sent, for <see cref="Refused"/>.</summary>
    public sealed class RefusedValue(string text, string? sentence = null) : JsonException(sentence ?? text)
    {
        public string Text { get; } = text;

        public string? Sentence { get; } = sentence;
    }

    /// <summary>The sentence for a field whose text did not read as its type; null for a field that takes only a JSON string.</summary>
    private static string? Refused(string field, string text, PlanLimits limits) => field switch
    {
        "users" => Must(field, text, $"a whole number from {WorkloadParameters.Users.Allowed}"),
        "fileBytes" => Must(field, text, WorkloadRules.FileBytesAllowed),
        "includeStatuses" => Must(field, text, "true or false"),
        "load" => Must(field, text, $"one of: {RunPlanRules.LoadNames}"),
        "rate" => RunPlanRules.RateRefused(text, LoadKind.Open),
        "duration" => RunPlanRules.SecondsRefused(text, limits.MaxRunSeconds),
        // A setting that states its range or meaning on RunPlanInput says its own, by its kind.
        _ => PlanSetting.Find(field, limits)?.Refused(text),
    };

    /// <summary>Stages as text writes them ("10:5000,20:5000"), each bounded before it is read; else the sentence that refuses them.</summary>
    public static bool TryStages(string text, out IReadOnlyList<RampStage> stages, out string error) =>
        TryList(text, "stages", InputBounds.MaxStageLength, Stage, RunPlanRules.NotAStage, out stages, out error);

    /// <summary>Percentiles as text writes them ("50,90,p99,99.9"), each bounded before it is read; else the sentence that refuses them.</summary>
    public static bool TryPercentiles(string text, out IReadOnlyList<double> percentiles, out string error) =>
        TryList(text, "percentiles", InputBounds.MaxValueLength, Percentile, RunPlanRules.NotAPercentile, out percentiles, out error);

    /// <summary>
    /// A comma-separated list, each item bounded before it is read; else the sentence for its first item that does not read.
    /// How many items a list may hold is <see cref="InputBounds.Check"/>'s to say, once, whoever wrote the list.
    /// </summary>
    private static bool TryList<T>(string text, string field, int maxItemLength, Parse<T> parse, Func<string, string, string> refused, out IReadOnlyList<T> values, out string error)
    {
        var items = text.Split(',', StringSplitOptions.TrimEntries);
        error = items.Select((item, index) => InputBounds.TooLong($"{field}[{index}]", item, maxItemLength)).FirstOrDefault(problem => problem is not null)
            ?? items.Where(item => !parse(item, out _)).Select(item => refused(text, item)).FirstOrDefault() ?? string.Empty;
        values = error.Length > 0 ? [] : [.. items.Select(item => parse(item, out var value) ? value : default!)];
        return error.Length == 0;
    }

    private static string Must(string field, string text, string allowed) => $"{field} was '{Excerpt.Of(text)}'; it must be {allowed}.";

    private delegate bool Parse<T>(string text, out T value);

    private static bool Stage(string pair, out RampStage stage)
    {
        var parts = pair.Split(':', StringSplitOptions.TrimEntries);
        stage = parts.Length == 2 && TryNumber(parts[0], out var duration) && TryNumber(parts[1], out var rate) ? new RampStage(duration, rate) : null!;
        return stage is not null;
    }

    private static bool Percentile(string item, out double value) => TryNumber(item.TrimStart('p', 'P'), out value);

    private static bool TryNumber(string text, out double value) => double.TryParse(text, NumberStyles.AllowDecimalPoint | NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out value);

    private static bool TryWhole(string text, out int value) => int.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out value);

    private static bool TryLong(string text, out long value) => long.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out value);

    /// <summary>The reader of one field, by its type.</summary>
    private static JsonConverter Reader(string field, Type type) => type switch
    {
        _ when type == typeof(int?) => new ValueReader<int>(field, TryWhole),
        _ when type == typeof(long?) => new ValueReader<long>(field, TryLong),
        _ when type == typeof(double?) => new ValueReader<double>(field, TryNumber),
        _ when type == typeof(bool?) => new ValueReader<bool>(field, bool.TryParse),
        _ when Nullable.GetUnderlyingType(type) is { IsEnum: true } underlying =>
            Make(nameof(Wire), underlying, field),
        _ when WireName.EnumOf(type) is { } named => Make(nameof(Named), named, field),
        _ when type == typeof(string[]) => new LabelsReader(),
        _ when type == typeof(IReadOnlyList<RampStage>) => new ListReader<RampStage>(TryStages, StageItem, NotStages),
        _ when type == typeof(IReadOnlyList<double>) => new ListReader<double>(TryPercentiles, PercentileItem, NotPercentiles),
        _ when type == typeof(IReadOnlyList<string>) && field == "thresholds" => new ListReader<string>(One, Strings(NotThresholds), NotThresholds),
        // A suite's strategies, a comparison's contenders: an array of strings, or refused with no sentence, which the gateway words.
        _ when type == typeof(IReadOnlyList<string>) => new ListReader<string>(null, Strings(_ => ""), _ => null),
        _ => new TextReader(field),
    };

    private static JsonConverter Make(string reader, Type enumType, string field) =>
        (JsonConverter)typeof(RunPlanText).GetMethod(reader, BindingFlags.NonPublic | BindingFlags.Static)!.MakeGenericMethod(enumType).Invoke(null, [field])!;

    private delegate bool TryText<T>(string text, out T value, out string error);

    /// <summary>One item of a JSON list: null when it reads, else the sentence that refuses it ("" to refuse it with none).</summary>
    private delegate string? ItemReader<T>(JsonElement item, int index, out T value);

    private static string NotStages(string held) =>
        $"stages must be an array of {{\"duration\": seconds, \"target\": calls per second}}, e.g. [{{\"duration\": 10, \"target\": 5000}}]; it held {Excerpt.Of(held)}.";

    private static string NotPercentiles(string held) => $"percentiles must be an array of numbers, e.g. [50, 90, 99, 99.9]; it held {Excerpt.Of(held)}.";

    private static string NotThresholds(string held) => $"thresholds must be an array of strings; it held {Excerpt.Of(held)}. {Threshold.AcceptedForm}";

    private static string? StageItem(JsonElement item, int index, out RampStage stage)
    {
        stage = default!;
        if (item.ValueKind == JsonValueKind.Object && item.TryGetProperty("duration", out var duration) && item.TryGetProperty("target", out var target)
            && duration.ValueKind == JsonValueKind.Number && target.ValueKind == JsonValueKind.Number)
        {
            stage = new RampStage(duration.GetDouble(), target.GetDouble());
            return null;
        }

        return item.ValueKind == JsonValueKind.String && Stage(item.GetString()!, out stage) ? null : NotStages(TextOf(item));
    }

    private static string? PercentileItem(JsonElement item, int index, out double percentile)
    {
        percentile = 0;
        var text = TextOf(item);
        return InputBounds.TooLong($"percentiles[{index}]", text, InputBounds.MaxValueLength)
            ?? (item.ValueKind is JsonValueKind.Number or JsonValueKind.String && Percentile(text, out percentile) ? null : NotPercentiles(text));
    }

    /// <summary>An item that must be a JSON string, refused with <paramref name="refused"/>'s sentence otherwise.</summary>
    private static ItemReader<string> Strings(Func<string, string> refused) => (JsonElement item, int _, out string text) =>
    {
        text = TextOf(item);
        return item.ValueKind == JsonValueKind.String ? null : refused(text);
    };

    private static bool One(string text, out IReadOnlyList<string> values, out string error)
    {
        (values, error) = ([text], string.Empty);
        return true;
    }

    /// <summary>A value's text as sent: a string's own, else its JSON.</summary>
    private static string TextOf(ref Utf8JsonReader reader)
    {
        using var value = JsonDocument.ParseValue(ref reader);
        return TextOf(value.RootElement);
    }

    private static string TextOf(JsonElement value) => value.ValueKind == JsonValueKind.String ? value.GetString()! : value.GetRawText();

    /// <summary>
    /// A number or true/false, as JSON or as a string, or an enum by its wire name in any case (as a query string has always
    /// taken it; never by its number, so only from a string, else refused saying what is <paramref name="allowed"/>); bounded before it is read.
    /// </summary>
    private sealed class ValueReader<T>(string field, Parse<T> parse, string? allowed = null) : JsonConverter<T?> where T : struct
    {
        public override T? Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options)
        {
            var readable = allowed is null || reader.TokenType == JsonTokenType.String;
            var text = TextOf(ref reader);
            return InputBounds.TooLong(field, text, InputBounds.MaxValueLength) is { } tooLong ? throw new RefusedValue(text, tooLong)
                : readable && parse(text, out var value) ? value : throw new RefusedValue(text, allowed is null ? null : Must(field, text, allowed));
        }

        public override void Write(Utf8JsonWriter writer, T? value, JsonSerializerOptions options) => throw new NotSupportedException();
    }

    private static ValueReader<TEnum> Wire<TEnum>(string field) where TEnum : struct, Enum => new(field, WireNames<TEnum>.TryParse, Allowed<TEnum>());

    private static ValueReader<WireName<TEnum>> Named<TEnum>(string field) where TEnum : struct, Enum =>
        new(field, (string text, out WireName<TEnum> value) => WireName<TEnum>.TryParse(text, null, out value), WireNames<TEnum>.Listed);

    /// <summary>The sentence for text that is none of an enum field's wire names, as a body's value gets it (the CLI's options too).</summary>
    public static string WireRefused<TEnum>(string field, string text) where TEnum : struct, Enum =>
        InputBounds.TooLong(field, text, InputBounds.MaxValueLength) ?? Must(field, text, Allowed<TEnum>());

    private static string Allowed<TEnum>() where TEnum : struct, Enum => typeof(TEnum) == typeof(LoadKind) ? $"one of: {RunPlanRules.LoadNames}" : WireNames<TEnum>.Listed;

    /// <summary>A JSON string; data may also be the request itself (a JSON object, or an array of them), kept as its text.</summary>
    private sealed class TextReader(string field) : JsonConverter<string>
    {
        public override string Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options) =>
            reader.TokenType == JsonTokenType.String || field == "data" && reader.TokenType is JsonTokenType.StartObject or JsonTokenType.StartArray
                ? TextOf(ref reader)
                : throw new RefusedValue(TextOf(ref reader));

        public override void Write(Utf8JsonWriter writer, string value, JsonSerializerOptions options) => writer.WriteStringValue(value);
    }

    /// <summary>Labels: an array of JSON strings, or one string for one label; anything else is refused with the setting's sentence.</summary>
    private sealed class LabelsReader : JsonConverter<string[]>
    {
        private static readonly ListReader<string> List = new(One, Strings(_ => ""), _ => null);

        public override string[] Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options) => [.. List.Read(ref reader, typeToConvert, options)];

        public override void Write(Utf8JsonWriter writer, string[] value, JsonSerializerOptions options) => throw new NotSupportedException();
    }

    /// <summary>A list as JSON, each item read by <paramref name="item"/>, or as text writes it ("10:5000,20:5000", "p50,99.9") when it may be.</summary>
    private sealed class ListReader<T>(TryText<IReadOnlyList<T>>? fromText, ItemReader<T> item, Func<string, string?> notAList) : JsonConverter<IReadOnlyList<T>>
    {
        public override IReadOnlyList<T> Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options)
        {
            using var list = JsonDocument.ParseValue(ref reader);
            var given = list.RootElement;
            if (given.ValueKind != JsonValueKind.Array)
            {
                var text = TextOf(given);
                return given.ValueKind == JsonValueKind.String && fromText is not null ? fromText(text, out var values, out var error) ? values : throw new RefusedValue(text, error)
                    : throw new RefusedValue(text, notAList(text));
            }

            var items = new List<T>();
            foreach (var each in given.EnumerateArray())
            {
                items.Add(item(each, items.Count, out var value) is { } refused ? throw new RefusedValue(TextOf(each), refused.Length > 0 ? refused : null) : value);
            }

            return items;
        }

        public override void Write(Utf8JsonWriter writer, IReadOnlyList<T> value, JsonSerializerOptions options) => throw new NotSupportedException();
    }
}
