using System.Text;
using System.Security.Authentication;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using PerformanceService.Metrics;
using PerformanceService.Workloads;

namespace GrpcBestPractices.Tests.WorkloadService;

/// <summary>The pure pieces behind every path: REST's arguments read into the shared rules, which API a path is, and what is counted.</summary>
public sealed class WorkloadRulesTests
{
    [Theory]
    [InlineData("7", 7, null)]
    [InlineData("1007", 1007, null)]
    [InlineData("-1", -1, "id was -1; it must be 0 or more (ids are taken modulo 1000).")]
    [InlineData("1.5", 0, "id was '1.5'; it must be a whole number, 0 or more (ids are taken modulo 1000).")]
    [InlineData("99999999999", 0, "id was '99999999999'; it must be a whole number, 0 or more (ids are taken modulo 1000).")]
    public void ARestIdIsReadIntoTheNumberGrpcReceivesAndCheckedByTheSameRule(string raw, int id, string? problem)
    {
        Assert.Equal(problem, RestArguments.Id(raw, out var read));
        Assert.Equal(id, read);
    }

    [Theory]
    [InlineData(null, "20", 0, 20, null)]
    [InlineData("3", "500", 3, 500, null)]
    [InlineData("0", "501", 0, 501, "size was 501; it must be between 1 and 500.")]
    [InlineData("0", "0", 0, 0, "size was 0; it must be between 1 and 500.")]
    [InlineData("-2", "20", -2, 20, "page was -2; it must be 0 or more.")]
    [InlineData("0", null, 0, 0, "size is missing; it must be a whole number between 1 and 500, as in ?page=0&size=500.")]
    [InlineData("0", "ten", 0, 0, "size was 'ten'; it must be a whole number between 1 and 500.")]
    public void ARestPageDefaultsToZeroButItsSizeMustBeGiven(string? rawPage, string? rawSize, int page, int size, string? problem)
    {
        Assert.Equal(problem, RestArguments.Page(rawPage, rawSize, WorkloadRules.MaxBigDtoPageSize, out var readPage, out var readSize));
        Assert.Equal((page, size), (readPage, readSize));
    }

    [Theory]
    [InlineData("/workloads.Workloads/GetBook", WorkloadApi.Grpc)]
    [InlineData("/workloads.CodeFirstWorkloads/Upload", WorkloadApi.GrpcCodeFirst)]
    [InlineData("/rest/stj/books/1", WorkloadApi.RestStj)]
    [InlineData("/rest/newtonsoft/files", WorkloadApi.RestNewtonsoft)]
    [InlineData("/rest/stjx/books", WorkloadApi.None)]
    [InlineData("/performance.Monitor/GetPerformance", WorkloadApi.None)]
    [InlineData("/diagnostics", WorkloadApi.None)]
    public void EachWorkloadRequestIsKnownByItsPath(string path, WorkloadApi api) =>
        Assert.Equal(api, WorkloadTrafficMiddleware.ApiOf(new PathString(path)));

    [Fact]
    public void RequestsAreCountedByApiHttpVersionAndTlsVersionInAStableOrder()
    {
        var counter = new ProtocolCounter();

        counter.Count(WorkloadApi.RestNewtonsoft, HttpProtocol.Http11, SslProtocols.None);
        counter.Count(WorkloadApi.Grpc, HttpProtocol.Http2, SslProtocols.Tls13);
        counter.Count(WorkloadApi.Grpc, HttpProtocol.Http2, SslProtocols.Tls13);
        counter.Count(WorkloadApi.Grpc, HttpProtocol.Http2, SslProtocols.None);
        counter.Count(WorkloadApi.RestStj, HttpProtocol.Http11, SslProtocols.Tls12);

        Assert.Equal(
            [
                new ProtocolRequests("grpc", "HTTP/2", "none", 1),
                new ProtocolRequests("grpc", "HTTP/2", "Tls13", 2),
                new ProtocolRequests("rest-stj", "HTTP/1.1", "Tls12", 1),
                new ProtocolRequests("rest-newtonsoft", "HTTP/1.1", "none", 1),
            ],
            counter.Snapshot());
    }

