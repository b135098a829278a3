namespace GrpcBestPractices.Tests.WorkloadService;

/// <summary>
/// A client that leaves mid-request is normal traffic: uploads abandoned on every API and big answers walked away from
/// leave the service's log without an error, a fatal line or a stack trace.
/// </summary>
[Trait("Category", "Process")]
public sealed class ClientAbortTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task ClientsThatLeaveMidUploadOrMidAnswerLeaveNoErrorAndNoStackTraceInTheServiceLog()
    {
        // Its own service, logging each finished request (at Debug), so the test can wait until the service is done with them.
        await using var service = await RunningService.StartAsync("--Serilog:MinimumLevel:Override:Serilog.AspNetCore", "Debug");
        var uploads = new (string Api, Route Route)[]
        {
            ("rest-stj", Route.Http1),
            ("rest-stj", Route.H2c),
            ("rest-newtonsoft", Route.Http1),
            ("rest-newtonsoft", Route.TlsHttp2),
            ("grpc", Route.H2c),
            ("grpc-code-first", Route.TlsHttp2),
        };

        foreach (var (api, route) in uploads)
        {
            await LeaveMidUploadAsync(service, api, route);
        }

        foreach (var (prefix, route) in new[] { ("/rest/stj", Route.H2c), ("/rest/newtonsoft", Route.H2c), ("/rest/newtonsoft", Route.Http1) })
        {
            await LeaveMidAnswerAsync(service.Http(route), $"{prefix}/big-dtos?page=0&size=500");
        }

        var finished = await service.Service.WaitForOutputAsync(line => line.Contains(" /rest/stj/files responded"), lines: 2, Patience)
            && await service.Service.WaitForOutputAsync(line => line.Contains(" /rest/newtonsoft/files responded"), lines: 2, Patience)
            && await service.Service.WaitForOutputAsync(line => line.Contains(" /workloads.Workloads/Upload responded"), Patience)
            && await service.Service.WaitForOutputAsync(line => line.Contains(" /workloads.CodeFirstWorkloads/Upload responded"), Patience)
            && await service.Service.WaitForOutputAsync(line => line.Contains(" /rest/stj/big-dtos responded"), Patience)
            && await service.Service.WaitForOutputAsync(line => line.Contains(" /rest/newtonsoft/big-dtos responded"), lines: 2, Patience);
        var log = service.Service.Output;
        Assert.True(finished, "the service did not finish the abandoned requests:" + Environment.NewLine + log);
        // The offending lines themselves, so a failure on a busy CI machine says which request it was.
        var offending = log.Split('\n').Where(line => line.Contains(" ERR]") || line.Contains(" FTL]") || line.Contains("   at ") || line.Contains("Exception")).ToList();
        Assert.True(offending.Count == 0, "the service logged an error or a stack trace:" + Environment.NewLine + string.Join(Environment.NewLine, offending.Take(20)));
    }

    /// <summary>Sends part of a file, waits until the service has the request, then cancels it.</summary>
    private static async Task LeaveMidUploadAsync(RunningService service, string api, Route route)
    {
        var before = Total(await service.ProtocolsAsync(api));
        using var leave = new CancellationTokenSource();
        var stalled = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var upload = service.Client(api, route).LeaveMidUploadAsync(4 * WorkloadClient.ChunkBytes, stalled, leave.Token);

        await stalled.Task.WaitAsync(Patience);
        var deadline = DateTime.UtcNow + Patience;
        while (Total(await service.ProtocolsAsync(api)) == before && DateTime.UtcNow < deadline)
        {
            await Task.Delay(20);
        }

        await leave.CancelAsync();
        await Assert.ThrowsAnyAsync<Exception>(() => upload);
    }

    /// <summary>Reads the headers of a large answer, then walks away from the rest of it.</summary>
    private static async Task LeaveMidAnswerAsync(HttpClient http, string route)
    {
        using var leave = new CancellationTokenSource();
        var response = await http.GetAsync(route, HttpCompletionOption.ResponseHeadersRead, leave.Token);
        Assert.Equal("application/json", response.Content.Headers.ContentType?.MediaType);
        await leave.CancelAsync();
        response.Dispose();
    }

    private static long Total(IReadOnlyList<ProtocolCount> counts) => counts.Sum(count => count.Requests);
}
