using System.Globalization;

namespace GrpcBestPractices.Tests.Infrastructure;

/// <summary>A process's memory as Linux reports it in /proc/{pid}/status.</summary>
public static class ProcessMemory
{
    /// <summary>The most resident memory the process ever had (VmHWM), so a peak between two samples is not missed.</summary>
    public static long PeakResidentBytes(int processId) => StatusBytes(processId, "VmHWM:");

    /// <summary>What the process holds resident now (VmRSS).</summary>
    public static long ResidentBytes(int processId) => StatusBytes(processId, "VmRSS:");

    private static long StatusBytes(int processId, string field) =>
        long.Parse(File.ReadLines($"/proc/{processId}/status").Single(line => line.StartsWith(field, StringComparison.Ordinal))
            .Split(' ', '\t', StringSplitOptions.RemoveEmptyEntries)[1], CultureInfo.InvariantCulture) * 1024;
}
