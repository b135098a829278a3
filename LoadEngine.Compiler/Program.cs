using LoadEngine.Compiler;

// The compile worker LoadEngine starts (LoadEngine/Targets/Described/CSharpCompiler.cs): requests on stdin, answers on stdout,
// one at a time, until stdin ends. A frame is its length (4 bytes, little-endian) and then its bytes. A request holds the
// assembly's name, the reference paths and the C# sources (path, text); an answer is true and the image, or false and the
// compiler's first error.
using var input = Console.OpenStandardInput();
using var output = Console.OpenStandardOutput();
while (Frames.Read(input) is { } request)
{
    using var reader = new BinaryReader(new MemoryStream(request));
    var name = reader.ReadString();
    var references = Enumerable.Range(0, reader.ReadInt32()).Select(_ => reader.ReadString()).ToList();
    var sources = Enumerable.Range(0, reader.ReadInt32()).Select(_ => (Path: reader.ReadString(), Text: reader.ReadString())).ToList();
    var (image, error) = CSharpImage.Emit(sources, name, references, CancellationToken.None);

    using var answer = new MemoryStream();
    using (var writer = new BinaryWriter(answer, System.Text.Encoding.UTF8, leaveOpen: true))
    {
        writer.Write(image is not null);
        if (image is not null)
        {
            writer.Write(image);
        }
        else
        {
            writer.Write(error!);
        }
    }

    Frames.Write(output, answer.ToArray());
}

return 0;

/// <summary>A frame: its length as 4 little-endian bytes, then its bytes.</summary>
internal static class Frames
{
    public static byte[]? Read(Stream input)
    {
        var length = new byte[4];
        if (input.ReadAtLeast(length, 4, throwOnEndOfStream: false) < 4)
        {
            return null;
        }

        var frame = new byte[BitConverter.ToInt32(length)];
        input.ReadExactly(frame);
        return frame;
    }

    public static void Write(Stream output, byte[] frame)
    {
        output.Write(BitConverter.GetBytes(frame.Length));
        output.Write(frame);
        output.Flush();
    }
}
