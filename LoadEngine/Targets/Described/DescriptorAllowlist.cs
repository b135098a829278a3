using System.Security.Cryptography;
using System.Text;
using System.Text.RegularExpressions;
using Google.Protobuf;
using Google.Protobuf.Reflection;

namespace LoadEngine.Targets.Described;

/// <summary>A FileDescriptorSet as <see cref="DescriptorAllowlist"/> rebuilt it: its files in import order, its bytes, and their SHA-256 in hex.</summary>
public sealed record SafeDescriptorSet(IReadOnlyList<FileDescriptorProto> Files, byte[] Bytes, string Hash);

/// <summary>
/// Every descriptor set, whoever served or stored it, rebuilt from an allowlist before protoc or the compiler sees it.
/// protoc checks names but copies comments and options into the C# it writes, and takes a file name that begins with '-'
/// or '@' as its own flag; so only what changes how messages are encoded or mapped to JSON is kept, each string as a
/// checked identifier, file name or number: names, numbers, types, labels, packages, imports, default values, json_name,
/// oneofs, map entries (map_entry), packed, allow_alias and editions' features. Comments (source_code_info), every other
/// option, reserved names and anything unknown are dropped; anything that does not fit, or a set beyond
/// <see cref="DescribeLimits"/>, is refused with one sentence.
/// </summary>
public static partial class DescriptorAllowlist
{
    private const int MaxFieldNumber = 536_870_911;

    // The well-known types' files a set may import without including: this process has them compiled already.
    private static readonly Dictionary<string, FileDescriptor> WellKnown = new[]
    {
        Google.Protobuf.WellKnownTypes.AnyReflection.Descriptor, Google.Protobuf.WellKnownTypes.ApiReflection.Descriptor,
        Google.Protobuf.WellKnownTypes.DurationReflection.Descriptor, Google.Protobuf.WellKnownTypes.EmptyReflection.Descriptor,
        Google.Protobuf.WellKnownTypes.FieldMaskReflection.Descriptor, Google.Protobuf.WellKnownTypes.SourceContextReflection.Descriptor,
        Google.Protobuf.WellKnownTypes.StructReflection.Descriptor, Google.Protobuf.WellKnownTypes.TimestampReflection.Descriptor,
        Google.Protobuf.WellKnownTypes.TypeReflection.Descriptor, Google.Protobuf.WellKnownTypes.WrappersReflection.Descriptor,
        DescriptorReflection.Descriptor,
    }.ToDictionary(file => file.Name, StringComparer.Ordinal);

    [GeneratedRegex("^[A-Za-z_][A-Za-z0-9_]*$")]
    private static partial Regex Identifier();

    [GeneratedRegex(@"^\.?[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")]
    private static partial Regex DottedName();

    [GeneratedRegex("^[A-Za-z0-9_][A-Za-z0-9_.-]*(/[A-Za-z0-9_][A-Za-z0-9_.-]*)*$")]
    private static partial Regex FileName();

    [GeneratedRegex("^[A-Za-z0-9_-]+$")]
    private static partial Regex JsonName();

    [GeneratedRegex(@"^-?(inf|nan|[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]+)?|\.[0-9]+([eE][+-]?[0-9]+)?)$")]
    private static partial Regex FloatValue();

    [GeneratedRegex("^-?[0-9]+$")]
    private static partial Regex WholeValue();

