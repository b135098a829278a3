using Google.Protobuf;
using Google.Protobuf.Reflection;

namespace LoadEngine.Targets.Described;

/// <summary>A message type's JSON with every field shown: defaults written, and nested messages filled in (to a depth, for recursive types).</summary>
internal static class MessageTemplate
{
    private const int Depth = 3;

    private static readonly JsonFormatter Formatter = new(JsonFormatter.Settings.Default.WithFormatDefaultValues(true).WithIndentation());

    // Their JSON is not an object of fields, and an empty Any, Value or Struct has no JSON at all.
    private static readonly HashSet<string> LeftEmpty = new(StringComparer.Ordinal)
    {
        "google.protobuf.Any", "google.protobuf.Value", "google.protobuf.Struct", "google.protobuf.ListValue",
    };

    public static string Json(MessageDescriptor type) => Formatter.Format(Filled(type, Depth));

    private static IMessage Filled(MessageDescriptor type, int depth)
    {
        var message = type.Parser.ParseFrom(ByteString.Empty);
        if (depth == 0 || type.FullName.StartsWith("google.protobuf.", StringComparison.Ordinal))
        {
            return message;
        }

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
            else if (field.RealContainingOneof is not null)
            {
                // Setting a oneof's scalar to its default selects it, so the formatter shows it.
                field.Accessor.SetValue(message, field.Accessor.GetValue(message));
            }
        }

        return message;
    }
}
