using System.Net;
using System.Text;
using Grpc.Core;
using GrpcBestPractices.Tests.Infrastructure;
using LoadEngine.Calls;
using LoadEngine.Protocols;
using Workloads;

namespace GrpcBestPractices.Tests.Protocols;

/// <summary>The REST clients against a fake handler: what they ask for, how they read it, and the gRPC status each failure gets.</summary>
public sealed class RestApiTests
{
    private static readonly Uri Service = new("http://127.0.0.1:5002");

    [Theory]
    [InlineData(PayloadSerializer.SystemTextJson, "http://127.0.0.1:5002/rest/stj/small-ints/7")]
    [InlineData(PayloadSerializer.Newtonsoft, "http://127.0.0.1:5002/rest/newtonsoft/small-ints/7")]
    public async Task EachSerializerAsksItsOwnRouteAndBindsTheCamelCaseAnswer(PayloadSerializer serializer, string expectedUri)
    {
        var handler = new FakeHandler(_ => Json(CamelCase(WorkloadData.SmallInts(7))));
        using var api = Api(handler, serializer);

        // The call checks the answer's checksum: it fails as DataLoss unless every field bound.
        await Call("small-ints")(api, 7, Options());
        Assert.Equal(expectedUri, handler.Requests.Single().RequestUri!.ToString());
    }

    [Fact]
    public async Task AnAnswerThatBoundToNothingHasAnotherChecksumAndTheWorkloadFailsItAsDataLoss()
    {
        // The 2019 study's client: the names do not match, nothing binds, and every field is its default.
        using var api = Api(new FakeHandler(_ => Json("{\"sales_quantity_total\": 1}")), PayloadSerializer.Newtonsoft);
        var failure = await Assert.ThrowsAsync<CallFailedException>(() => Call("small-ints")(api, 7, Options()));

        Assert.Equal(StatusCode.DataLoss, failure.Status);
        Assert.StartsWith("The small-ints answer arrived with checksum", failure.Detail);
    }

    [Theory]
    [InlineData(HttpStatusCode.BadRequest, StatusCode.Internal)]
    [InlineData(HttpStatusCode.Unauthorized, StatusCode.Unauthenticated)]
    [InlineData(HttpStatusCode.Forbidden, StatusCode.PermissionDenied)]
    [InlineData(HttpStatusCode.NotFound, StatusCode.Unimplemented)]
    [InlineData(HttpStatusCode.RequestEntityTooLarge, StatusCode.Unknown)]
    [InlineData(HttpStatusCode.TooManyRequests, StatusCode.Unavailable)]
    [InlineData(HttpStatusCode.InternalServerError, StatusCode.Unknown)]
    [InlineData(HttpStatusCode.ServiceUnavailable, StatusCode.Unavailable)]
    [InlineData(HttpStatusCode.GatewayTimeout, StatusCode.Unavailable)]
    public async Task AnHttpFailureGetsTheStatusGrpcDotnetGivesThatHttpStatusAndKeepsTheServicesSentence(HttpStatusCode http, StatusCode expected)
    {
        using var api = Api(new FakeHandler(_ => new HttpResponseMessage(http) { Content = new StringContent("{\"detail\":\"size must be from 1 to 1000.\"}") }));

        var failure = await Assert.ThrowsAsync<CallFailedException>(() => Call("big-list")(api, 0, Options()));

        Assert.Equal(expected, failure.Status);
        Assert.Equal($"Bad REST response. HTTP status code: {(int)http}. {{\"detail\":\"size must be from 1 to 1000.\"}}", failure.Detail);
    }

    [Fact]
    [Trait("Category", "Process")]
    public async Task ARefusedConnectionIsUnavailableAsForAGrpcClient()
    {
        var dead = new Uri($"http://127.0.0.1:{Ports.Unused()}");
        using var api = new RestWorkloadApi(new HttpClient(new SocketsHttpHandler()), new RestRoutes(dead, "stj"), SystemTextJsonCodec.Instance);

        var failure = await Assert.ThrowsAsync<CallFailedException>(() => Call("big-list")(api, 0, Options()));

        Assert.Equal(StatusCode.Unavailable, failure.Status);
    }

