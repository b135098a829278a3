using Grpc.Core;
using Workloads;

namespace GrpcBestPractices.Tests.WorkloadService;

/// <summary>
/// Every API over every listener it is meant for, against the real service on loopback sockets: each workload's data
/// arrives exactly (same checksum as WorkloadData), uploads are acknowledged exactly, and the service saw the protocol
/// the route promises — h2c is HTTP/2 in clear, the HTTP/1.1 listener HTTP/1.1, TLS really TLS.
/// </summary>
[Collection(WorkloadServiceCollection.Name)]
[Trait("Category", "Process")]
public sealed class WorkloadRoundTripTests(WorkloadServiceFixture service)
{
    public static TheoryData<string, Route> Paths => new()
    {
        { "grpc", Route.H2c },
        { "grpc", Route.TlsHttp2 },
        { "grpc-code-first", Route.H2c },
        { "grpc-code-first", Route.TlsHttp2 },
        { "rest-stj", Route.H2c },
        { "rest-stj", Route.Http1 },
        { "rest-stj", Route.TlsHttp11 },
        { "rest-stj", Route.TlsHttp2 },
        { "rest-newtonsoft", Route.H2c },
        { "rest-newtonsoft", Route.Http1 },
        { "rest-newtonsoft", Route.TlsHttp11 },
        { "rest-newtonsoft", Route.TlsHttp2 },
    };

    [Theory]
    [MemberData(nameof(Paths))]
    public async Task EveryWorkloadArrivesExactlyAndTheServiceSawTheProtocolOfTheRoute(string api, Route route)
    {
        var client = service.Client(api, route);
        var before = await service.ProtocolsAsync(api);

        Assert.Equal(WorkloadChecksum.Of(WorkloadData.SmallInts(7)), await client.SmallIntsAsync(7));
        Assert.Equal(WorkloadChecksum.Of(WorkloadData.Book(42)), await client.BookAsync(42));
        Assert.Equal(WorkloadChecksum.Of(WorkloadData.Book(42)), await client.BookAsync(1042));
        Assert.Equal(WorkloadChecksum.Of(WorkloadData.Books()), await client.BooksAsync());
        Assert.Equal(WorkloadChecksum.Of(WorkloadData.BigDto(3)), await client.BigDtoAsync(3));
        Assert.Equal(WorkloadChecksum.Of(WorkloadData.BigDtos(0, WorkloadData.CollectionSize)), await client.BigDtosAsync(0, WorkloadData.CollectionSize));
        Assert.Equal(WorkloadChecksum.Of(WorkloadData.BigDtos(5, WorkloadData.PageSize)), await client.BigDtosAsync(5, WorkloadData.PageSize));
        Assert.Equal(WorkloadChecksum.Of(WorkloadData.Users(999, WorkloadData.UserPageSize)), await client.UsersAsync(999, WorkloadData.UserPageSize));
        Assert.Equal((WorkloadChecksum.Of(WorkloadData.LogRecord(11)), 1L), await client.WriteLogAsync(WorkloadData.LogRecord(11)));
        Assert.Equal((WorkloadChecksum.OfFile(1024), 1024L), await client.UploadAsync(1024));
        Assert.Equal((WorkloadChecksum.OfFile(10 << 20), 10L << 20), await client.UploadAsync(10 << 20));
        const int calls = 11;

        var seen = Assert.Single(Grown(before, await service.ProtocolsAsync(api)));
        Assert.Equal(calls, seen.Requests);
        Assert.Equal(route is Route.Http1 or Route.TlsHttp11 ? "HTTP/1.1" : "HTTP/2", seen.HttpVersion);
        if (route is Route.TlsHttp11 or Route.TlsHttp2)
        {
            Assert.Contains(seen.Tls, new[] { "Tls12", "Tls13" });
        }
        else
        {
            Assert.Equal("none", seen.Tls);
        }
    }

    [Theory]
    [InlineData("grpc", Route.H2c)]
    [InlineData("grpc-code-first", Route.TlsHttp2)]
    [InlineData("rest-stj", Route.Http1)]
    [InlineData("rest-newtonsoft", Route.H2c)]
    public async Task AHundredMebibyteUploadIsAcknowledgedPastKestrelsDefaultBodyLimit(string api, Route route)
    {
        const long length = 100L << 20;

        var ack = await service.Client(api, route).UploadAsync(length);

        Assert.Equal((WorkloadChecksum.OfFile(length), length), ack);
    }

    [Theory]
    [InlineData("grpc", Route.H2c)]
    [InlineData("grpc", Route.TlsHttp2)]
    [InlineData("grpc-code-first", Route.H2c)]
    [InlineData("grpc-code-first", Route.TlsHttp2)]
    public async Task AServerStreamSendsEveryUserOfTheRangeInOrder(string api, Route route)
    {
        const int page = 3;
        const int size = 20_000;
        var client = service.Client(api, route);

        var received = client switch
        {
            ContractFirstClient contractFirst => await contractFirst.StreamUsers(page, size).Select(WorkloadChecksum.Of).ToListAsync(),
            CodeFirstClient codeFirst => await codeFirst.StreamUsers(page, size).Select(WorkloadChecksum.Of).ToListAsync(),
            _ => throw new InvalidOperationException(api),
        };

        Assert.Equal(WorkloadData.Users(page, size).Users.Select(WorkloadChecksum.Of), received);
    }

    [Fact]
    public async Task OneServerStreamCarriesAllMillionUsers()
    {
        var client = (ContractFirstClient)service.Client("grpc", Route.H2c);
        var next = 0;

        await foreach (var user in client.StreamUsers(0, WorkloadData.UserCount))
        {
            Assert.Equal(WorkloadChecksum.Of(WorkloadData.User(next)), WorkloadChecksum.Of(user));
            next++;
        }

        Assert.Equal(WorkloadData.UserCount, next);
    }

    [Theory]
    [InlineData("grpc")]
    [InlineData("grpc-code-first")]
    public async Task GrpcToTheHttp1ListenerFails(string api)
    {
        var client = service.Client(api, Route.Http1);

        var error = await Assert.ThrowsAsync<RpcException>(() => client.SmallIntsAsync(1));

        Assert.NotEqual(StatusCode.OK, error.StatusCode);
    }

    /// <summary>The counts that grew between two readings of /diagnostics, by how much.</summary>
    private static IEnumerable<ProtocolCount> Grown(IReadOnlyList<ProtocolCount> before, IReadOnlyList<ProtocolCount> after) =>
        after.Select(count => count with { Requests = count.Requests - (before.SingleOrDefault(b => (b.HttpVersion, b.Tls) == (count.HttpVersion, count.Tls))?.Requests ?? 0) })
            .Where(count => count.Requests > 0);
}
