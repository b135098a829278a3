using System.Diagnostics;
using System.Net;
using System.Net.Sockets;

namespace GrpcBestPractices.Tests.Infrastructure;

/// <summary>
/// A gateway whose ServerUrl nobody listens on, started once for a class whose tests each ask it for one route. The dead
/// port is held bound (never listening) for the fixture's life, so a connection to it is refused and no app started by
/// another test meanwhile can take it.
/// </summary>
public sealed class StoppedService : IAsyncLifetime
{
    private readonly Socket _deadPort = new(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
    private AppProcess _gateway = null!;
    private HttpClient _http = null!;

    public string DeadAddress { get; private set; } = null!;

    public async Task InitializeAsync()
    {
        _deadPort.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        DeadAddress = $"http://127.0.0.1:{((IPEndPoint)_deadPort.LocalEndPoint!).Port}";
        _gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", DeadAddress]);
        _http = new HttpClient { BaseAddress = _gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(30) };
    }

    public async Task DisposeAsync()
    {
        _http.Dispose();
        await _gateway.DisposeAsync();
        _deadPort.Dispose();
    }

    /// <summary>Proves a GET of the route fails fast and says where it looked.</summary>
    public async Task AssertAnswers503NamingTheAddressWithinSecondsAsync(string route)
    {
        var clock = Stopwatch.StartNew();
        using var response = await _http.GetAsync(route);

        Assert.Equal(HttpStatusCode.ServiceUnavailable, response.StatusCode);
        // A refused call fails at once; this guards against a run that waits out its calls' deadlines (50 × 10 s).
        // The bound leaves a busy machine room for a cold gateway's first request.
        Assert.True(clock.Elapsed < TimeSpan.FromSeconds(30), $"the 503 took {clock.Elapsed}");
        var problem = await SystemFixture.ReadProblemAsync(response);
        Assert.Contains(DeadAddress, problem.GetProperty("detail").GetString());
        Assert.Equal("Unavailable", problem.GetProperty("grpcStatus").GetString());
    }
}
