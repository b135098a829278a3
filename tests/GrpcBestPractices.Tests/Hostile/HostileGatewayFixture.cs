using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.Hostile;

/// <summary>
/// One gateway for the hostile cases: the built-in PerformanceService, and a hostile server per case configured as a
/// target named after it (Targets:&lt;case&gt;:Address), plus <see cref="Echo"/>, a plain hostile server whose target
/// sends <see cref="Secret"/> as its authorization metadata. The gateway describes every target in the background
/// from its start; each case's marker lands in its own folder, and the gateway's temp folder is the fixture's.
/// </summary>
public sealed class HostileGatewayFixture : IAsyncLifetime
{
    public const string Echo = "echo";

    private readonly List<HostileReflectionServer> _servers = [];

    public TemporaryFolder Folder { get; } = new();

    /// <summary>The echo target's authorization value: it must appear nowhere the gateway writes.</summary>
    public string Secret { get; } = $"Bearer hostile-secret-{Guid.NewGuid():N}";

    public AppProcess Service { get; private set; } = null!;

    public AppProcess Gateway { get; private set; } = null!;

    public HttpClient Http { get; private set; } = null!;

    /// <summary>Where <paramref name="name"/>'s set was built, and where its marker would appear.</summary>
    public string CaseFolder(string name) => Path.Combine(Folder.Path, name);

    public async Task InitializeAsync()
    {
        Service = await AppProcess.StartAsync("PerformanceService");
        var servers = HostileCases.All.Select(async hostile =>
        {
            var server = await HostileReflectionServer.StartAsync(hostile.Set(Directory.CreateDirectory(CaseFolder(hostile.Name)).FullName), hostile.ServerOptions);
            lock (_servers)
            {
                _servers.Add(server);
            }

            return (hostile.Name, server.Url);
        }).ToList();
        var echo = await HostileReflectionServer.StartAsync(HostileDescriptors.Tiny());
        _servers.Add(echo);
        var targets = (await Task.WhenAll(servers)).Append((Echo, echo.Url)).SelectMany(target => new[] { $"--Targets:{target.Item1}:Address", target.Item2 });
        Gateway = await AppProcess.StartAsync("ApiGateway",
            [.. await SystemFixture.GatewayArgumentsAsync(Service), .. targets, $"--Targets:{Echo}:Metadata:authorization", Secret],
            HostileTool.Environment(Folder.Path));
        Http = new HttpClient { BaseAddress = Gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(180) };
    }

    /// <summary>After anything a test did: the gateway still runs, never crashed or logged a stack, ran no case's code and kept no describe folder.</summary>
    public async Task AssertUnharmedAsync(string what)
    {
        Assert.False(Gateway.HasExited, $"The gateway exited ({(Gateway.HasExited ? Gateway.ExitCode : 0)}) {what}:{Environment.NewLine}{Gateway.Output}");
        HostileAssert.DidNotCrash($"The gateway, {what},", null, Gateway.Output);
        foreach (var hostile in HostileCases.All)
        {
            HostileAssert.RanNoCode(CaseFolder(hostile.Name), $"The gateway, {what}, with target {hostile.Name}");
        }

        await HostileAssert.KeepsNoDescribeFolderAsync(Folder.Path, $"The gateway, {what},", TimeSpan.FromSeconds(60));
    }

    public async Task DisposeAsync()
    {
        Http?.Dispose();
        if (Gateway is not null)
        {
            await Gateway.DisposeAsync();
        }

        foreach (var server in _servers)
        {
            await server.DisposeAsync();
        }

        if (Service is not null)
        {
            await Service.DisposeAsync();
        }

        Folder.Dispose();
    }
}
