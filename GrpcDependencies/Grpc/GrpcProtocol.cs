using System.Buffers;
using System.Buffers.Binary;
using System.Globalization;
using System.IO.Pipelines;
using Google.Protobuf;

namespace GrpcDependencies.Grpc;

/// <summary>
/// The gRPC over HTTP/2 wire format (https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md):
/// each message is a 1-byte compressed flag, a 4-byte big-endian length, then the protobuf bytes.
/// </summary>
public static class GrpcProtocol
{
    public const string ContentType = "application/grpc";
    public const string StatusHeader = "grpc-status";
    public const string MessageHeader = "grpc-message";
    public const string TimeoutHeader = "grpc-timeout";
    public const int HeaderSize = 5;
    public const int DefaultMaxMessageSize = 4 * 1024 * 1024;

    public static bool IsGrpcContentType(string? contentType) =>
        contentType is not null
        && contentType.StartsWith(ContentType, StringComparison.OrdinalIgnoreCase)
        && (contentType.Length == ContentType.Length || contentType[ContentType.Length] is '+' or ';');

    /// <summary>One framed message in one array: what a unary request body is.</summary>
    public static byte[] Frame(IMessage message)
    {
        var length = message.CalculateSize();
        var frame = new byte[HeaderSize + length];
        WriteHeader(frame, length);
        message.WriteTo(frame.AsSpan(HeaderSize));
        return frame;
    }

    public static void WriteMessage(IBufferWriter<byte> writer, IMessage message)
    {
        var length = message.CalculateSize();
        var span = writer.GetSpan(HeaderSize + length);
        WriteHeader(span, length);
        message.WriteTo(span.Slice(HeaderSize, length));
        writer.Advance(HeaderSize + length);
    }

    /// <summary>The one message of a unary body held whole in <paramref name="body"/>; null when the body is empty.</summary>
    public static T? ParseSingleMessage<T>(ReadOnlySpan<byte> body, MessageParser<T> parser, int maxMessageSize)
        where T : class, IMessage<T>
    {
        if (body.IsEmpty)
        {
            return null;
        }

        var length = body.Length >= HeaderSize ? ReadHeader(body[..HeaderSize], maxMessageSize) : uint.MaxValue;
        if (length == uint.MaxValue || body.Length < HeaderSize + length)
        {
            throw new RpcException(StatusCode.Internal, $"The stream ended inside a message ({body.Length} bytes of an incomplete frame).");
        }

        return body.Length == HeaderSize + length
            ? parser.ParseFrom(body.Slice(HeaderSize, (int)length))
            : throw new RpcException(StatusCode.Internal, "The server sent more than one message on a unary call.");
    }

    /// <summary>Whether <paramref name="buffer"/> starts with a whole framed message.</summary>
    public static bool ContainsWholeMessage(ReadOnlySequence<byte> buffer)
    {
        if (buffer.Length < HeaderSize)
        {
            return false;
        }

        Span<byte> header = stackalloc byte[HeaderSize];
        buffer.Slice(0, HeaderSize).CopyTo(header);
        return buffer.Length >= HeaderSize + (long)BinaryPrimitives.ReadUInt32BigEndian(header[1..]);
    }

    /// <summary>Reads the next message, or returns null when the stream ended cleanly between messages.</summary>
    public static async ValueTask<T?> ReadMessageAsync<T>(
        PipeReader reader, MessageParser<T> parser, int maxMessageSize, CancellationToken cancellationToken)
        where T : class, IMessage<T>
    {
        while (true)
        {
            var result = await reader.ReadAsync(cancellationToken).ConfigureAwait(false);
            var buffer = result.Buffer;
            if (TryReadFrame(ref buffer, maxMessageSize, out var payload))
            {
                var message = parser.ParseFrom(payload);
                reader.AdvanceTo(buffer.Start);
                return message;
            }

            if (result.IsCompleted || result.IsCanceled)
            {
                var leftover = buffer.Length;
                reader.AdvanceTo(buffer.End);
                return leftover == 0
                    ? null
                    : throw new RpcException(StatusCode.Internal, $"The stream ended inside a message ({leftover} bytes of an incomplete frame).");
            }

            reader.AdvanceTo(buffer.Start, buffer.End);
        }
    }