    /// <summary><paramref name="raw"/> rebuilt from the allowlist, or a <see cref="TargetDescriptionException"/> saying what does not fit.</summary>
    public static SafeDescriptorSet Rebuild(byte[] raw)
    {
        if (raw.Length > DescribeLimits.Bytes)
        {
            throw Refused($"are {raw.Length:N0} bytes; at most {DescribeLimits.Bytes:N0} bytes of descriptors are described");
        }

        FileDescriptorSet set;
        try
        {
            set = FileDescriptorSet.Parser.ParseFrom(raw);
        }
        catch (InvalidProtocolBufferException problem)
        {
            throw Unreadable(problem, "are not a FileDescriptorSet");
        }

        if (set.File.Count > DescribeLimits.Files)
        {
            throw Refused($"hold {set.File.Count:N0} files; at most {DescribeLimits.Files:N0} files are described");
        }

        var counts = new Counts();
        var files = new Dictionary<string, FileDescriptorProto>(StringComparer.Ordinal);
        var given = new List<string>();
        foreach (var file in set.File)
        {
            // A well-known type's file is always this process's own copy: the C# it compiles to is Google.Protobuf's.
            var safe = WellKnown.TryGetValue(file.Name, out var known) ? Own(known) : Rebuild(file, counts);
            if (!files.TryAdd(safe.Name, safe))
            {
                throw Refused($"hold two files named {safe.Name}");
            }

            given.Add(safe.Name);
        }

        var ordered = InImportOrder(given, files);
        var bytes = new FileDescriptorSet { File = { ordered } }.ToByteArray();
        return new SafeDescriptorSet(ordered, bytes, Convert.ToHexString(SHA256.HashData(bytes)));
    }

    /// <summary>Every file after the files it imports (as protoc writes a set), with no recursion; a cycle, a missing import or a chain beyond the limit is refused.</summary>
    private static List<FileDescriptorProto> InImportOrder(List<string> given, Dictionary<string, FileDescriptorProto> files)
    {
        // A set may import the well-known types without including them, as a protoset made without --include_imports does.
        while (files.Values.SelectMany(file => file.Dependency.Select(import => (file.Name, Import: import))).FirstOrDefault(pair => !files.ContainsKey(pair.Import)) is ({ } importer, { } missing))
        {
            if (!WellKnown.TryGetValue(missing, out var known))
            {
                throw Refused($"import {missing} from {importer} without including it (a protoset is made with protoc --include_imports)");
            }

            files.Add(known.Name, Own(known));
            given.Insert(0, known.Name);
        }

        var depth = new Dictionary<string, int>(StringComparer.Ordinal);
        var visiting = new HashSet<string>(StringComparer.Ordinal);
        var ordered = new List<FileDescriptorProto>(files.Count);
        var pending = new Stack<(string Name, int Next)>();
        foreach (var root in given.Where(name => !depth.ContainsKey(name)))
        {
            visiting.Add(root);
            pending.Push((root, 0));
            while (pending.TryPop(out var at))
            {
                var imports = files[at.Name].Dependency;
                if (at.Next < imports.Count)
                {
                    pending.Push((at.Name, at.Next + 1));
                    var import = imports[at.Next];
                    if (visiting.Contains(import))
                    {
                        throw Refused($"import each other in a cycle ({at.Name} imports {import}, which imports it again)");
                    }

                    if (!depth.ContainsKey(import))
                    {
                        visiting.Add(import);
                        pending.Push((import, 0));
                    }

                    continue;
                }

                var level = 1 + imports.Select(import => depth[import]).DefaultIfEmpty(0).Max();
                if (level > DescribeLimits.ImportDepth)
                {
                    throw Refused($"import each other more than {DescribeLimits.ImportDepth} files deep (from {at.Name}); at most {DescribeLimits.ImportDepth} levels of imports are described");
                }

                visiting.Remove(at.Name);
                depth[at.Name] = level;
                ordered.Add(files[at.Name]);
            }
        }

        return ordered;
    }

    /// <summary>
    /// Bytes that do not parse as descriptors: one sentence, the nesting bound's when Google.Protobuf's parser stopped at its
    /// own recursion limit (a message nested far deeper than <see cref="DescribeLimits.NestingDepth"/>).
    /// </summary>
    public static TargetDescriptionException Unreadable(InvalidProtocolBufferException problem, string what) =>
        problem.Message.Contains("recursion", StringComparison.OrdinalIgnoreCase)
            ? Refused($"nest messages more than {DescribeLimits.NestingDepth} deep; at most {DescribeLimits.NestingDepth} levels of nested messages are described")
            : new TargetDescriptionException($"The target's descriptors {what} ({problem.Message.TrimEnd('.')}).", problem);

