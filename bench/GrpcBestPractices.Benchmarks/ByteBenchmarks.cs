using System.Runtime.InteropServices;
using BenchmarkDotNet.Attributes;
using Google.Protobuf;

namespace GrpcBestPractices.Benchmarks;

/// <summary>Lesson 5's four byte paths: into a message (wrap or copy) and out of it (copy or take the array).</summary>
[MemoryDiagnoser]
public class ByteBenchmarks
{
    private byte[] _payload = [];
    private ByteString _received = ByteString.Empty;

    [Params(100, 65536)]
    public int Size { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _payload = new byte[Size];
        Random.Shared.NextBytes(_payload);
        // What a parser hands over: a ByteString that owns its array.
        _received = ByteString.CopyFrom(_payload);
    }

    [Benchmark(Description = "in: UnsafeByteOperations.UnsafeWrap")]
    public ByteString WrapIn() => UnsafeByteOperations.UnsafeWrap(_payload);

    [Benchmark(Baseline = true, Description = "in: ByteString.CopyFrom")]
    public ByteString CopyIn() => ByteString.CopyFrom(_payload);

    [Benchmark(Description = "out: ToByteArray")]
    public byte[] CopyOut() => _received.ToByteArray();

    [Benchmark(Description = "out: MemoryMarshal.TryGetArray")]
    public byte[]? TakeOut() => MemoryMarshal.TryGetArray(_received.Memory, out var segment) ? segment.Array : null;
}
