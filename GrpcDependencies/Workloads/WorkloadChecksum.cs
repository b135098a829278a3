using System.IO.Hashing;
using System.Runtime.InteropServices;
using Google.Protobuf.WellKnownTypes;
using Cf = Workloads.ContractFirst;

namespace Workloads;

/// <summary>A workload's answer or record, in either shape (Model.cs adds each one's fields, in the same order for both).</summary>
public interface IWorkloadValue
{
    void AddTo(WorkloadHash hash);
}

/// <summary>
/// One XxHash64 over every field's value, the same for the contract-first messages and the plain classes, so each side
/// can prove it got exactly what the other sent (a JSON client that binds nothing, or a lost chunk, changes it).
/// </summary>
public static class WorkloadChecksum
{
    public static ulong Of(IWorkloadValue value)
    {
        var hash = new WorkloadHash();
        value.AddTo(hash);
        return hash.Checksum;
    }

    /// <summary>The checksum of the first <paramref name="length"/> bytes of the upload file (what the service acknowledges).</summary>
    public static ulong OfFile(long length)
    {
        var hash = new XxHash64();
        foreach (var chunk in WorkloadData.FileChunks(length))
        {
            hash.Append(chunk.Span);
        }

        return hash.GetCurrentHashAsUInt64();
    }
}

/// <summary>Appends each value in a fixed little-endian form; text as its UTF-16 code units, after its length.</summary>
public sealed class WorkloadHash
{
    private readonly XxHash64 _hash = new();

    public ulong Checksum => _hash.GetCurrentHashAsUInt64();

    /// <summary>A decimal's whole units and nano units, as Microsoft's "Protobuf scalar data types" guide sends it.</summary>
    public static long Units(decimal value) => (long)decimal.Truncate(value);

    public static int Nanos(decimal value) => (int)((value - Units(value)) * 1_000_000_000m);

    public WorkloadHash Int(int value) => Long(value);

    public WorkloadHash Long(long value)
    {
        Span<byte> bytes = stackalloc byte[8];
        BitConverter.TryWriteBytes(bytes, value);
        _hash.Append(bytes);
        return this;
    }

    public WorkloadHash Float(float value) => Int(BitConverter.SingleToInt32Bits(value));

    public WorkloadHash Double(double value) => Long(BitConverter.DoubleToInt64Bits(value));

    public WorkloadHash Decimal(decimal value) => Long(Units(value)).Int(Nanos(value));

    public WorkloadHash Decimal(Cf.DecimalValue? value) => value is null ? Long(-1).Int(-1) : Long(value.Units).Int(value.Nanos);

    public WorkloadHash Time(DateTime value) => Long(value.Kind == DateTimeKind.Local ? value.ToUniversalTime().Ticks : value.Ticks);

    public WorkloadHash Time(Timestamp? value) => Long(value is null ? -1 : value.ToDateTime().Ticks);

    public WorkloadHash Text(string? value) => value is null ? Long(-1) : Long(value.Length).Raw(MemoryMarshal.AsBytes(value.AsSpan()));

    public WorkloadHash Bytes(ReadOnlySpan<byte> value) => Long(value.Length).Raw(value);

    public WorkloadHash Present(object? value) => Int(value is null ? 0 : 1);

    public WorkloadHash Texts(IReadOnlyCollection<string> texts)
    {
        Long(texts.Count);
        foreach (var text in texts)
        {
            Text(text);
        }

        return this;
    }

    public WorkloadHash Each<T>(IReadOnlyCollection<T> items)
        where T : IWorkloadValue
    {
        Long(items.Count);
        foreach (var item in items)
        {
            item.AddTo(this);
        }

        return this;
    }

    private WorkloadHash Raw(ReadOnlySpan<byte> bytes)
    {
        _hash.Append(bytes);
        return this;
    }
}
