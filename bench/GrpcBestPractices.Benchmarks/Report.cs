using System.Globalization;
using System.Runtime.InteropServices;

namespace GrpcBestPractices.Benchmarks;

/// <summary>One line of the table: a figure, its reference measured in the same run, and the target the ratio must meet.</summary>
public sealed record Row(string Figure, double Value, string Unit, string Reference, double ReferenceValue, string Target, Func<double, bool>? Met)
{
    public double Ratio => ReferenceValue == 0 ? double.NaN : Value / ReferenceValue;
}

public static class Report
{
    public static string Machine()
    {
        var model = File.Exists("/proc/cpuinfo")
            ? File.ReadLines("/proc/cpuinfo").FirstOrDefault(line => line.StartsWith("model name", StringComparison.Ordinal))?.Split(':')[1].Trim()
            : null;
        // Every core the machine has: a process pinned to one sees one in ProcessorCount.
        var cores = File.Exists("/proc/cpuinfo") ? File.ReadLines("/proc/cpuinfo").Count(line => line.StartsWith("processor", StringComparison.Ordinal)) : Environment.ProcessorCount;
        return $"{cores} cores ({model ?? RuntimeInformation.ProcessArchitecture.ToString()}), " +
            $"{RuntimeInformation.OSDescription}, .NET {Environment.Version}, {DateTime.UtcNow:yyyy-MM-dd}; {Cores.Describe}";
    }

    public static void Print(IReadOnlyList<Row> rows, int repetitions, string machine)
    {
        Console.WriteLine();
        Console.WriteLine($"Medians of {repetitions} repetitions; Release, h2c on loopback unless the figure says TLS. Machine: {machine}.");
        Console.WriteLine();
        Console.WriteLine("| figure | value | reference | reference value | ratio | target | met |");
        Console.WriteLine("|---|---:|---|---:|---:|---|---|");
        foreach (var row in rows)
        {
            var met = row.Met is null ? "–" : row.Met(row.Ratio) ? "yes" : "**no**";
            Console.WriteLine($"| {row.Figure} | {Format(row.Value)} {row.Unit} | {row.Reference} | {Format(row.ReferenceValue)} {row.Unit} | {row.Ratio.ToString("0.000", CultureInfo.InvariantCulture)}× | {row.Target} | {met} |");
        }
    }

    private static string Format(double value) =>
        value.ToString(Math.Abs(value) >= 100 ? "#,0" : Math.Abs(value) >= 1 ? "0.0#" : "0.000", CultureInfo.InvariantCulture);
}