    /// <summary>The well-known type's file as Google.Protobuf has it compiled; null for any other file.</summary>
    internal static FileDescriptor? WellKnownFile(string file) => WellKnown.GetValueOrDefault(file);

    private static FileDescriptorProto Own(FileDescriptor known) => FileDescriptorProto.Parser.ParseFrom(known.SerializedData);

    private static FileDescriptorProto Rebuild(FileDescriptorProto file, Counts counts)
    {
        var name = File(file.Name, "a file");
        var safe = new FileDescriptorProto { Name = name };
        var where = new Where(name, "");
        if (file.HasPackage)
        {
            safe.Package = Dotted(file.Package, "package", where, leadingDot: false);
        }

        foreach (var import in file.Dependency)
        {
            safe.Dependency.Add(File(import, $"an import of {name}"));
        }

        foreach (var index in file.PublicDependency)
        {
            safe.PublicDependency.Add(index >= 0 && index < file.Dependency.Count ? index : throw Refused($"name a public import that is not one of {name}'s imports"));
        }

        if (file.HasSyntax)
        {
            safe.Syntax = file.Syntax is "proto2" or "proto3" or "editions" ? file.Syntax : throw Refused($"give {name} the syntax '{Quoted(file.Syntax)}'; it must be proto2, proto3 or editions");
        }

        if (file.HasEdition)
        {
            safe.Edition = Known(file.Edition, "edition", where);
        }

        safe.Options = Options(file.Options, null, where);

        safe.MessageType.AddRange(file.MessageType.Select(message => Message(message, where, 1, counts)));
        safe.EnumType.AddRange(file.EnumType.Select(type => Enum(type, where, counts)));
        safe.Extension.AddRange(file.Extension.Select(field => Field(field, where, oneofs: 0, counts)));
        safe.Service.AddRange(file.Service.Select(service => Service(service, where)));
        return safe;
    }

    private static DescriptorProto Message(DescriptorProto message, Where parent, int level, Counts counts)
    {
        var name = Name(message.Name, "message", parent);
        var where = parent.Inside(name);
        if (level > DescribeLimits.NestingDepth)
        {
            throw Refused($"nest messages more than {DescribeLimits.NestingDepth} deep ({where}); at most {DescribeLimits.NestingDepth} levels of nested messages are described");
        }

        counts.Type(where);
        var safe = new DescriptorProto { Name = name };
        safe.OneofDecl.AddRange(message.OneofDecl.Select(oneof => new OneofDescriptorProto { Name = Name(oneof.Name, "oneof", where) }));
        safe.Field.AddRange(message.Field.Select(field => Field(field, where, message.OneofDecl.Count, counts)));
        safe.Extension.AddRange(message.Extension.Select(field => Field(field, where, oneofs: 0, counts)));
        safe.NestedType.AddRange(message.NestedType.Select(nested => Message(nested, where, level + 1, counts)));
        safe.EnumType.AddRange(message.EnumType.Select(type => Enum(type, where, counts)));
        foreach (var range in message.ExtensionRange)
        {
            safe.ExtensionRange.Add(new DescriptorProto.Types.ExtensionRange { Start = Number(range.Start, where), End = Number(range.End - 1, where) + 1 });
        }

        safe.Options = Options(message.Options, "map_entry", where);

        return safe;
    }

