using System.Net;
using System.Net.Http.Json;
using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>Its own service with an idle timeout far longer than the test, so only the client's disposal can close a connection.</summary>
[Trait("Category", "Process")]
public sealed class ChannelDisposalTests
{
    [Fact]
    public async Task AChannelPerCallClosesEachConnectionWhenItsCallEnds()
    {
        await using var service = await AppProcess.StartAsync("PerformanceService", ["--Kestrel:Limits:KeepAliveTimeout", "00:10:00"]);
        await using var gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", service.Url]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(60) };
        using var diagnostics = new HttpClient(new SocketsHttpHandler()) { BaseAddress = service.BaseAddress, DefaultRequestVersion = HttpVersion.Version20, DefaultVersionPolicy = HttpVersionPolicy.RequestVersionExact };

        var before = await CountersAsync();

        using var response = await http.GetAsync("/Performance/initialized-client/40");

        Assert.True(response.IsSuccessStatusCode, await response.Content.ReadAsStringAsync());
        Assert.True((await CountersAsync()).Accepted >= before.Accepted + 40, "each call should have opened its own connection");
        // Left undisposed, the 40 connections would stay open for the 10-minute idle timeout; disposed, they close at once.
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(30);
        var after = await CountersAsync();
        while (after.Active > before.Active && DateTime.UtcNow < deadline)
        {
            await Task.Delay(100);
            after = await CountersAsync();
        }

        Assert.Equal(before.Active, after.Active);

        async Task<(long Accepted, int Active)> CountersAsync()
        {
            using var counters = (await diagnostics.GetFromJsonAsync<JsonDocument>("/diagnostics"))!;
            return (counters.RootElement.GetProperty("acceptedConnections").GetInt64(), counters.RootElement.GetProperty("activeConnections").GetInt32());
        }
    }
}