    [Fact]
    public async Task AnAnswerSlowerThanTheDeadlineIsDeadlineExceededAndAStoppedRunIsCancelled()
    {
        using var api = Api(new FakeHandler(async cancellation => { await Task.Delay(Timeout.Infinite, cancellation); return Json("{}"); }));
        using var stop = new CancellationTokenSource();

        var late = await Assert.ThrowsAsync<CallFailedException>(() => Call("small-mixed")(api, 1, new CallOptions(deadline: DateTime.UtcNow.AddMilliseconds(50))));
        var stopping = Call("small-mixed")(api, 1, new CallOptions(deadline: DateTime.UtcNow.AddMinutes(1), cancellationToken: stop.Token));
        await stop.CancelAsync();
        var stopped = await Assert.ThrowsAsync<CallFailedException>(() => stopping);

        Assert.Equal(StatusCode.DeadlineExceeded, late.Status);
        Assert.Equal(StatusCode.Cancelled, stopped.Status);
    }

    [Fact]
    public async Task ABodyThatIsNotJsonIsInternalAsAMessageThatCannotBeDeserialized()
    {
        using var api = Api(new FakeHandler(_ => Json("<html>")));

        Assert.Equal(StatusCode.Internal, (await Assert.ThrowsAsync<CallFailedException>(() => Call("big-dto")(api, 3, Options()))).Status);
    }

    [Fact]
    public async Task AnUploadIsStreamedWithItsLengthKnownAndTheReceiptIsTheServices()
    {
        long? announced = null;
        long streamed = 0;
        using var api = Api(new FakeHandler(async request =>
        {
            announced = request.Content!.Headers.ContentLength;
            await using var body = await request.Content.ReadAsStreamAsync();
            var buffer = new byte[100_000];
            for (int read; (read = await body.ReadAsync(buffer)) > 0;)
            {
                streamed += read;
            }

            return Json($"{{\"checksum\": {WorkloadSamples.File(300_000)}, \"length\": {streamed}}}");
        }));

        var receipt = await api.UploadAsync(300_000, Options());

        Assert.Equal((300_000L, 300_000L), (announced, streamed));
        Assert.Equal(new Receipt(WorkloadSamples.File(300_000), 300_000), receipt);
    }

    private static CallOptions Options() => new(deadline: DateTime.UtcNow.AddSeconds(10));

    private static WorkloadCall Call(string workload) => WorkloadList.Find(workload)!.Prepare(new RunPlan { Strategy = "rest-stj-h1-cleartext" }).Call;

    private static RestWorkloadApi Api(FakeHandler handler, PayloadSerializer serializer = PayloadSerializer.SystemTextJson)
    {
        var codec = JsonCodec.For(serializer);
        return new RestWorkloadApi(new HttpClient(handler), new RestRoutes(Service, codec.Segment), codec);
    }

    private static string CamelCase<T>(T value) => System.Text.Json.JsonSerializer.Serialize(value, System.Text.Json.JsonSerializerOptions.Web);

    private static HttpResponseMessage Json(string body) => new(HttpStatusCode.OK) { Content = new StringContent(body, Encoding.UTF8, "application/json") };

    /// <summary>Answers each request with what the test says; the request, with its token, is the test's to inspect.</summary>
    private sealed class FakeHandler : HttpMessageHandler
    {
        private readonly Func<HttpRequestMessage, CancellationToken, Task<HttpResponseMessage>> _answer;

        public FakeHandler(Func<HttpRequestMessage, HttpResponseMessage> answer) => _answer = (request, _) => Task.FromResult(answer(request));

        public FakeHandler(Func<HttpRequestMessage, Task<HttpResponseMessage>> answer) => _answer = (request, _) => answer(request);

        public FakeHandler(Func<CancellationToken, Task<HttpResponseMessage>> answer) => _answer = (_, cancellation) => answer(cancellation);

        public List<HttpRequestMessage> Requests { get; } = [];

        protected override Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            Requests.Add(request);
            return _answer(request, cancellationToken);
        }
    }
}