    private static FieldDescriptorProto Field(FieldDescriptorProto field, Where parent, int oneofs, Counts counts)
    {
        var name = Name(field.Name, "field", parent);
        var where = parent.Inside(name);
        counts.Field(where);
        var safe = new FieldDescriptorProto { Name = name, Number = Number(field.Number, where) };
        if (field.HasLabel)
        {
            safe.Label = Known(field.Label, "label", where);
        }

        if (field.HasType)
        {
            safe.Type = Known(field.Type, "type", where);
        }

        if (field.HasTypeName)
        {
            safe.TypeName = Dotted(field.TypeName, "type", where, leadingDot: true);
        }

        if (field.HasExtendee)
        {
            safe.Extendee = Dotted(field.Extendee, "extended message", where, leadingDot: true);
        }

        if (field.HasDefaultValue)
        {
            safe.DefaultValue = Default(field, where);
        }

        if (field.HasOneofIndex)
        {
            safe.OneofIndex = field.OneofIndex >= 0 && field.OneofIndex < oneofs ? field.OneofIndex : throw Refused($"put field {where} in a oneof its message does not declare");
        }

        if (field.HasJsonName)
        {
            safe.JsonName = field.JsonName.Length <= DescribeLimits.NameLength && JsonName().IsMatch(field.JsonName)
                ? field.JsonName
                : throw Refused($"give field {where} the JSON name '{Quoted(field.JsonName)}'; this tool accepts JSON names of letters, digits, '_' and '-'");
        }

        if (field.HasProto3Optional)
        {
            safe.Proto3Optional = field.Proto3Optional;
        }

        safe.Options = Options(field.Options, "packed", where);

        return safe;
    }

    private static EnumDescriptorProto Enum(EnumDescriptorProto type, Where parent, Counts counts)
    {
        var name = Name(type.Name, "enum", parent);
        var where = parent.Inside(name);
        counts.Type(where);
        var safe = new EnumDescriptorProto { Name = name };
        foreach (var value in type.Value)
        {
            var valueName = Name(value.Name, "enum value", where);
            counts.Field(where.Inside(valueName));
            safe.Value.Add(new EnumValueDescriptorProto { Name = valueName, Number = value.Number });
        }

        safe.Options = Options(type.Options, "allow_alias", where);

        return safe;
    }

    private static ServiceDescriptorProto Service(ServiceDescriptorProto service, Where parent)
    {
        var name = Name(service.Name, "service", parent);
        var where = parent.Inside(name);
        var safe = new ServiceDescriptorProto { Name = name };
        foreach (var method in service.Method)
        {
            var methodName = Name(method.Name, "method", where);
            var at = where.Inside(methodName);
            var safeMethod = new MethodDescriptorProto
            {
                Name = methodName,
                InputType = Dotted(method.InputType, "request type", at, leadingDot: true),
                OutputType = Dotted(method.OutputType, "answer type", at, leadingDot: true),
            };
            if (method.HasClientStreaming)
            {
                safeMethod.ClientStreaming = method.ClientStreaming;
            }

            if (method.HasServerStreaming)
            {
                safeMethod.ServerStreaming = method.ServerStreaming;
            }

            safe.Method.Add(safeMethod);
        }

        return safe;
    }

    /// <summary>
    /// Of an element's options, only <paramref name="kept"/> (map_entry, packed, allow_alias: a bool that changes encoding or
    /// what protoc accepts) and editions' features; null when nothing is left.
    /// </summary>
    private static T? Options<T>(T? options, string? kept, Where where)
        where T : class, IMessage<T>, new()
    {
        if (options is null)
        {
            return null;
        }

        var safe = new T();
        var fields = safe.Descriptor.Fields;
        if (kept is not null && fields[kept] is { } flag && flag.Accessor.HasValue(options))
        {
            flag.Accessor.SetValue(safe, flag.Accessor.GetValue(options));
        }

        if (fields["features"] is { } features && features.Accessor.HasValue(options))
        {
            features.Accessor.SetValue(safe, Features((FeatureSet)features.Accessor.GetValue(options), where));
        }

        return safe.CalculateSize() == 0 ? null : safe;
    }

    /// <summary>Editions' features: every one is an enum of the descriptor's own; language extensions (pb.cpp, pb.java…) are dropped.</summary>
    private static FeatureSet Features(FeatureSet features, Where where)
    {
        var safe = new FeatureSet();
        foreach (var field in FeatureSet.Descriptor.Fields.InFieldNumberOrder().Where(field => field.FieldType == FieldType.Enum && field.Accessor.HasValue(features)))
        {
            var value = field.Accessor.GetValue(features);
            if (field.EnumType.FindValueByNumber((int)value) is null)
            {
                throw Refused($"give {where} the feature {field.Name} = {(int)value}, which is not one of its values");
            }

            field.Accessor.SetValue(safe, value);
        }

        return safe;
    }

