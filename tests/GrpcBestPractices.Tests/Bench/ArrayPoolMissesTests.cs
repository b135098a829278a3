using System.Buffers;

namespace GrpcBestPractices.Tests.Bench;

/// <summary>The probe's account of what an array pool could not serve (bench/MemoryProbe/ArrayPoolMisses.cs).</summary>
public sealed class ArrayPoolMissesTests
{
    [Fact]
    public void ArraysRentedPastWhatThePoolKeepsAreCountedAsMadeByTheirRenterAndDroppedOnReturn()
    {
        // A pool of its own that keeps 4 arrays of 1 KB and no larger size to fall back on: the shared one is the whole suite's.
        var pool = ArrayPool<byte>.Create(maxArrayLength: 1024, maxArraysPerBucket: 4);
        using var misses = new ArrayPoolMisses(pool);

        RentAllThenReturn(pool, 10);
        RentAllThenReturn(pool, 10);

        var size = Assert.Single(misses.Sizes);
        // Both rounds hold 10 at once: the first makes all 10, the second gets the 4 kept and makes 6; each return keeps 4.
        Assert.Equal(new ArrayPoolSize(1024, Rented: 20, Allocated: 16, Dropped: 12), size);
        Assert.Equal(16 * 1024, size.AllocatedBytes);
        var renter = Assert.Single(misses.Renters);
        Assert.Equal((1024, $"{typeof(ArrayPoolMissesTests).FullName}.{nameof(RentAllThenReturn)}", 16L), renter);
    }

    private static void RentAllThenReturn(ArrayPool<byte> pool, int count)
    {
        var held = new byte[count][];
        for (var i = 0; i < count; i++)
        {
            held[i] = pool.Rent(1000);
        }

        foreach (var array in held)
        {
            pool.Return(array);
        }
    }
}
