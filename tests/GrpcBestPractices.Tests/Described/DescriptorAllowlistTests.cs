using Google.Protobuf;
using Google.Protobuf.Reflection;
using GrpcBestPractices.Tests.Described.Shop;
using LoadEngine.Targets.Described;

namespace GrpcBestPractices.Tests.Described;

/// <summary>
/// Every descriptor set is rebuilt from the allowlist before protoc sees it: comments, options and unknown fields are
/// dropped, what changes encoding or JSON stays, each name is a checked identifier or file name, the well-known types
/// are this process's own, and every bound is one sentence that names it. No protoc, no compiler: the rebuild alone.
/// </summary>
public sealed class DescriptorAllowlistTests
{
    [Fact]
    public void CommentsOptionsAndUnknownFieldsAreDroppedWhileWhatChangesEncodingOrJsonStays()
    {
        var file = Shop();
        file.Options = new Google.Protobuf.Reflection.FileOptions { CsharpNamespace = "Evil */ class X { } /*", JavaPackage = "x" };
        file.SourceCodeInfo = new SourceCodeInfo { Location = { new SourceCodeInfo.Types.Location { LeadingComments = "a\r System.IO.File.WriteAllText(\"m\", \"\");" } } };
        var item = file.MessageType.Single(message => message.Name == "Item");
        item.Options = new MessageOptions { Deprecated = true };
        item.ReservedName.Add("old */");
        item.Field[0].Options = new FieldOptions { Deprecated = true, Packed = true };
        item.Field[0].JsonName = "stock-keeping-unit";
        var map = file.MessageType.SelectMany(message => message.NestedType).First(nested => nested.Options?.MapEntry == true);
        var withUnknown = Set(file).ToByteArray().Concat(new byte[] { 0xF8, 0x7F, 0x01 }).ToArray();

        var safe = DescriptorAllowlist.Rebuild(withUnknown);

        var rebuilt = safe.Files.Single(rebuiltFile => rebuiltFile.Name == file.Name);
        Assert.Null(rebuilt.Options);
        Assert.Null(rebuilt.SourceCodeInfo);
        var rebuiltItem = rebuilt.MessageType.Single(message => message.Name == "Item");
        Assert.Null(rebuiltItem.Options);
        Assert.Empty(rebuiltItem.ReservedName);
        Assert.Equal(new FieldOptions { Packed = true }, rebuiltItem.Field[0].Options);
        Assert.Equal("stock-keeping-unit", rebuiltItem.Field[0].JsonName);
        Assert.True(rebuilt.MessageType.SelectMany(message => message.NestedType).Single(nested => nested.Name == map.Name).Options.MapEntry);
        Assert.Equal(-1, IndexOf(safe.Bytes, "Evil"u8.ToArray()));
        Assert.Equal(-1, IndexOf(safe.Bytes, "WriteAllText"u8.ToArray()));
        // Rebuilding is idempotent: a stored set read back is named by the same hash.
        Assert.Equal(safe.Hash, DescriptorAllowlist.Rebuild(safe.Bytes).Hash);
    }

    [Fact]
    public void TheWellKnownTypesAreThisProcesssOwnWhetherServedAlteredOrLeftOut()
    {
        var altered = FileDescriptorProto.Parser.ParseFrom(Google.Protobuf.WellKnownTypes.TimestampReflection.Descriptor.SerializedData);
        altered.Options.CsharpNamespace = "Elsewhere";
        altered.MessageType[0].Field.Add(new FieldDescriptorProto { Name = "extra", Number = 9, Type = FieldDescriptorProto.Types.Type.String });
        var set = new FileDescriptorSet { File = { altered, Shop() } };

        var safe = DescriptorAllowlist.Rebuild(set.ToByteArray());

        // The two it imports but the set left out are added, and every file comes after its imports.
        Assert.Equal(
            ["Described/shop.proto", "google/protobuf/duration.proto", "google/protobuf/timestamp.proto", "google/protobuf/wrappers.proto"],
            safe.Files.Select(file => file.Name).Order(StringComparer.Ordinal));
        Assert.Equal("Described/shop.proto", safe.Files[^1].Name);
        Assert.Equal(Google.Protobuf.WellKnownTypes.TimestampReflection.Descriptor.SerializedData, safe.Files.Single(file => file.Name == "google/protobuf/timestamp.proto").ToByteString());
    }

