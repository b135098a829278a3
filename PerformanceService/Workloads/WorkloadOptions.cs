using System.ComponentModel.DataAnnotations;

namespace PerformanceService.Workloads;

/// <summary>The workloads' one knob (section <c>Workloads</c>).</summary>
public sealed class WorkloadOptions
{
    public const string Section = "Workloads";
    public const long DefaultMaxFileBytes = 100 * 1024 * 1024;

    /// <summary>The largest upload accepted, on every path; REST's files route takes it as its request body limit too.</summary>
    [Range(typeof(long), "1024", "1099511627776", ErrorMessage = "Workloads:MaxFileBytes must be between 1024 (1 KiB) and 1099511627776 (1 TiB).")]
    public long MaxFileBytes { get; set; } = DefaultMaxFileBytes;
}
