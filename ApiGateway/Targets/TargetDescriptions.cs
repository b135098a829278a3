using Grpc.Core;
using LoadEngine;
using LoadEngine.Clients;
using LoadEngine.Targets;
using LoadEngine.Targets.Described;
using Microsoft.Extensions.Options;

namespace ApiGateway.Targets;

/// <summary>One method of a target as GET /api/targets lists it: its name, kind (ghz's words) and request JSON with every field.</summary>
public sealed record TargetMethod(string Call, string Kind, string RequestTemplate);

/// <summary>
/// A configured target as GET /api/targets shows it: never its metadata or key paths. <see cref="Problem"/> says in one
/// sentence why it cannot be loaded now (not reached, not described); null when <see cref="Reachable"/>.
/// </summary>
public sealed record TargetView(string Name, string Address, string DescribedBy, bool BuiltIn, bool Reachable, string? Problem, IReadOnlyList<TargetMethod> Methods);

/// <summary>
/// Describes each target on demand (its .proto files through protoc, its protoset, or its server reflection through its own
/// engine's channel: the target's TLS and metadata), within <see cref="DescribeLimits"/>, and keeps the description until
/// asked to describe again; each once at start too, in the background. A describe under way is joined, never doubled; a
/// failure is the target's own sentence, not kept (the next request tries again), and never reaches another target. A
/// replaced description's compiled classes are unloaded once no run uses them.
/// </summary>
public sealed partial class TargetDescriptions(
    TargetEngines engines, IOptions<TargetsOptions> targets, IOptions<EngineOptions> engine, TargetsValidation paths, IHostApplicationLifetime lifetime,
    ILogger<TargetDescriptions> logger) : IHostedService
{
    /// <summary>How long server reflection, or reaching a target, may take before it counts as unreachable.</summary>
    public TimeSpan Timeout => engine.Value.ConnectTimeout + TimeSpan.FromSeconds(2);

    private readonly Lock _gate = new();
    private readonly Dictionary<string, Task<DescribedTarget>> _described = new(StringComparer.OrdinalIgnoreCase);

    /// <summary>The target described, or the sentence why it could not be; <paramref name="refresh"/> describes it again (joining a describe under way).</summary>
    public async Task<(DescribedTarget? Target, string? Problem)> DescribeAsync(string name, bool refresh, CancellationToken cancellation)
    {
        Task<DescribedTarget> describing;
        lock (_gate)
        {
            if (!_described.TryGetValue(name, out describing!) || (refresh && describing.IsCompleted))
            {
                describing = Task.Run(() => DescribeNowAsync(name));
                _described[name] = describing;
            }
        }

        try
        {
            return (await describing.WaitAsync(cancellation), null);
        }
        catch (OperationCanceledException) when (cancellation.IsCancellationRequested)
        {
            throw;
        }
        catch (Exception failed)
        {
            lock (_gate)
            {
                if (_described.TryGetValue(name, out var current) && current == describing)
                {
                    _described.Remove(name);
                }
            }

            if (failed is not (TargetDescriptionException or RpcException or TimeoutException or IOException or HttpRequestException or OperationCanceledException))
            {
                LogUnexpected(logger, name, failed);
            }

            return (null, Text(name).Clean($"Target '{name}' could not be described: {Sentence(failed)}"));
        }
    }

    /// <summary>Whether a call reaches the target within <see cref="Timeout"/>: any gRPC answer, even "unimplemented", does.</summary>
    public async Task<string?> UnreachableAsync(string name, CancellationToken cancellation)
    {
        var channels = Channels(name);
        using var channel = channels.CreateChannel(channels.CreateHandler());
        var probe = new Method<byte[], byte[]>(MethodType.Unary, "grpc.health.v1.Health", "Check", Bytes, Bytes);
        try
        {
            await channels.CreateInvoker(channel).AsyncUnaryCall(probe, null, new CallOptions(deadline: DateTime.UtcNow + Timeout, cancellationToken: cancellation), []);
            return null;
        }
        catch (RpcException answered) when (answered.StatusCode is not (StatusCode.Unavailable or StatusCode.DeadlineExceeded or StatusCode.Internal or StatusCode.Cancelled))
        {
            return null;
        }
        catch (RpcException unreached)
        {
            return Text(name).Clean($"Target '{name}' at {AddressOf(name)} could not be reached: {Sentence(unreached)}");
        }
    }

    public string AddressOf(string name) => Channels(name).ServerUri.ToString().TrimEnd('/');

    /// <summary>
    /// Once the gateway listens, describes every target in the background, so the page's first look at them does not wait
    /// for protoc and the compiler; a target that fails is described again when asked.
    /// </summary>
    public Task StartAsync(CancellationToken cancellationToken)
    {
        lifetime.ApplicationStarted.Register(() => _ = Task.Run(() =>
            Task.WhenAll(targets.Value.Names.Select(name => DescribeAsync(name, refresh: false, lifetime.ApplicationStopping)))));
        return Task.CompletedTask;
    }

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    private async Task<DescribedTarget> DescribeNowAsync(string name)
    {
        var options = targets.Value.Targets.GetValueOrDefault(name);
        if (options is null)
        {
            // The built-in service's contracts are compiled into this process already: no protoc, no compiler (whose
            // assemblies and heap would stay with the gateway for its life).
            return BuiltIn;
        }

        var source = new DescriptorSource([.. options.Proto.Select(paths.FullPath)], [.. options.ImportPaths.Select(paths.FullPath)], options.Protoset is { Length: > 0 } set ? paths.FullPath(set) : null);
        var channels = Channels(name);
        using var channel = channels.CreateChannel(channels.CreateHandler());
        // Reflection has the reachability probe's deadline; reflection, protoc and the compiler together DescribeLimits.Time.
        return await DescribedTarget.DescribeAsync(source, channels.CreateInvoker(channel), new CallOptions(deadline: DateTime.UtcNow + Timeout));
    }

    /// <summary>The target's own channel factory: its address, TLS trust, client certificate, :authority and metadata.</summary>
    private ChannelFactory Channels(string name) => engines.Services(name).GetRequiredService<ChannelFactory>();

    /// <summary>What the target says in a sentence, masked (its own metadata) and escaped.</summary>
    private TargetText Text(string name) => engines.Services(name).GetRequiredService<TargetText>();

    private static string Sentence(Exception failed) => failed switch
    {
        RpcException rpc => $"{rpc.StatusCode}{(string.IsNullOrEmpty(rpc.Status.Detail) ? "" : ", " + TargetText.Escape(rpc.Status.Detail, 200).TrimEnd('.'))}.",
        TargetDescriptionException or TimeoutException or IOException or HttpRequestException => failed.Message.EndsWith('.') ? failed.Message : failed.Message + ".",
        _ => $"describing it failed unexpectedly ({failed.GetType().Name}); the gateway's log has the details, and the next request describes it again.",
    };

    [LoggerMessage(Level = LogLevel.Warning, Message = "Describing target {Target} failed unexpectedly")]
    private static partial void LogUnexpected(ILogger logger, string target, Exception exception);

    /// <summary>The built-in PerformanceService's two contracts, as GrpcDependencies generated them.</summary>
    private static DescribedTarget BuiltIn => DescribedTarget.FromGenerated(
        [Performance.PerformanceReflection.Descriptor, Workloads.ContractFirst.WorkloadsReflection.Descriptor]);

    private static readonly Marshaller<byte[]> Bytes = Marshallers.Create(bytes => bytes, bytes => bytes);
}
