using System.Diagnostics;
using System.Globalization;
using System.Net;
using Grpc.Health.V1;
using Grpc.Net.Client;
using GrpcBestPractices.Tests.Infrastructure;
using Performance;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.Deploy;

/// <summary>
/// What the images cannot be tested for here (their base images come from a registry this machine cannot reach), proved
/// on what they are made of: each app's `dotnet publish` folder runs with only the .NET runtime, from its own folder,
/// configured only by environment variables as deploy/k8s sets them, and writes nothing into that folder.
/// </summary>
[Trait("Category", "Process")]
public sealed class PublishedAppTests(PublishedApps published, ITestOutputHelper output) : IClassFixture<PublishedApps>
{
    [Fact]
    public void EachPublishFolderHoldsItsAppItsRuntimeConfigurationAndItsSettings()
    {
        foreach (var app in published.Apps.Values)
        {
            output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{app.Project}: {app.Megabytes:F1} MB in {app.Files.Count} files, published in {app.PublishTime.TotalSeconds:F1} s"));
            Assert.Contains(app.Project + ".dll", app.Files);
            Assert.Contains(app.Project + ".runtimeconfig.json", app.Files);
        }

        Assert.Contains("appsettings.json", published.Apps["PerformanceService"].Files);
        Assert.Contains("appsettings.json", published.Apps["ApiGateway"].Files);
        Assert.Contains(Path.Combine("wwwroot", "lib", "chart.js", "chart.umd.min.js"), published.Apps["ApiGateway"].Files);
    }

    [Fact]
    public async Task PublishedServiceAnswersGrpcAndItsHealthOnEveryInterfaceItWasGiven()
    {
        using var channel = GrpcChannel.ForAddress(published.ServiceH2c);

        var status = await new Monitor.MonitorClient(channel).GetPerformanceAsync(new PerformanceStatusRequest { ClientName = "published" });
        var health = await new Health.HealthClient(channel).CheckAsync(new HealthCheckRequest());

        Assert.Equal(100, status.DataLoad1.Length);
        Assert.Equal(HealthCheckResponse.Types.ServingStatus.Serving, health.Status);
        Assert.True(File.Exists(Path.Combine(published.State(Path.Combine("service", "certificate")), "service-certificate.pem")), published.Service.Output);
        await published.Service.ListenerAsync("TLS");
        Assert.Empty(published.Apps["PerformanceService"].Changes());
    }

    [Fact]
    public async Task PublishedGatewayRunsAgainstThePublishedServiceAndAnswersOnlyItsHostNames()
    {
        await using var gateway = await AppProcess.StartPublishedAsync(published.Apps["ApiGateway"].Assembly, new Dictionary<string, string>(published.BaseEnvironment("gateway"))
        {
            ["ASPNETCORE_URLS"] = "http://127.0.0.1:0",
            ["AllowedHosts"] = "gateway;localhost;127.0.0.1",
            ["ServerUrl"] = published.ServiceH2c,
            ["Protocols__Http1Url"] = published.ServiceHttp1,
            ["Protocols__TlsUrl"] = "",
            ["History__DatabasePath"] = Path.Combine(published.State("gateway"), "history.db"),
        });
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress };

        using var health = await http.GetAsync("/health");
        var started = await http.StartRunAsync("""{"strategy": "client-wrapper", "count": 200}""");
        var run = await http.WaitUntilFinishedAsync($"/api/runs/{started.GetProperty("id").GetString()}");
        using var chart = await http.GetAsync("/lib/chart.js/chart.umd.min.js");

        Assert.Equal(HttpStatusCode.OK, health.StatusCode);
        Assert.Equal("Completed", run.GetProperty("state").GetString());
        Assert.Equal(200, run.GetProperty("stats").GetProperty("succeeded").GetInt64());
        Assert.Equal(HttpStatusCode.OK, chart.StatusCode);
        Assert.Equal(HttpStatusCode.OK, await StatusAsHostAsync(http, "gateway"));
        Assert.Equal(HttpStatusCode.BadRequest, await StatusAsHostAsync(http, "elsewhere.example"));
        Assert.True(File.Exists(Path.Combine(published.State("gateway"), "history.db")));
        Assert.Empty(published.Apps["ApiGateway"].Changes());
    }

    [Fact]
    public async Task PublishedLoadTestRunsAgainstThePublishedService()
    {
        var start = new ProcessStartInfo("dotnet", [published.Apps["LoadTest"].Assembly, "--target", published.ServiceH2c, "--strategy", "client-wrapper", "--count", "200", "--plain"])
        {
            WorkingDirectory = published.Apps["LoadTest"].Folder,
        };
        start.Environment.Clear();
        start.Environment["PATH"] = Environment.GetEnvironmentVariable("PATH");
        foreach (var (key, value) in published.BaseEnvironment("agent"))
        {
            start.Environment[key] = value;
        }

        var cli = await ToolRun.RunAsync(start, TimeSpan.FromSeconds(120));

        Assert.True(cli.ExitCode == 0, cli.ToString());
        Assert.Contains("client-wrapper", cli.Output, StringComparison.Ordinal);
        Assert.Empty(published.Apps["LoadTest"].Changes());
    }

    private static async Task<HttpStatusCode> StatusAsHostAsync(HttpClient http, string host)
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, "/health");
        request.Headers.Host = host;
        using var response = await http.SendAsync(request);
        return response.StatusCode;
    }
}