    [Theory]
    [InlineData("--plugin=protoc-gen-x=/bin/sh")]
    [InlineData("--descriptor_set_out=/tmp/overwritten")]
    [InlineData("@arguments.txt")]
    [InlineData("../outside.proto")]
    [InlineData("/etc/passwd")]
    [InlineData("a/./b.proto")]
    [InlineData("line\rbreak.proto")]
    [InlineData("spaced name.proto")]
    [InlineData("")]
    public void AFileNameThatIsNotAPlainRelativePathIsRefusedBeforeProtocSeesIt(string name)
    {
        var file = Shop();
        file.Name = name;

        var problem = Assert.Throws<TargetDescriptionException>(() => DescriptorAllowlist.Rebuild(Set(file).ToByteArray()));

        Assert.StartsWith("The target's descriptors name a file '", problem.Message);
        Assert.Contains("which is not a file name this tool accepts", problem.Message);
        Assert.DoesNotContain("\r", problem.Message);
    }

    [Theory]
    [InlineData("message", "Order */ class X { } /*")]
    [InlineData("message", "Order\u2028Evil")]
    [InlineData("field", "order_id; }")]
    [InlineData("package", "shop.v1\r\nclass")]
    [InlineData("service", "9Orders")]
    [InlineData("enum value", "SIZE_SMALL=1;")]
    public void ANameThatIsNotAProtobufIdentifierIsRefusedWithItsPlace(string what, string name)
    {
        var file = Shop();
        switch (what)
        {
            case "message": file.MessageType[1].Name = name; break;
            case "field": file.MessageType[1].Field[0].Name = name; break;
            case "package": file.Package = name; break;
            case "service": file.Service[0].Name = name; break;
            default: file.EnumType[0].Value[1].Name = name; break;
        }

        var problem = Assert.Throws<TargetDescriptionException>(() => DescriptorAllowlist.Rebuild(Set(file).ToByteArray()));

        Assert.StartsWith("The target's descriptors name a ", problem.Message);
        Assert.DoesNotContain("\r", problem.Message);
        Assert.DoesNotContain("\u2028", problem.Message);
    }

    [Theory]
    [InlineData(FieldDescriptorProto.Types.Type.Int64, "12; System.Environment.Exit(3)", false)]
    [InlineData(FieldDescriptorProto.Types.Type.Double, "-1.5e3", true)]
    [InlineData(FieldDescriptorProto.Types.Type.Double, "inf", true)]
    [InlineData(FieldDescriptorProto.Types.Type.Bool, "true", true)]
    [InlineData(FieldDescriptorProto.Types.Type.Bool, "maybe", false)]
    [InlineData(FieldDescriptorProto.Types.Type.String, "\"); evil(); //", true)]
    public void ADefaultValueMustFitItsTypeAndStringsGoIntoTheCodeAsBase64(FieldDescriptorProto.Types.Type type, string value, bool fits)
    {
        var file = new FileDescriptorProto { Name = "p2.proto", Package = "p2", Syntax = "proto2" };
        file.MessageType.Add(new DescriptorProto { Name = "M", Field = { new FieldDescriptorProto { Name = "f", Number = 1, Label = FieldDescriptorProto.Types.Label.Optional, Type = type, DefaultValue = value } } });

        var rebuild = () => DescriptorAllowlist.Rebuild(Set(file).ToByteArray());

        if (fits)
        {
            Assert.Equal(value, rebuild().Files[0].MessageType[0].Field[0].DefaultValue);
        }
        else
        {
            Assert.Contains("the default value", Assert.Throws<TargetDescriptionException>(rebuild).Message);
        }
    }

