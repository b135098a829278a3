using System.Buffers;
using System.IO.Hashing;

namespace PerformanceService.Workloads;

/// <summary>
/// An upload hashed as it arrives and never kept: each gRPC chunk or REST body segment goes into one incremental
/// XxHash64 and is dropped, so a 100 MiB file costs the service a chunk, not the file.
/// </summary>
public sealed class FileUpload(long maxBytes)
{
    private readonly XxHash64 _hash = new();

    public long Length { get; private set; }

    /// <summary>The checksum the client expects: <c>WorkloadChecksum.OfFile(Length)</c> when every byte arrived unchanged.</summary>
    public ulong Checksum => _hash.GetCurrentHashAsUInt64();

    /// <summary>Both gRPC services' upload: every chunk hashed as it arrives, or RESOURCE_EXHAUSTED once one would pass the maximum.</summary>
    public static async Task<FileUpload> ReceiveAsync(IAsyncEnumerable<ReadOnlyMemory<byte>> chunks, long maxBytes, CancellationToken cancellationToken)
    {
        var upload = new FileUpload(maxBytes);
        await foreach (var chunk in chunks.WithCancellation(cancellationToken))
        {
            if (!upload.TryAppend(chunk.Span))
            {
                throw GrpcFailures.FileTooLarge(maxBytes);
            }
        }

        return upload;
    }

    /// <summary>False, with nothing appended, when these bytes would take the file past the maximum.</summary>
    public bool TryAppend(ReadOnlySpan<byte> bytes)
    {
        if (bytes.Length > maxBytes - Length)
        {
            return false;
        }

        _hash.Append(bytes);
        Length += bytes.Length;
        return true;
    }

    public bool TryAppend(in ReadOnlySequence<byte> bytes)
    {
        if (bytes.Length > maxBytes - Length)
        {
            return false;
        }

        foreach (var segment in bytes)
        {
            TryAppend(segment.Span);
        }

        return true;
    }
}
