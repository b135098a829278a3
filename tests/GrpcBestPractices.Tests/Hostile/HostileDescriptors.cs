using System.Text;
using Google.Protobuf;
using Google.Protobuf.Reflection;

namespace GrpcBestPractices.Tests.Hostile;

/// <summary>
/// FileDescriptorSets crafted against the tool, one per case of issue 28, as a hostile server's reflection
/// (tests/interop/hostile-reflection.js) or a stored plan carries them. Every set declares <see cref="Call"/>, so a
/// describe that survives can be run; a set that smuggles code in writes <c>marker</c>, a path the test chooses, when
/// any of that code runs (in the tool's process or in a program it starts).
/// </summary>
public static class HostileDescriptors
{
    public const string Service = "hostile.Target";

    /// <summary>The method every set declares: Echo(EchoRequest) returns (EchoReply), each with <c>string text = 1</c>.</summary>
    public const string Call = "hostile.Target/Echo";

    public const string ServiceFile = "hostile/target.proto";

    /// <summary>The service's file alone: what the modes of the server (wrong kind, error message, ...) serve, and the set --changing changes.</summary>
    public static byte[] Tiny() => Set(Target());

    /// <summary>
    /// A comment (source_code_info) with lone carriage returns around C#: protoc copies a comment after <c>///</c> up to
    /// each \n, and C# ends a line at a lone \r, so the class between them is compiled, and its module initializer runs
    /// as soon as the compiled assembly is touched.
    /// </summary>
    public static byte[] CommentWithCarriageReturn(string marker)
    {
        var target = Target();
        target.SourceCodeInfo = new SourceCodeInfo();
        target.SourceCodeInfo.Location.Add(new SourceCodeInfo.Types.Location
        {
            // message_type (4), the first (EchoRequest): protoc writes its leading comment as the class's doc comment.
            Path = { 4, 0 },
            Span = { 0, 0, 1 },
            LeadingComments = " The request.\rpublic static class InjectedByComment { [System.Runtime.CompilerServices.ModuleInitializer] " +
                $"internal static void Run() => System.IO.File.WriteAllText({Literal(marker)}, \"comment\"); }}\r",
        });
        return Set(target);
    }

    /// <summary>
    /// A csharp_namespace option, in an extra file the answer adds, that closes the namespace protoc opens with it and
    /// declares a static class named like a generated reflection class, whose Descriptor getter writes the marker: the
    /// tool reads every such class's Descriptor to find the compiled files.
    /// </summary>
    public static byte[] CSharpNamespace(string marker)
    {
        var extra = new FileDescriptorProto
        {
            Name = "hostile/extra.proto",
            Syntax = "proto3",
            Options = new Google.Protobuf.Reflection.FileOptions
            {
                CsharpNamespace = "Hostile.Extra { public static class InjectedReflection { public static object Descriptor { get { " +
                    $"System.IO.File.WriteAllText({Literal(marker)}, \"namespace\"); return null; }} }} }} }} namespace Hostile.Extra2",
            },
        };
        return Set(Target(), extra);
    }

    /// <summary>
    /// Files named as protoc's flags: <c>--plugin=protoc-gen-x=/bin/sh</c> makes /bin/sh a plugin and <c>--x_out=PARAMETER:DIR</c>
    /// runs it with the plugin request on its standard input, where the parameter is a line of shell that writes the marker.
    /// </summary>
    public static byte[] PluginFlag(string marker)
    {
        // The request starts with the files to generate, then the parameter's tag and length: a length of 128 or more is two
        // bytes the shell reads as part of a word (never a quote or a bracket), so the line after them runs.
        var command = $"echo plugin > '{marker}' #";
        var parameter = "\n" + command.PadRight(126, 'x') + "\n";
        return Set(Target(), new FileDescriptorProto { Name = "--plugin=protoc-gen-x=/bin/sh" }, new FileDescriptorProto { Name = $"--x_out={parameter}:{Path.GetDirectoryName(marker)}" });
    }

