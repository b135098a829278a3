using System.ComponentModel.DataAnnotations;
using Workloads;

namespace PerformanceService.Workloads;

/// <summary>The workloads' knobs (section <c>Workloads</c>).</summary>
public sealed class WorkloadOptions
{
    public const string Section = "Workloads";
    public const long DefaultMaxFileBytes = 100 * 1024 * 1024;

    /// <summary>Two upload chunks: with the chunk a gRPC handler parses and the copy it parses into, an upload holds four.</summary>
    public const int DefaultUploadReadAheadBytes = 2 * WorkloadData.FileChunkBytes;

    /// <summary>The largest upload accepted, on every path; REST's files route takes it as its request body limit too.</summary>
    [Range(typeof(long), "1024", "1099511627776", ErrorMessage = "Workloads:MaxFileBytes must be between 1024 (1 KiB) and 1099511627776 (1 TiB).")]
    public long MaxFileBytes { get; set; } = DefaultMaxFileBytes;

    /// <summary>How much of a request body Kestrel takes in before the handler reads it (see <see cref="UploadReadAhead"/>).</summary>
    [Range(65536, 16777216, ErrorMessage = "Workloads:UploadReadAheadBytes must be between 65536 (64 KiB) and 16777216 (16 MiB).")]
    public int UploadReadAheadBytes { get; set; } = DefaultUploadReadAheadBytes;
}