    private static string Default(FieldDescriptorProto field, Where where)
    {
        var value = field.DefaultValue;
        var fits = value.Length <= DescribeLimits.NameLength && field.Type switch
        {
            FieldDescriptorProto.Types.Type.Double or FieldDescriptorProto.Types.Type.Float => FloatValue().IsMatch(value),
            FieldDescriptorProto.Types.Type.Bool => value is "true" or "false",
            FieldDescriptorProto.Types.Type.Enum => Identifier().IsMatch(value),
            // protoc writes string and bytes defaults into C# as base64.
            FieldDescriptorProto.Types.Type.String or FieldDescriptorProto.Types.Type.Bytes => true,
            FieldDescriptorProto.Types.Type.Message or FieldDescriptorProto.Types.Type.Group => false,
            _ => WholeValue().IsMatch(value),
        };
        return fits ? value : throw Refused($"give field {where} the default value '{Quoted(value)}', which does not fit its type");
    }

    private static string Name(string name, string what, Where where) =>
        name.Length <= DescribeLimits.NameLength && Identifier().IsMatch(name)
            ? name
            : throw Refused($"name a {what} '{Quoted(name)}' in {where}; a protobuf name is letters, digits and '_', not beginning with a digit, at most {DescribeLimits.NameLength} characters");

    private static string Dotted(string name, string what, Where where, bool leadingDot) =>
        name.Length <= DescribeLimits.NameLength * 4 && DottedName().IsMatch(name) && (leadingDot || !name.StartsWith('.'))
            ? name
            : throw Refused($"name a {what} '{Quoted(name)}' in {where}; it must be protobuf names joined by '.'");

    private static string File(string name, string what) =>
        name.Length <= DescribeLimits.NameLength && FileName().IsMatch(name)
            ? name
            : throw Refused($"name {what} '{Quoted(name)}', which is not a file name this tool accepts: letters, digits, '_', '-' and '.' in " +
                $"'/'-separated parts that each begin with a letter, digit or '_', at most {DescribeLimits.NameLength} characters");

    private static int Number(int number, Where where) =>
        number is >= 1 and <= MaxFieldNumber ? number : throw Refused($"number {where} {number}; field numbers run from 1 to {MaxFieldNumber:N0}");

    private static T Known<T>(T value, string what, Where where)
        where T : struct, System.Enum =>
        System.Enum.IsDefined(value) ? value : throw Refused($"give {where} the {what} {Convert.ToInt32(value, System.Globalization.CultureInfo.InvariantCulture)}, which is not one protobuf defines");

    private static TargetDescriptionException Refused(string what) => new($"The target's descriptors {what}.");

    /// <summary>A name that did not fit, as a sentence may quote it: escaped and short.</summary>
    private static string Quoted(string text) => TargetText.Escape(text, 80);

    /// <summary>Where a name stands, for the sentence: the file, then the names it is inside.</summary>
    private readonly record struct Where(string File, string Path)
    {
        public Where Inside(string name) => this with { Path = Path.Length == 0 ? name : $"{Path}.{name}" };

        public override string ToString() => Path.Length == 0 ? File : $"{Path} ({File})";
    }

    private sealed class Counts
    {
        private int _types;
        private int _fields;

        public void Type(Where where)
        {
            if (++_types > DescribeLimits.Types)
            {
                throw Refused($"declare more than {DescribeLimits.Types:N0} messages and enums (the next is {where}); at most {DescribeLimits.Types:N0} are described, each one compiled into code");
            }
        }

        public void Field(Where where)
        {
            if (++_fields > DescribeLimits.Fields)
            {
                throw Refused($"declare more than {DescribeLimits.Fields:N0} fields and enum values (the next is {where}); at most {DescribeLimits.Fields:N0} are described");
            }
        }
    }
}
