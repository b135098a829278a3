using System.Net.Http.Json;
using System.Text.Json;

namespace GrpcBestPractices.Tests.Infrastructure;

/// <summary>The whole system, started once for a collection of tests: the service, and a gateway pointed at it.</summary>
public sealed class SystemFixture : IAsyncLifetime
{
    public AppProcess Service { get; private set; } = null!;

    public AppProcess Gateway { get; private set; } = null!;

    public HttpClient Http { get; private set; } = null!;

    public async Task InitializeAsync()
    {
        Service = await AppProcess.StartAsync("PerformanceService");
        Gateway = await AppProcess.StartAsync("ApiGateway", ["--ServerUrl", Service.Url]);
        Http = new HttpClient { BaseAddress = Gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(120) };
    }

    public async Task DisposeAsync()
    {
        Http.Dispose();
        await Gateway.DisposeAsync();
        await Service.DisposeAsync();
    }

    public async Task<JsonElement> GetRunAsync(string route)
    {
        using var response = await Http.GetAsync(route);
        var body = await response.Content.ReadAsStringAsync();
        Assert.True(response.IsSuccessStatusCode, $"GET {route} answered {(int)response.StatusCode}: {body}");
        return JsonDocument.Parse(body).RootElement.Clone();
    }

    public static async Task<JsonElement> ReadProblemAsync(HttpResponseMessage response)
    {
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        return (await response.Content.ReadFromJsonAsync<JsonElement>()).Clone();
    }
}

[CollectionDefinition(Name)]
public sealed class SystemCollection : ICollectionFixture<SystemFixture>
{
    public const string Name = "The running system";
}