    [Fact]
    public void EachBoundIsRefusedWithASentenceThatNamesIt()
    {
        Assert.Contains($"at most {DescribeLimits.Files:N0} files are described", Refusal(Chain(DescribeLimits.Files + 1, imports: false)));
        Assert.Contains($"at most {DescribeLimits.ImportDepth} levels of imports are described", Refusal(Chain(DescribeLimits.ImportDepth + 1, imports: true)));
        Assert.Contains($"at most {DescribeLimits.Types:N0} are described", Refusal(Messages(DescribeLimits.Types + 1, fields: 1)));
        Assert.Contains($"at most {DescribeLimits.Fields:N0} are described", Refusal(Messages(DescribeLimits.Fields / 100 + 1, fields: 100)));
        Assert.Contains($"at most {DescribeLimits.NestingDepth} levels of nested messages are described", Refusal(Nested(DescribeLimits.NestingDepth + 1)));
        // Deeper than Google.Protobuf's own parser goes: the same sentence, not a parser's error.
        Assert.Contains($"at most {DescribeLimits.NestingDepth} levels of nested messages are described", Refusal(Nested(1_000)));
        Assert.Contains($"at most {DescribeLimits.Bytes:N0} bytes of descriptors are described", Refusal(new byte[DescribeLimits.Bytes + 1]));
        Assert.Contains("in a cycle", Refusal(Cycle()));
        Assert.Contains("without including it (a protoset is made with protoc --include_imports)", Refusal(Missing()));
        // At the bounds themselves, described.
        DescriptorAllowlist.Rebuild(Chain(DescribeLimits.ImportDepth, imports: true));
        DescriptorAllowlist.Rebuild(Nested(DescribeLimits.NestingDepth));
    }

    [Fact]
    public void AHundredThousandFilesImportingEachOtherAreRefusedAtOnceWithoutRecursion()
    {
        var started = System.Diagnostics.Stopwatch.GetTimestamp();

        var problem = Refusal(Chain(100_001, imports: true));

        Assert.Contains($"hold 100,001 files; at most {DescribeLimits.Files:N0} files are described", problem);
        Assert.True(System.Diagnostics.Stopwatch.GetElapsedTime(started) < TimeSpan.FromSeconds(30));
    }

    private static string Refusal(byte[] set) => Assert.Throws<TargetDescriptionException>(() => DescriptorAllowlist.Rebuild(set)).Message;

    private static FileDescriptorProto Shop() => FileDescriptorProto.Parser.ParseFrom(ShopReflection.Descriptor.SerializedData);

    private static FileDescriptorSet Set(params FileDescriptorProto[] files)
    {
        var set = new FileDescriptorSet();
        set.File.AddRange(files);
        return set;
    }

    /// <summary>Files f0 … f(n-1), each importing the one before it when <paramref name="imports"/>.</summary>
    private static byte[] Chain(int count, bool imports)
    {
        var set = new FileDescriptorSet();
        for (var index = 0; index < count; index++)
        {
            var file = new FileDescriptorProto { Name = $"f{index}.proto", Package = "chain", Syntax = "proto3" };
            if (imports && index > 0)
            {
                file.Dependency.Add($"f{index - 1}.proto");
            }

            set.File.Add(file);
        }

        return set.ToByteArray();
    }

    private static byte[] Messages(int count, int fields)
    {
        var file = new FileDescriptorProto { Name = "many.proto", Package = "many", Syntax = "proto3" };
        for (var index = 0; index < count; index++)
        {
            var message = new DescriptorProto { Name = $"M{index}" };
            for (var number = 1; number <= fields; number++)
            {
                message.Field.Add(new FieldDescriptorProto { Name = $"f{number}", Number = number, Type = FieldDescriptorProto.Types.Type.String });
            }

            file.MessageType.Add(message);
        }

        return Set(file).ToByteArray();
    }

    private static byte[] Nested(int depth)
    {
        var inner = new DescriptorProto { Name = "N" };
        for (var level = 1; level < depth; level++)
        {
            inner = new DescriptorProto { Name = "N", NestedType = { inner } };
        }

        return Set(new FileDescriptorProto { Name = "deep.proto", Package = "deep", MessageType = { inner } }).ToByteArray();
    }

    private static byte[] Cycle() => Set(
        new FileDescriptorProto { Name = "a.proto", Dependency = { "b.proto" } },
        new FileDescriptorProto { Name = "b.proto", Dependency = { "a.proto" } }).ToByteArray();

    private static byte[] Missing() => Set(new FileDescriptorProto { Name = "a.proto", Dependency = { "elsewhere/b.proto" } }).ToByteArray();

    private static int IndexOf(byte[] haystack, byte[] needle) => haystack.AsSpan().IndexOf(needle);
}