    private static bool TryReadFrame(ref ReadOnlySequence<byte> buffer, int maxMessageSize, out ReadOnlySequence<byte> payload)
    {
        payload = default;
        if (buffer.Length < HeaderSize)
        {
            return false;
        }

        Span<byte> header = stackalloc byte[HeaderSize];
        buffer.Slice(0, HeaderSize).CopyTo(header);
        var length = ReadHeader(header, maxMessageSize);
        if (buffer.Length < HeaderSize + length)
        {
            return false;
        }

        payload = buffer.Slice(HeaderSize, length);
        buffer = buffer.Slice(payload.End);
        return true;
    }

    /// <summary>The payload length a frame header announces, after refusing what this transport does not accept.</summary>
    private static uint ReadHeader(ReadOnlySpan<byte> header, int maxMessageSize)
    {
        if (header[0] != 0)
        {
            throw new RpcException(StatusCode.Unimplemented, "Compressed messages are not supported; send them uncompressed (grpc-encoding: identity).");
        }

        var length = BinaryPrimitives.ReadUInt32BigEndian(header[1..]);
        return length <= (uint)maxMessageSize
            ? length
            : throw new RpcException(StatusCode.ResourceExhausted, $"Received message exceeds the maximum configured message size ({length} > {maxMessageSize} bytes).");
    }

    private static void WriteHeader(Span<byte> destination, int length)
    {
        destination[0] = 0;
        BinaryPrimitives.WriteUInt32BigEndian(destination[1..], (uint)length);
    }

    /// <summary>Formats a timeout the way the grpc-timeout header wants it: at most 8 digits and a unit.</summary>
    public static string FormatTimeout(TimeSpan timeout)
    {
        var milliseconds = Math.Max(1L, (long)Math.Ceiling(timeout.TotalMilliseconds));
        return milliseconds < 100_000_000
            ? milliseconds.ToString(CultureInfo.InvariantCulture) + "m"
            : Math.Min(99_999_999L, milliseconds / 1000).ToString(CultureInfo.InvariantCulture) + "S";
    }

    public static bool TryParseTimeout(string? value, out TimeSpan timeout)
    {
        timeout = default;
        if (string.IsNullOrEmpty(value) || value.Length < 2 || value.Length > 9
            || !long.TryParse(value.AsSpan(0, value.Length - 1), NumberStyles.None, CultureInfo.InvariantCulture, out var amount))
        {
            return false;
        }

        timeout = value[^1] switch
        {
            'H' => TimeSpan.FromHours(amount),
            'M' => TimeSpan.FromMinutes(amount),
            'S' => TimeSpan.FromSeconds(amount),
            'm' => TimeSpan.FromMilliseconds(amount),
            'u' => TimeSpan.FromMicroseconds(amount),
            'n' => TimeSpan.FromTicks(amount / 100),
            _ => TimeSpan.MinValue,
        };
        return timeout != TimeSpan.MinValue;
    }

    /// <summary>grpc-message is UTF-8 with only bytes outside printable ASCII, and '%' itself, percent-encoded.</summary>
    public static string EncodeMessage(string message)
    {
        var utf8 = System.Text.Encoding.UTF8.GetBytes(message);
        var encoded = new System.Text.StringBuilder(utf8.Length);
        foreach (var b in utf8)
        {
            if (b is >= 0x20 and <= 0x7E && b != (byte)'%')
            {
                encoded.Append((char)b);
            }
            else
            {
                encoded.Append('%').Append(b.ToString("X2", CultureInfo.InvariantCulture));
            }
        }

        return encoded.ToString();
    }

    public static string DecodeMessage(string? message) => message is null ? string.Empty : Uri.UnescapeDataString(message);
}
