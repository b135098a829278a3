using System.Net;
using Grpc.Core;
using Workloads;

namespace GrpcBestPractices.Tests.WorkloadService;

/// <summary>A service whose upload maximum is small (64 KiB), so "just above the maximum" is quick to send on every API.</summary>
public sealed class SmallUploadMaximum : IAsyncLifetime
{
    public const long MaxBytes = 64 * 1024;

    public RunningService Service { get; private set; } = null!;

    public async Task InitializeAsync() => Service = await RunningService.StartAsync("--Workloads:MaxFileBytes", MaxBytes.ToString());

    public async Task DisposeAsync() => await Service.DisposeAsync();
}

/// <summary>Workloads:MaxFileBytes on every API: a file of exactly the maximum is acknowledged, one byte more is refused with a sentence.</summary>
[Trait("Category", "Process")]
public sealed class UploadLimitTests(SmallUploadMaximum maximum) : IClassFixture<SmallUploadMaximum>
{
    private const string TooLarge = "The file is larger than 65536 bytes, the most this service accepts (Workloads:MaxFileBytes); send at most 65536 bytes.";

    [Theory]
    [InlineData("grpc", Route.H2c)]
    [InlineData("grpc-code-first", Route.TlsHttp2)]
    public async Task OverGrpcAFileOfTheMaximumIsAcknowledgedAndOneByteMoreIsResourceExhausted(string api, Route route)
    {
        var client = maximum.Service.Client(api, route);

        var whole = await client.UploadAsync(SmallUploadMaximum.MaxBytes);
        var refused = await Assert.ThrowsAsync<RpcException>(() => client.UploadAsync(SmallUploadMaximum.MaxBytes + 1));

        Assert.Equal((WorkloadChecksum.OfFile(SmallUploadMaximum.MaxBytes), SmallUploadMaximum.MaxBytes), whole);
        Assert.Equal(new Status(StatusCode.ResourceExhausted, TooLarge), refused.Status);
    }

    [Theory]
    [InlineData("rest-stj", Route.Http1, true)]
    [InlineData("rest-stj", Route.Http1, false)]
    [InlineData("rest-stj", Route.TlsHttp2, false)]
    [InlineData("rest-newtonsoft", Route.H2c, true)]
    [InlineData("rest-newtonsoft", Route.TlsHttp11, false)]
    public async Task OverRestAFileOfTheMaximumIsAcknowledgedAndOneByteMoreIsA413Problem(string api, Route route, bool lengthAnnounced)
    {
        var client = (RestClient)maximum.Service.Client(api, route);

        var whole = await client.UploadAsync(SmallUploadMaximum.MaxBytes);
        var refused = await WorkloadBadInputTests.ProblemAsync(
            client.Http, HttpStatusCode.RequestEntityTooLarge, $"{client.Prefix}/files", new RestClient.FileContent(SmallUploadMaximum.MaxBytes + 1, lengthAnnounced));

        Assert.Equal((WorkloadChecksum.OfFile(SmallUploadMaximum.MaxBytes), SmallUploadMaximum.MaxBytes), whole);
        Assert.Equal(TooLarge, refused);
    }
}
