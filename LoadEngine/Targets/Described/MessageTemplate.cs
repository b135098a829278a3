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

        var message = type.Parser.ParseFrom(OneOfEach(type));

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

    // One default element of every list and one entry of every map, as the wire carries them: parsed, each is a value of
    // the field's own type (a map's string key reads "key"). Lists and maps of Any, Value, Struct and the wrappers stay empty.
    private static ByteString OneOfEach(MessageDescriptor type)
    {
        using var bytes = new MemoryStream();
        using (var output = new CodedOutputStream(bytes, leaveOpen: true))
        {
            foreach (var field in type.Fields.InFieldNumberOrder().Where(field => field.IsRepeated))
            {
                var element = field.IsMap ? field.MessageType.FindFieldByNumber(2) : field;
                if (element.FieldType == FieldType.Message && (LeftEmpty.Contains(element.MessageType.FullName) || element.MessageType.File.Name == "google/protobuf/wrappers.proto"))
                {
                    continue;
                }

                if (field.IsMap)
                {
                    output.WriteTag(field.FieldNumber, WireFormat.WireType.LengthDelimited);
                    var key = field.MessageType.FindFieldByNumber(1).FieldType == FieldType.String ? StringKey : ByteString.Empty;
                    output.WriteBytes(element.FieldType == FieldType.Message ? ByteString.CopyFrom([.. key, .. EmptyValue]) : key);
                }
                else
                {
                    WriteDefault(output, field);
                }
            }
        }

        return ByteString.CopyFrom(bytes.ToArray());
    }

    // A map entry's key (field 1) as the string "key", and its value (field 2) as an empty message: tags 0x0A and 0x12, length-delimited.
    private static readonly ByteString StringKey = ByteString.CopyFrom([0x0A, 3, (byte)'k', (byte)'e', (byte)'y']);

    private static readonly byte[] EmptyValue = [0x12, 0];

    private static void WriteDefault(CodedOutputStream output, FieldDescriptor field)
    {
        switch (field.FieldType)
        {
            case FieldType.Double or FieldType.Fixed64 or FieldType.SFixed64:
                output.WriteTag(field.FieldNumber, WireFormat.WireType.Fixed64);
                output.WriteFixed64(0);
                break;
            case FieldType.Float or FieldType.Fixed32 or FieldType.SFixed32:
                output.WriteTag(field.FieldNumber, WireFormat.WireType.Fixed32);
                output.WriteFixed32(0);
                break;
            case FieldType.String or FieldType.Bytes or FieldType.Message:
                output.WriteTag(field.FieldNumber, WireFormat.WireType.LengthDelimited);
                output.WriteLength(0);
                break;
            case FieldType.Group:
                break;
            default:
                output.WriteTag(field.FieldNumber, WireFormat.WireType.Varint);
                output.WriteUInt64(0);
                break;
        }
    }
}