    /// <summary>A file named <c>--descriptor_set_out=PATH</c>: protoc writes (or overwrites) PATH.</summary>
    public static byte[] DescriptorSetOutFlag(string marker) =>
        Set(Target(), new FileDescriptorProto { Name = $"--descriptor_set_out={marker}" });

    /// <summary>
    /// A file named <c>@PATH</c>: protoc reads more arguments from PATH, one a line. The arguments file is written here (it
    /// stands for any file on the machine a server can name) and asks protoc to write the marker.
    /// </summary>
    public static byte[] ResponseFile(string marker, string argumentsFile)
    {
        File.WriteAllText(argumentsFile, $"--descriptor_set_out={marker}\n");
        return Set(Target(), new FileDescriptorProto { Name = "@" + argumentsFile });
    }

    /// <summary>A file named <c>@/etc/passwd</c>: protoc reads its lines as arguments, and its error quotes the first of them.</summary>
    public static byte[] ResponseFileQuotingAFile() => Set(Target(), new FileDescriptorProto { Name = "@/etc/passwd" });

    /// <summary>A file named <c>--version</c>: protoc prints its version and exits 0 without writing any C#, so no compiled file answers for the service's.</summary>
    public static byte[] MissingCompiledFile() => Set(Target(), new FileDescriptorProto { Name = "--version" });

    /// <summary>The service's file importing c1.proto, which imports c2.proto, and so on: <paramref name="files"/> files in all.</summary>
    public static byte[] ImportChain(int files)
    {
        var set = new FileDescriptorSet();
        var target = Target();
        target.Dependency.Add("c1.proto");
        set.File.Add(target);
        for (var i = 1; i < files; i++)
        {
            var link = new FileDescriptorProto { Name = $"c{i}.proto" };
            if (i + 1 < files)
            {
                link.Dependency.Add($"c{i + 1}.proto");
            }

            set.File.Add(link);
        }

        return set.ToByteArray();
    }

    /// <summary>The service's file importing cycle.proto, which imports the service's file.</summary>
    public static byte[] ImportCycle()
    {
        var target = Target();
        target.Dependency.Add("hostile/cycle.proto");
        return Set(target, new FileDescriptorProto { Name = "hostile/cycle.proto", Package = "hostile", Syntax = "proto3", Dependency = { ServiceFile } });
    }

    /// <summary>
    /// The service's file with <paramref name="count"/> more messages, each as a real contract has them: a name, an id, tags
    /// and the next message (1 000 is a big but plausible service; 20 000 is not).
    /// </summary>
    public static byte[] Messages(int count)
    {
        var target = Target();
        for (var i = 0; i < count; i++)
        {
            var message = new DescriptorProto
            {
                Name = $"Message{i}",
                Field =
                {
                    Field("name", 1, FieldDescriptorProto.Types.Type.String),
                    Field("id", 2, FieldDescriptorProto.Types.Type.Int64),
                    Field("tags", 3, FieldDescriptorProto.Types.Type.String, repeated: true),
                },
            };
            if (i + 1 < count)
            {
                message.Field.Add(new FieldDescriptorProto
                {
                    Name = "next", Number = 4, Label = FieldDescriptorProto.Types.Label.Optional, Type = FieldDescriptorProto.Types.Type.Message, TypeName = $".hostile.Message{i + 1}",
                });
            }

            target.MessageType.Add(message);
        }

        return Set(target);
    }

    /// <summary>The service's file with a message nested <paramref name="depth"/> deep (Nest1 in Nest0, Nest2 in Nest1, ...).</summary>
    public static byte[] Nesting(int depth)
    {
        var target = Target();
        var outer = new DescriptorProto { Name = "Nest0" };
        target.MessageType.Add(outer);
        for (var i = 1; i < depth; i++)
        {
            var inner = new DescriptorProto { Name = $"Nest{i}" };
            outer.NestedType.Add(inner);
            outer = inner;
        }

        return Set(target);
    }

