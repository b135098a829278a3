using Google.Protobuf;
using Google.Protobuf.Reflection;
using Grpc.Core;
using Grpc.Health.V1;
using Grpc.Net.Client;
using Grpc.Reflection.V1Alpha;
using GrpcBestPractices.Tests.Infrastructure;
using Performance;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>PerformanceService on grpc-dotnet, called over a real loopback socket by Grpc.Net.Client.</summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class MonitorServiceTests(SystemFixture system) : IDisposable
{
    private readonly GrpcChannel _channel = GrpcChannel.ForAddress(system.Service.Url);

    [Fact]
    public async Task UnaryCallReturnsRealFiguresAndTheConnectionThatCarriedIt()
    {
        var client = new Monitor.MonitorClient(_channel);

        var first = await client.GetPerformanceAsync(new PerformanceStatusRequest { ClientName = "a" });
        var second = await client.GetPerformanceAsync(new PerformanceStatusRequest { ClientName = "b", PayloadBytes = 4096 });

        Assert.Equal(100, first.DataLoad1.Length);
        Assert.Equal(4096, second.DataLoad2.Length);
        Assert.False(string.IsNullOrEmpty(first.ConnectionId));
        Assert.Equal(first.ConnectionId, second.ConnectionId);
        Assert.InRange(first.CpuPercentageUsage, 0, 100);
    }

    [Fact]
    public async Task DuplexStreamAnswersEveryRequestInOrder()
    {
        using var call = new Monitor.MonitorClient(_channel).GetManyPerformanceStats();

        for (var size = 1; size <= 50; size++)
        {
            await call.RequestStream.WriteAsync(new PerformanceStatusRequest { ClientName = $"#{size}", PayloadBytes = size });
        }

        await call.RequestStream.CompleteAsync();
        var sizes = new List<int>();
        await foreach (var response in call.ResponseStream.ReadAllAsync())
        {
            sizes.Add(response.DataLoad1.Length);
        }

        Assert.Equal(Enumerable.Range(1, 50), sizes);
    }

    [Fact]
    public async Task InvalidArgumentFromTheServiceArrivesAsItsStatusAndMessage()
    {
        var error = await Assert.ThrowsAsync<RpcException>(async () =>
            await new Monitor.MonitorClient(_channel).GetPerformanceAsync(new PerformanceStatusRequest { DelayMs = -1 }));

        Assert.Equal(StatusCode.InvalidArgument, error.StatusCode);
        Assert.Equal("delay_ms was -1; it must be between 0 and 60000.", error.Status.Detail);
    }

    [Fact]
    public async Task CancellingAStreamMidwayEndsItAsCancelled()
    {
        using var cancel = new CancellationTokenSource();
        using var call = new Monitor.MonitorClient(_channel).GetManyPerformanceStats(cancellationToken: cancel.Token);
        await call.RequestStream.WriteAsync(new PerformanceStatusRequest { DelayMs = 5000 });

        cancel.CancelAfter(100);
        var error = await Assert.ThrowsAsync<RpcException>(() => call.ResponseStream.MoveNext());

        Assert.Equal(StatusCode.Cancelled, error.StatusCode);
    }

    // The four behaviours an independent client found wrong in the hand-written transport. Each deadline below is sent
    // as a bare grpc-timeout header that the client itself does not know about, so the status is the one the service sent.

    [Fact]
    public async Task ADeadlineThatExpiresOnTheServiceEndsAsDeadlineExceededNeverAsAnError()
    {
        using var channel = ChannelSending("grpc-timeout", "40m");
        var client = new Monitor.MonitorClient(channel);
        var statuses = new List<StatusCode>();

        // Delays around the deadline make the answer and the deadline race, which is where UNKNOWN used to appear.
        foreach (var delay in Enumerable.Range(0, 30).Select(i => 25 + i))
        {
            statuses.Add(await StatusOfAsync(client.GetPerformanceAsync(new PerformanceStatusRequest { DelayMs = delay }).ResponseAsync));
        }

        statuses.Add(await StatusOfAsync(client.GetPerformanceAsync(new PerformanceStatusRequest { DelayMs = 2000 }).ResponseAsync));
        Assert.All(statuses, status => Assert.Contains(status, new[] { StatusCode.OK, StatusCode.DeadlineExceeded }));
        Assert.Equal(StatusCode.DeadlineExceeded, statuses[^1]);
    }

    [Fact]
    public async Task AStreamWhoseDeadlineExpiresOnTheServiceEndsAsDeadlineExceeded()
    {
        using var channel = ChannelSending("grpc-timeout", "200m");
        using var call = new Monitor.MonitorClient(channel).GetManyPerformanceStats();
        await call.RequestStream.WriteAsync(new PerformanceStatusRequest { DelayMs = 5000 });

        var error = await Assert.ThrowsAsync<RpcException>(() => call.ResponseStream.MoveNext());

        Assert.Equal(StatusCode.DeadlineExceeded, error.StatusCode);
    }

    [Theory]
    [InlineData("99999999H")]
    [InlineData("99999999S")]
    [InlineData("not-a-timeout")]
    public async Task AnOutOfRangeOrMalformedGrpcTimeoutIsAnsweredNotFailedWithHttp500(string timeout)
    {
        using var channel = ChannelSending("grpc-timeout", timeout);

        var answer = await new Monitor.MonitorClient(channel).GetPerformanceAsync(new PerformanceStatusRequest { ClientName = "timeout " + timeout });

        Assert.Equal(100, answer.DataLoad1.Length);
    }

    [Theory]
    [InlineData("performance.Monitor", "NoSuchMethod")]
    [InlineData("no.such.Service", "GetPerformance")]
    public async Task AnUnknownMethodOrServiceIsUnimplemented(string service, string method)
    {
        var marshaller = Marshallers.Create<PerformanceStatusRequest>(request => request.ToByteArray(), PerformanceStatusRequest.Parser.ParseFrom);
        var unknown = new Method<PerformanceStatusRequest, PerformanceStatusRequest>(MethodType.Unary, service, method, marshaller, marshaller);

        var error = await Assert.ThrowsAsync<RpcException>(async () =>
            await _channel.CreateCallInvoker().AsyncUnaryCall(unknown, null, new CallOptions(), new PerformanceStatusRequest()));

        Assert.Equal(StatusCode.Unimplemented, error.StatusCode);
    }

    [Fact]
    public async Task AClientThatResetsBusyCallsLeavesNoErrorAndNoStackTraceInTheServiceLog()
    {
        // Its own service, logging each finished request (at Debug), so the test can wait until the service is done with the resets.
        await using var service = await AppProcess.StartAsync("PerformanceService", ["--Serilog:MinimumLevel:Override:Serilog.AspNetCore", "Debug"]);
        using var channel = GrpcChannel.ForAddress(service.Url);
        var client = new Monitor.MonitorClient(channel);

        // A stream kept busy writing large answers that the client never reads (so the service's writes wait on flow control), then reset.
        using (var busy = client.GetManyPerformanceStats())
        {
            for (var i = 0; i < 64; i++)
            {
                await busy.RequestStream.WriteAsync(new PerformanceStatusRequest { PayloadBytes = 512 * 1024 });
            }
        }

        // A stream reset while the service waits out a request's delay, so its next step comes after the client left.
        using (var delayed = client.GetManyPerformanceStats())
        {
            await delayed.RequestStream.WriteAsync(new PerformanceStatusRequest { DelayMs = 500 });
        }

        // A stream waiting for its next request, reset; and a unary call reset while the service waits out its delay.
        using (var idle = client.GetManyPerformanceStats())
        {
            await idle.RequestStream.WriteAsync(new PerformanceStatusRequest());
            Assert.True(await idle.ResponseStream.MoveNext());
        }

        using var leave = new CancellationTokenSource(TimeSpan.FromMilliseconds(300));
        Assert.Equal(StatusCode.Cancelled, await StatusOfAsync(client.GetPerformanceAsync(new PerformanceStatusRequest { DelayMs = 30_000 }, cancellationToken: leave.Token).ResponseAsync));

        var finished = await service.WaitForOutputAsync(line => line.Contains("/performance.Monitor/GetPerformance responded"), TimeSpan.FromSeconds(30))
            && await service.WaitForOutputAsync(line => line.Contains("/performance.Monitor/GetManyPerformanceStats responded"), lines: 3, TimeSpan.FromSeconds(30));
        Assert.True(finished, "the service did not finish the reset calls:" + Environment.NewLine + service.Output);
        Assert.DoesNotContain(" ERR]", service.Output);
        Assert.DoesNotContain(" FTL]", service.Output);
        Assert.DoesNotContain("   at ", service.Output);
        Assert.DoesNotContain("Exception", service.Output);
    }

    [Fact]
    public async Task HealthServiceAnswersServingForTheServerAndForTheMonitorService()
    {
        var health = new Health.HealthClient(_channel);

        var server = await health.CheckAsync(new HealthCheckRequest());
        var monitor = await health.CheckAsync(new HealthCheckRequest { Service = Monitor.Descriptor.FullName });
        var unknown = await Assert.ThrowsAsync<RpcException>(async () => await health.CheckAsync(new HealthCheckRequest { Service = "no.such.Service" }));

        Assert.Equal(HealthCheckResponse.Types.ServingStatus.Serving, server.Status);
        Assert.Equal(HealthCheckResponse.Types.ServingStatus.Serving, monitor.Status);
        Assert.Equal(StatusCode.NotFound, unknown.StatusCode);
    }

    [Fact]
    public async Task ReflectionDescribesTheServiceSoToolsNeedNoProtoFile()
    {
        using var reflection = new ServerReflection.ServerReflectionClient(_channel).ServerReflectionInfo();

        await reflection.RequestStream.WriteAsync(new ServerReflectionRequest { ListServices = string.Empty });
        await reflection.RequestStream.WriteAsync(new ServerReflectionRequest { FileContainingSymbol = "performance.Monitor" });
        await reflection.RequestStream.CompleteAsync();
        var answers = await reflection.ResponseStream.ReadAllAsync().ToListAsync();

        var services = answers[0].ListServicesResponse.Service.Select(service => service.Name).ToList();
        Assert.Contains("performance.Monitor", services);
        Assert.Contains("grpc.health.v1.Health", services);
        var file = FileDescriptorProto.Parser.ParseFrom(answers[1].FileDescriptorResponse.FileDescriptorProto[0]);
        var monitor = Assert.Single(file.Service);
        Assert.Equal(["GetPerformance", "GetManyPerformanceStats"], monitor.Method.Select(method => method.Name));
        Assert.Contains(file.MessageType.Single(message => message.Name == "PerformanceStatusResponse").Field, field => field is { Name: "connection_id", Number: 7 });
    }

    public void Dispose() => _channel.Dispose();

    private static async Task<StatusCode> StatusOfAsync(Task call)
    {
        try
        {
            await call;
            return StatusCode.OK;
        }
        catch (RpcException error)
        {
            return error.StatusCode;
        }
    }

    private GrpcChannel ChannelSending(string header, string value) =>
        GrpcChannel.ForAddress(system.Service.Url, new GrpcChannelOptions { HttpHandler = new HeaderAdder(header, value) });

    private sealed class HeaderAdder(string header, string value) : DelegatingHandler(new SocketsHttpHandler())
    {
        protected override Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            request.Headers.TryAddWithoutValidation(header, value);
            return base.SendAsync(request, cancellationToken);
        }
    }
}
