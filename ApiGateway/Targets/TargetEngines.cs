using System.Collections.Concurrent;
using LoadEngine;
using Microsoft.Extensions.Options;

namespace ApiGateway.Targets;

/// <summary>
/// One engine container per configured target: the engine's services (strategies, channel factory, factory client) made
/// by <see cref="EngineServices.AddLoadEngine"/> with the gateway's limits and that target's address and connection, so
/// every strategy reaches the target exactly as it reaches the built-in service. The built-in target is the gateway's own
/// container. Each is made the first time a run or a description needs it, and disposed with the gateway.
/// </summary>
public sealed class TargetEngines(
    IServiceProvider gateway, IOptions<TargetsOptions> targets, IOptionsFactory<EngineOptions> engineOptions, TargetsValidation paths, ILoggerFactory logging) : IDisposable
{
    private readonly ConcurrentDictionary<string, Lazy<ServiceProvider>> _engines = new(StringComparer.OrdinalIgnoreCase);

    /// <summary>The engine's services for <paramref name="target"/> (null or <see cref="TargetsOptions.BuiltIn"/>: the gateway's own).</summary>
    public IServiceProvider Services(string? target)
    {
        if (target is null || string.Equals(target, TargetsOptions.BuiltIn, StringComparison.OrdinalIgnoreCase))
        {
            return gateway;
        }

        var options = targets.Value.Targets.GetValueOrDefault(target)
            ?? throw new InvalidOperationException($"No target is configured as '{target}'; the configured targets are: {string.Join(", ", targets.Value.Names)}.");
        return _engines.GetOrAdd(target, name => new Lazy<ServiceProvider>(() => Build(name, options))).Value;
    }

    // Nothing an engine holds needs disposing asynchronously, so the container's DisposeAsync may call this.
    public void Dispose()
    {
        foreach (var engine in _engines.Values.Where(engine => engine.IsValueCreated))
        {
            engine.Value.Dispose();
        }
    }

    /// <summary>A target's engine: the gateway's limits, the target's address and connection; no workload listeners.</summary>
    private ServiceProvider Build(string name, TargetOptions target)
    {
        var engine = engineOptions.Create(Options.DefaultName);
        engine.ServerUri = target.AddressUri;
        engine.Connection = target.Connection(name, paths.FullPath);
        // The workload contenders call the built-in service's other listeners only.
        engine.Http1Uri = null;
        engine.TlsUri = null;
        engine.TrustedCertificatePath = null;
        var services = new ServiceCollection();
        services.AddSingleton(logging);
        services.AddSingleton(typeof(ILogger<>), typeof(Logger<>));
        services.AddSingleton(Options.Create(engine));
        services.AddLoadEngine();
        return services.BuildServiceProvider(new ServiceProviderOptions { ValidateOnBuild = true, ValidateScopes = true });
    }
}
