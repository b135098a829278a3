using System.Buffers;
using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using LoadEngine.Calls;
using Performance;

namespace LoadEngine.Targets;

/// <summary>
/// The per-call answers a chapter route returns, kept on disk rather than in memory: each call's answer goes to its own
/// fixed-size slot of a temporary file as it arrives (positional writes, so calls in flight never wait on each other),
/// and is read back in call order while the answer is written. The file is gone when the spool is disposed or the process ends.
/// </summary>
public sealed class StatusSpool : IAnswerSpool
{
    // present (1), cpu (8), memory (8), processes (4), connections (4), then each payload's length (4) and its bytes.
    private const int HeaderBytes = 1 + 8 + 8 + 4 + 4;
    private const int ReadBatch = 16;

    private readonly FileStream _file;
    private readonly int _payloadBytes;
    private readonly int _slotBytes;

    /// <param name="count">Slots, one per call.</param>
    /// <param name="payloadBytes">Each answer's byte fields' size: the service answers exactly the size asked for.</param>
    public StatusSpool(int count, int payloadBytes)
    {
        Count = count;
        _payloadBytes = payloadBytes;
        _slotBytes = HeaderBytes + 2 * (4 + payloadBytes);
        var path = Path.Combine(Path.GetTempPath(), $"grpc-statuses-{Guid.NewGuid():N}.bin");
        // DeleteOnClose: the file goes with the spool however the run ends, and with the process if it dies.
        _file = new FileStream(path, FileMode.CreateNew, FileAccess.ReadWrite, FileShare.None, bufferSize: 0,
            FileOptions.DeleteOnClose | FileOptions.Asynchronous | FileOptions.RandomAccess);
        if (!OperatingSystem.IsWindows())
        {
            // Unlinked at once, the file lives only as long as its handle: a gateway killed with SIGKILL leaves nothing in /tmp.
            File.Delete(path);
        }
    }

    public int Count { get; }

    /// <summary>Keeps call <paramref name="index"/>'s answer; safe from many threads at once (each call has its own slot).</summary>
    public void Write(long index, PerformanceStatusResponse response)
    {
        if (index < 0 || index >= Count)
        {
            return;
        }

        var slot = ArrayPool<byte>.Shared.Rent(_slotBytes);
        try
        {
            var span = slot.AsSpan(0, _slotBytes);
            span[0] = 1;
            BinaryPrimitives.WriteDoubleLittleEndian(span[1..], response.CpuPercentageUsage);
            BinaryPrimitives.WriteDoubleLittleEndian(span[9..], response.MemoryUsage);
            BinaryPrimitives.WriteInt32LittleEndian(span[17..], response.ProcessesRunning);
            BinaryPrimitives.WriteInt32LittleEndian(span[21..], response.ActiveConnections);
            var rest = span[HeaderBytes..];
            rest = WriteBytes(rest, response.DataLoad1.Span);
            WriteBytes(rest, response.DataLoad2.Span);
            RandomAccess.Write(_file.SafeFileHandle, span, index * _slotBytes);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(slot);
        }
    }

    /// <summary>The kept answers in call order (calls that failed have none), read a few slots at a time.</summary>
    public async IAsyncEnumerable<PerformanceStatus> ReadAsync([EnumeratorCancellation] CancellationToken cancellation = default)
    {
        var buffer = new byte[_slotBytes * ReadBatch];
        for (long first = 0; first < Count; first += ReadBatch)
        {
            var slots = (int)Math.Min(ReadBatch, Count - first);
            var read = await RandomAccess.ReadAsync(_file.SafeFileHandle, buffer.AsMemory(0, slots * _slotBytes), first * _slotBytes, cancellation);
            for (var i = 0; i < slots && (i + 1) * _slotBytes <= read; i++)
            {
                if (Read(buffer.AsSpan(i * _slotBytes, _slotBytes)) is { } status)
                {
                    yield return status;
                }
            }
        }
    }

    public void Dispose() => _file.Dispose();

    // Sizes never exceed the slot (the service answers the size asked for); a longer field keeps its first bytes.
    private Span<byte> WriteBytes(Span<byte> into, ReadOnlySpan<byte> bytes)
    {
        var kept = Math.Min(bytes.Length, _payloadBytes);
        BinaryPrimitives.WriteInt32LittleEndian(into, kept);
        bytes[..kept].CopyTo(into[4..]);
        return into[(4 + _payloadBytes)..];
    }

    private PerformanceStatus? Read(ReadOnlySpan<byte> slot)
    {
        if (slot[0] != 1)
        {
            return null;
        }

        var rest = slot[HeaderBytes..];
        var first = ReadBytes(ref rest);
        var second = ReadBytes(ref rest);
        return new PerformanceStatus(
            BinaryPrimitives.ReadDoubleLittleEndian(slot[1..]),
            BinaryPrimitives.ReadDoubleLittleEndian(slot[9..]),
            BinaryPrimitives.ReadInt32LittleEndian(slot[17..]),
            BinaryPrimitives.ReadInt32LittleEndian(slot[21..]),
            first,
            second);
    }

    private byte[] ReadBytes(ref ReadOnlySpan<byte> rest)
    {
        var length = BinaryPrimitives.ReadInt32LittleEndian(rest);
        var bytes = rest.Slice(4, length).ToArray();
        rest = rest[(4 + _payloadBytes)..];
        return bytes;
    }
}

/// <summary>One answer, in the chapter's JSON shape. Byte fields serialize as base64.</summary>
public sealed record PerformanceStatus(
    double CpuPercentageUsage,
    double MemoryUsage,
    int ProcessesRunning,
    int ActiveConnections,
    byte[] DataLoad1,
    byte[] DataLoad2)
{
    public static PerformanceStatus From(PerformanceStatusResponse response) => new(
        response.CpuPercentageUsage,
        response.MemoryUsage,
        response.ProcessesRunning,
        response.ActiveConnections,
        response.DataLoad1.ToByteArray(),
        response.DataLoad2.ToByteArray());
}
