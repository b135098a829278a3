using Google.Protobuf;
using Google.Protobuf.Reflection;

namespace LoadEngine.Targets.Described;

/// <summary>
/// A message type's JSON with every field shown: defaults written, nested messages filled in, one element in each list and
/// one example entry in each map (its nested messages filled in too), to a depth, for recursive types.
/// </summary>
internal static class MessageTemplate
{
    private const int Depth = 3;

    private static readonly JsonFormatter Formatter = new(JsonFormatter.Settings.Default.WithFormatDefaultValues(true).WithIndentation());
    private static readonly JsonFormatter Compact = new(JsonFormatter.Settings.Default);
    private static readonly JsonParser Parser = new(JsonParser.Settings.Default);

    // Their JSON is not an object of fields, and an empty Any, Value or Struct has no JSON at all.
    private static readonly HashSet<string> LeftEmpty = new(StringComparer.Ordinal)
    {
        "google.protobuf.Any", "google.protobuf.Value", "google.protobuf.Struct", "google.protobuf.ListValue",
    };

    public static string Json(MessageDescriptor type) => Formatter.Format(Filled(type, Depth));

    private static IMessage Filled(MessageDescriptor type, int depth)
    {
        if (depth == 0 || type.FullName.StartsWith("google.protobuf.", StringComparison.Ordinal))
        {
            return type.Parser.ParseFrom(ByteString.Empty);
        }

        var message = OneOfEach(type);

        foreach (var field in type.Fields.InFieldNumberOrder())
        {
            if (field.RealContainingOneof is { } oneof && oneof.Fields[0] != field)
            {
                // One member of a oneof is shown: the first.
                continue;
            }

            if (field.FieldType == FieldType.Message && !field.IsRepeated && !field.IsMap && !LeftEmpty.Contains(field.MessageType.FullName))
            {
                var filled = Filled(field.MessageType, depth - 1);
                // A wrapper's field holds the wrapped value itself (string, long?, ...), not the wrapper message.
                field.Accessor.SetValue(message, field.MessageType.File.Name == "google/protobuf/wrappers.proto" ? field.MessageType.FindFieldByNumber(1).Accessor.GetValue(filled) : filled);
            }
            else if (field.IsMap && field.MessageType.FindFieldByNumber(2) is { FieldType: FieldType.Message } value)
            {
                var entries = (System.Collections.IDictionary)field.Accessor.GetValue(message);
                foreach (var key in entries.Keys.Cast<object>().ToList())
                {
                    entries[key] = Filled(value.MessageType, depth - 1);
                }
            }
            else if (field.IsRepeated && !field.IsMap && field.FieldType == FieldType.Message)
            {
                var elements = (System.Collections.IList)field.Accessor.GetValue(message);
                for (var index = 0; index < elements.Count; index++)
                {
                    elements[index] = Filled(field.MessageType, depth - 1);
                }
            }
            else if (field.RealContainingOneof is not null)
            {
                // Setting a oneof's scalar to its default selects it, so the formatter shows it.
                field.Accessor.SetValue(message, field.Accessor.GetValue(message));
            }
        }

        return message;
    }

    // One default element of every list and one entry of every map (a string key reads "key"), parsed from JSON so each is
    // a value of the field's own type. Lists and maps of Any, Value, Struct and the wrappers stay empty.
    private static IMessage OneOfEach(MessageDescriptor type)
    {
        var members = type.Fields.InFieldNumberOrder()
            .Where(field => field.IsRepeated && field.FieldType != FieldType.Group && !IsLeftEmpty(field.IsMap ? field.MessageType.FindFieldByNumber(2) : field))
            .Select(field => $"\"{field.JsonName}\":" + (field.IsMap
                ? $"{{\"{Key(field.MessageType.FindFieldByNumber(1))}\":{Default(field.MessageType.FindFieldByNumber(2))}}}"
                : $"[{Default(field)}]"));
        return Parser.Parse($"{{{string.Join(",", members)}}}", type);
    }

    private static bool IsLeftEmpty(FieldDescriptor element) =>
        element.FieldType == FieldType.Message && (LeftEmpty.Contains(element.MessageType.FullName) || element.MessageType.File.Name == "google/protobuf/wrappers.proto");

    private static string Key(FieldDescriptor key) => key.FieldType switch
    {
        FieldType.String => "key",
        FieldType.Bool => "false",
        _ => "0",
    };

    /// <summary>A field's default as JSON: a message's is an empty one's (a Timestamp's is the epoch).</summary>
    private static string Default(FieldDescriptor field) => field.FieldType switch
    {
        FieldType.Message => Compact.Format(field.MessageType.Parser.ParseFrom(ByteString.Empty)),
        FieldType.String or FieldType.Bytes => "\"\"",
        FieldType.Bool => "false",
        _ => "0",
    };
}