    /// <summary>
    /// The service's file with one message of <paramref name="count"/> string fields (numbered around protobuf's reserved
    /// 19000-19999); protoc itself refuses more than 65 535 in a message, so a count below that reaches the compiler.
    /// </summary>
    public static byte[] Fields(int count)
    {
        var target = Target();
        var wide = new DescriptorProto { Name = "Wide" };
        for (var i = 1; i <= count; i++)
        {
            wide.Field.Add(Field($"f{i}", i < 19000 ? i : i + 1000, FieldDescriptorProto.Types.Type.String));
        }

        target.MessageType.Add(wide);
        return Set(target);
    }

    /// <summary>
    /// About <paramref name="megabytes"/> MB of descriptors with few messages and fields: files of 2.5 MB each, the bulk a
    /// message's comment, every one imported by the service's file (each answer of reflection stays under gRPC's 4 MB).
    /// </summary>
    public static byte[] Bytes(int megabytes)
    {
        const int FileBytes = 2_500_000;
        var line = "A comment as long as a book, in a descriptor set as big as a library, answering one reflection request at a time.\n";
        var comment = new StringBuilder(FileBytes + line.Length);
        while (comment.Length < FileBytes)
        {
            comment.Append(line);
        }

        var target = Target();
        var set = new FileDescriptorSet();
        for (var i = 0; i < (megabytes * 1_000_000 + FileBytes - 1) / FileBytes; i++)
        {
            var bulk = new FileDescriptorProto
            {
                Name = $"hostile/bulk{i}.proto",
                Package = "hostile",
                Syntax = "proto3",
                MessageType = { new DescriptorProto { Name = $"Bulk{i}", Field = { Field("text", 1, FieldDescriptorProto.Types.Type.String) } } },
                SourceCodeInfo = new SourceCodeInfo { Location = { new SourceCodeInfo.Types.Location { Path = { 4, 0 }, Span = { 0, 0, 1 }, LeadingComments = comment.ToString() } } },
            };
            target.Dependency.Add(bulk.Name);
            set.File.Add(bulk);
        }

        set.File.Add(target);
        return set.ToByteArray();
    }

    /// <summary>The service's file: package hostile, service Target with Echo(EchoRequest) returns (EchoReply), each message <c>string text = 1</c>.</summary>
    public static FileDescriptorProto Target() => new()
    {
        Name = ServiceFile,
        Package = "hostile",
        Syntax = "proto3",
        MessageType =
        {
            new DescriptorProto { Name = "EchoRequest", Field = { Field("text", 1, FieldDescriptorProto.Types.Type.String) } },
            new DescriptorProto { Name = "EchoReply", Field = { Field("text", 1, FieldDescriptorProto.Types.Type.String) } },
        },
        Service =
        {
            new ServiceDescriptorProto
            {
                Name = "Target",
                Method = { new MethodDescriptorProto { Name = "Echo", InputType = ".hostile.EchoRequest", OutputType = ".hostile.EchoReply" } },
            },
        },
    };

    private static byte[] Set(params FileDescriptorProto[] files)
    {
        var set = new FileDescriptorSet();
        set.File.AddRange(files);
        return set.ToByteArray();
    }

    private static FieldDescriptorProto Field(string name, int number, FieldDescriptorProto.Types.Type type, bool repeated = false) => new()
    {
        Name = name,
        Number = number,
        Label = repeated ? FieldDescriptorProto.Types.Label.Repeated : FieldDescriptorProto.Types.Label.Optional,
        Type = type,
    };

    // A C# string literal of a path: the injected code must compile to write exactly there.
    private static string Literal(string path) => "\"" + path.Replace("\\", "\\\\", StringComparison.Ordinal).Replace("\"", "\\\"", StringComparison.Ordinal) + "\"";
}
