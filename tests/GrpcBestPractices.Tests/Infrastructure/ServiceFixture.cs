namespace GrpcBestPractices.Tests.Infrastructure;

/// <summary>
/// The built-in service alone, started once for a class whose tests each start their own gateway (or agents) against it:
/// the service keeps nothing from one run to the next, and starting it costs each test seconds on a busy machine.
/// </summary>
public sealed class ServiceFixture : IAsyncLifetime
{
    public AppProcess Service { get; private set; } = null!;

    public async Task InitializeAsync() => Service = await AppProcess.StartAsync("PerformanceService");

    public async Task DisposeAsync() => await Service.DisposeAsync();
}