    [Fact]
    public async Task CountingIsExactUnderConcurrency()
    {
        var counter = new ProtocolCounter();

        await Task.WhenAll(Enumerable.Range(0, 8).Select(_ => Task.Run(() =>
        {
            for (var i = 0; i < 10_000; i++)
            {
                counter.Count(WorkloadApi.RestStj, HttpProtocol.Http2, SslProtocols.None);
            }
        })));

        Assert.Equal(80_000, Assert.Single(counter.Snapshot()).Requests);
    }

    [Theory]
    [InlineData(1023, false)]
    [InlineData(1024, true)]
    [InlineData(WorkloadOptions.DefaultMaxFileBytes, true)]
    [InlineData(1L << 41, false)]
    public void TheUploadMaximumIsBetweenOneKibibyteAndOneTebibyte(long maxFileBytes, bool valid)
    {
        var result = new DataAnnotationValidateOptions<WorkloadOptions>(null).Validate(null, new WorkloadOptions { MaxFileBytes = maxFileBytes });

        Assert.Equal(valid, result.Succeeded);
        if (!valid)
        {
            Assert.Contains("Workloads:MaxFileBytes must be between 1024 (1 KiB) and 1099511627776 (1 TiB).", result.FailureMessage);
        }
    }

    [Theory]
    [InlineData("io")]
    [InlineData("cancelled")]
    public async Task AConnectionFailureOnARestWorkloadIsTheClientLeavingEvenBeforeKestrelSignalsRequestAborted(string failure)
    {
        // Kestrel cancels RequestAborted from the thread pool; the reset can reach the handler first.
        Exception left = failure == "io" ? new Microsoft.AspNetCore.Connections.ConnectionResetException("reset") : new OperationCanceledException();
        var context = new DefaultHttpContext();
        context.Request.Path = "/rest/stj/files";
        var middleware = new WorkloadTrafficMiddleware(_ => throw left, new ProtocolCounter(), NullLogger<WorkloadTrafficMiddleware>.Instance);

        await middleware.InvokeAsync(context);

        Assert.False(context.RequestAborted.IsCancellationRequested);
        Assert.Equal(StatusCodes.Status499ClientClosedRequest, context.Response.StatusCode);
    }

    [Fact]
    public async Task AChunkSizeThatOverflowsIsA400ProblemNotTheClientLeaving()
    {
        // What Kestrel throws for "ffffffffffffffffffff" as a chunk's size line, with the client still waiting.
        var context = new DefaultHttpContext { RequestServices = new ServiceCollection().AddLogging().BuildServiceProvider() };
        context.Request.Path = "/rest/stj/logs";
        context.Response.Body = new MemoryStream();
        var middleware = new WorkloadTrafficMiddleware(_ => throw new IOException("Bad chunk size data.", new OverflowException()), new ProtocolCounter(), NullLogger<WorkloadTrafficMiddleware>.Instance);

        await middleware.InvokeAsync(context);

        Assert.Equal(StatusCodes.Status400BadRequest, context.Response.StatusCode);
        Assert.StartsWith("application/problem+json", context.Response.ContentType);
        Assert.Contains("Bad chunk size data", Encoding.UTF8.GetString(((MemoryStream)context.Response.Body).ToArray()));
    }

    [Fact]
    public async Task AFailureOfTheServiceItselfIsNotTakenForTheClientLeaving()
    {
        var context = new DefaultHttpContext();
        context.Request.Path = "/rest/stj/files";
        var middleware = new WorkloadTrafficMiddleware(_ => throw new InvalidOperationException("a bug"), new ProtocolCounter(), NullLogger<WorkloadTrafficMiddleware>.Instance);

        await Assert.ThrowsAsync<InvalidOperationException>(() => middleware.InvokeAsync(context));
    }
}
