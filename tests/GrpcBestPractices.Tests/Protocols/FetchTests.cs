using LoadEngine.Protocols;
using Workloads;

namespace GrpcBestPractices.Tests.Protocols;

/// <summary>A fetch's expected checksums and REST addresses: made before or at first use, then reused, never per call.</summary>
public sealed class FetchTests
{
    [Fact]
    public void ChecksumsAreComputedOnceAndExtendedOnlyWhenARunNeedsMore()
    {
        var computed = new List<int>();
        var checksums = new Checksums(key =>
        {
            computed.Add(key);
            return (ulong)key * 10;
        });

        var three = checksums.First(3);
        var two = checksums.First(2);
        var five = checksums.First(5);

        Assert.Same(three, two);
        Assert.Equal([0UL, 10, 20, 30, 40], five);
        Assert.Equal([0, 1, 2, 3, 4], computed);
    }

    [Fact]
    public void AFetchExpectsTheChecksumOfWorkloadDatasAnswer()
    {
        var fetch = Books();

        Assert.Equal(WorkloadChecksum.Of(WorkloadData.Book(7)), fetch.Expected.First(8)[7]);
    }

    [Fact]
    public void EachRestAddressIsMadeTheFirstTimeAndThenKept()
    {
        var routes = new RestRoutes(new Uri("http://127.0.0.1:5002"), "newtonsoft");
        var fetch = Books();

        var first = routes.For(fetch, 7);

        Assert.Equal("http://127.0.0.1:5002/rest/newtonsoft/books/7", first.ToString());
        Assert.Same(first, routes.For(fetch, 7));
    }

    private static Fetch Books() => Fetch.Of(
        (c, id, o) => c.GetBookAsync(new() { Id = id }, o), (s, id, c) => s.GetBookAsync(new() { Id = id }, c), id => $"books/{id}", WorkloadData.Book, 1000);
}
