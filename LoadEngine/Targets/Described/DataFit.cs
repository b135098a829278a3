using System.Text.Json;
using System.Text.RegularExpressions;
using Google.Protobuf;
using Google.Protobuf.Reflection;

namespace LoadEngine.Targets.Described;

/// <summary>
/// Why JSON does not fit a message type, as one sentence: the first field (by its path, e.g. order.items[1].price) that
/// is not the type's, or whose value Google.Protobuf's JsonParser refuses, and the type that field must be.
/// </summary>
internal static partial class DataFit
{
    private static readonly JsonParser Parser = new(JsonParser.Settings.Default);

    public static string Explain(MessageDescriptor type, string json, Exception problem)
    {
        try
        {
            using var document = JsonDocument.Parse(json);
            if (Misfit(type, document.RootElement, "") is { } sentence)
            {
                return sentence;
            }
        }
        catch (JsonException invalid)
        {
            return NotJson("data is not JSON once its templates are rendered", invalid);
        }

        return $"data does not fit {type.FullName}: {problem.Message.TrimEnd('.')}.";
    }

    /// <summary>
    /// Where text stops being JSON (line and character, from 1) and System.Text.Json's own words on why, without its
    /// advice to the programmer ("Change the reader options"), then what JSON data may hold (positions count bytes, from 1).
    /// </summary>
    public static string NotJson(string what, JsonException problem)
    {
        var words = ReaderOptions().Replace(problem.Message.Split([" LineNumber:", " Path:"], StringSplitOptions.None)[0], "").TrimEnd('.', ' ');
        var where = problem.LineNumber is { } line ? $" at line {line + 1}, position {problem.BytePositionInLine + 1}" : "";
        return $"{what}{where}: {words}; data must be strict JSON (RFC 8259): names and strings in double quotes, no comments, no trailing commas.";
    }

    [GeneratedRegex(@"( which is not supported in this mode)?\.? Change the reader options\.?")]
    private static partial Regex ReaderOptions();

    private static string? Misfit(MessageDescriptor type, JsonElement element, string path)
    {
        if (element.ValueKind != JsonValueKind.Object)
        {
            return $"data{At(path)} was {Show(element)}; it must be {Expected(type)}.";
        }

        foreach (var property in element.EnumerateObject())
        {
            var at = path.Length == 0 ? property.Name : $"{path}.{property.Name}";
            var field = type.Fields.InDeclarationOrder().FirstOrDefault(field => field.JsonName == property.Name || field.Name == property.Name);
            if (field is null)
            {
                return $"data field {at} is not a field of {type.FullName}; its fields are {string.Join(", ", type.Fields.InDeclarationOrder().Select(field => field.JsonName))}.";
            }

            if (Fits(type, property.Name, property.Value.GetRawText()))
            {
                continue;
            }

            if (field.IsRepeated && !field.IsMap && property.Value.ValueKind == JsonValueKind.Array)
            {
                foreach (var (item, index) in property.Value.EnumerateArray().Select((item, index) => (item, index)))
                {
                    if (!Fits(type, property.Name, $"[{item.GetRawText()}]"))
                    {
                        return Inside(field, item, $"{at}[{index}]");
                    }
                }
            }

            return field.IsRepeated && !field.IsMap ? Wrong(field, property.Value, at) : Inside(field, property.Value, at);
        }

        return null;
    }

    /// <summary>A single value that does not fit: inside it when it is a message of fields, else the field itself.</summary>
    private static string Inside(FieldDescriptor field, JsonElement value, string at) =>
        field.IsMap ? Wrong(field, value, at)
        : field.FieldType == FieldType.Message && !field.IsMap && !IsWellKnown(field.MessageType) && value.ValueKind == JsonValueKind.Object
            ? Misfit(field.MessageType, value, at) ?? Wrong(field, value, at)
            : $"data field {at} was {Show(value)}; it must be {Single(field)}.";

    private static string Wrong(FieldDescriptor field, JsonElement value, string at) =>
        $"data field {at} was {Show(value)}; it must be {Expected(field)}.";

    private static bool Fits(MessageDescriptor type, string name, string value)
    {
        try
        {
            Parser.Parse($"{{{JsonSerializer.Serialize(name)}:{value}}}", type);
            return true;
        }
        catch (Exception problem) when (problem is InvalidProtocolBufferException or FormatException or InvalidOperationException or ArgumentException)
        {
            return false;
        }
    }

    /// <summary>What a field's JSON must be, in the proto3 JSON mapping's terms.</summary>
    public static string Expected(FieldDescriptor field) => field switch
    {
        { IsMap: true } => $"an object whose keys are {Single(field.MessageType.FindFieldByNumber(1))} and whose values are {Single(field.MessageType.FindFieldByNumber(2))}",
        { IsRepeated: true } => $"an array whose items are each {Single(field)}",
        _ => Single(field),
    };

    private static string Single(FieldDescriptor field) => field.FieldType switch
    {
        FieldType.Double or FieldType.Float => "a number (or \"NaN\", \"Infinity\", \"-Infinity\")",
        FieldType.Int64 or FieldType.SInt64 or FieldType.SFixed64 => "a 64-bit integer (a number, or a string of digits)",
        FieldType.UInt64 or FieldType.Fixed64 => "an unsigned 64-bit integer (a number, or a string of digits)",
        FieldType.Int32 or FieldType.SInt32 or FieldType.SFixed32 => "a 32-bit integer",
        FieldType.UInt32 or FieldType.Fixed32 => "an unsigned 32-bit integer",
        FieldType.Bool => "true or false",
        FieldType.String => "a string",
        FieldType.Bytes => "base64 text",
        FieldType.Enum => $"one of {string.Join(", ", field.EnumType.Values.Select(value => value.Name))} (or its number)",
        _ => Expected(field.MessageType),
    };

    private static string Expected(MessageDescriptor type) => type.FullName switch
    {
        "google.protobuf.Timestamp" => "an RFC 3339 time such as \"2025-01-02T03:04:05Z\"",
        "google.protobuf.Duration" => "a duration in seconds such as \"1.5s\"",
        "google.protobuf.FieldMask" => "a string of comma-separated field paths",
        "google.protobuf.Struct" => "a JSON object",
        "google.protobuf.Value" => "any JSON value",
        "google.protobuf.ListValue" => "a JSON array",
        "google.protobuf.Empty" => "an empty object {}",
        "google.protobuf.Any" => "an object with an \"@type\" and that type's fields",
        _ when type.File.Name == "google/protobuf/wrappers.proto" => $"{Single(type.FindFieldByNumber(1))}, or null",
        _ => $"an object of {type.FullName}'s fields",
    };

    /// <summary>Whether a type is one of protobuf's own (google/protobuf/…), whose JSON is not an object of its fields.</summary>
    private static bool IsWellKnown(MessageDescriptor type) => type.File.Name.StartsWith("google/protobuf/", StringComparison.Ordinal);

    private static string At(string path) => path.Length == 0 ? "" : $" field {path}";

    private static string Show(JsonElement value) => CallTemplate.Excerpt(value.GetRawText());
}
