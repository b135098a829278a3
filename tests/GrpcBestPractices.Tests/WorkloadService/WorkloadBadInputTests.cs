using System.Net;
using System.Text;
using Grpc.Core;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.WorkloadService;

/// <summary>Bad input to the real service: a problem (application/problem+json) on REST, a status on gRPC, each with a sentence saying what is allowed.</summary>
[Collection(WorkloadServiceCollection.Name)]
[Trait("Category", "Process")]
public sealed class WorkloadBadInputTests(WorkloadServiceFixture service)
{
    [Theory]
    [InlineData("/rest/stj")]
    [InlineData("/rest/newtonsoft")]
    public async Task ABadPageSizeOrIdIsA400ProblemNamingWhatIsAllowed(string prefix)
    {
        var http = service.Http(Route.Http1);

        Assert.Equal("size was 1001; it must be between 1 and 1000.", await ProblemAsync(http, HttpStatusCode.BadRequest, $"{prefix}/users?page=0&size=1001"));
        Assert.Equal("size was 501; it must be between 1 and 500.", await ProblemAsync(http, HttpStatusCode.BadRequest, $"{prefix}/big-dtos?page=0&size=501"));
        Assert.Equal("size is missing; it must be a whole number between 1 and 1000, as in ?page=0&size=1000.", await ProblemAsync(http, HttpStatusCode.BadRequest, $"{prefix}/users"));
        Assert.Equal("page was 'two'; it must be a whole number, 0 or more.", await ProblemAsync(http, HttpStatusCode.BadRequest, $"{prefix}/users?page=two&size=10"));
        Assert.Equal("id was -1; it must be 0 or more (ids are taken modulo 1000).", await ProblemAsync(http, HttpStatusCode.BadRequest, $"{prefix}/books/-1"));
        Assert.Equal("id was 'x'; it must be a whole number, 0 or more (ids are taken modulo 1000).", await ProblemAsync(http, HttpStatusCode.BadRequest, $"{prefix}/small-ints/x"));
    }

    [Theory]
    [InlineData("grpc")]
    [InlineData("grpc-code-first")]
    public async Task ABadPageSizeOrIdIsInvalidArgumentNamingWhatIsAllowed(string api)
    {
        var client = service.Client(api, Route.H2c);

        var users = await Assert.ThrowsAsync<RpcException>(() => client.UsersAsync(0, 1001));
        var bigDtos = await Assert.ThrowsAsync<RpcException>(() => client.BigDtosAsync(-1, 20));
        var book = await Assert.ThrowsAsync<RpcException>(() => client.BookAsync(-3));

        Assert.Equal(new Status(StatusCode.InvalidArgument, "size was 1001; it must be between 1 and 1000."), users.Status);
        Assert.Equal(new Status(StatusCode.InvalidArgument, "page was -1; it must be 0 or more."), bigDtos.Status);
        Assert.Equal(new Status(StatusCode.InvalidArgument, "id was -3; it must be 0 or more (ids are taken modulo 1000)."), book.Status);
    }

    [Theory]
    [InlineData("/rest/stj")]
    [InlineData("/rest/newtonsoft")]
    public async Task AChunkSizeThatOverflowsIsA400ProblemNotTheClientLeaving(string prefix)
    {
        var request = Encoding.ASCII.GetBytes(
            $"POST {prefix}/logs HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\n{{}}\r\n0\r\n\r\n");

        var response = await RawHttp.SendAsync(service.Http1, request, TimeSpan.FromSeconds(30));

        Assert.True(response.Status == 400 && response.IsProblem, response.ToString());
        Assert.Contains("Bad chunk size data", response.Detail);
    }

    [Theory]
    [InlineData("/rest/stj")]
    [InlineData("/rest/newtonsoft")]
    public async Task ABodyOfTheWrongTypeIsA415ProblemAndALogRecordThatIsNotJsonA400(string prefix)
    {
        var http = service.Http(Route.H2c);

        var log = await ProblemAsync(http, HttpStatusCode.UnsupportedMediaType, $"{prefix}/logs", new StringContent("hello", Encoding.UTF8, "text/plain"));
        var file = await ProblemAsync(http, HttpStatusCode.UnsupportedMediaType, $"{prefix}/files", new StringContent("{}", Encoding.UTF8, "application/json"));
        var notJson = await ProblemAsync(http, HttpStatusCode.BadRequest, $"{prefix}/logs", new StringContent("{\"timestamp\":", Encoding.UTF8, "application/json"));

        Assert.Equal("The body must be sent as application/json; it was text/plain; charset=utf-8.", log);
        Assert.Equal("The body must be sent as application/octet-stream; it was application/json; charset=utf-8.", file);
        Assert.StartsWith("The body is not a JSON log record ({\"timestamp\", \"text\", \"level\", \"category\"}): ", notJson);
    }

    /// <summary>Sends the request and returns the problem's detail, after checking its status and content type.</summary>
    public static async Task<string> ProblemAsync(HttpClient http, HttpStatusCode status, string route, HttpContent? body = null)
    {
        using var response = body is null ? await http.GetAsync(route) : await http.PostAsync(route, body);
        Assert.Equal(status, response.StatusCode);
        var problem = await SystemFixture.ReadProblemAsync(response);
        Assert.Equal((int)status, problem.GetProperty("status").GetInt32());
        return problem.GetProperty("detail").GetString()!;
    }
}
