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
            var oneofFirst = field.RealContainingOneof is not { } oneof || oneof.Fields[0] == field;
            if (field.FieldType == FieldType.Message && !field.IsRepeated && !field.IsMap && oneofFirst && !LeftEmpty.Contains(field.MessageType.FullName))
            {
                field.Accessor.SetValue(message, Filled(field.MessageType, depth - 1));
            }
        }

        return message;
    }
}
