using Grpc.Net.Client;
using Interop.Inventory;

namespace GrpcBestPractices.Tests.Infrastructure;

public enum TargetSecurity
{
    Plain,
    Tls,
    MutualTls,
}

/// <summary>
/// tests/interop/grpc-js-target.js as its own process on a free loopback port: interop.inventory.Inventory served by
/// grpc-js (a gRPC stack the project did not write) with reflection, in cleartext, TLS or mTLS with certificates of its
/// own. It counts the distinct peers (TCP connections) each method saw, read through <see cref="StatsAsync"/>.
/// </summary>
public sealed class GrpcJsTarget : IAsyncDisposable
{
    public const string Service = "interop.inventory.Inventory";

    private readonly ListeningScript _script;

    private GrpcJsTarget(ListeningScript script, TargetSecurity security, InteropCertificates? certificates)
    {
        _script = script;
        Security = security;
        Certificates = certificates;
    }

    public static string InteropDirectory { get; } = Path.Combine(AppProcess.RepositoryRoot, "tests", "interop");

    /// <summary>The folder inventory.proto is in: the import path for its well-known types and itself.</summary>
    public static string ProtoDirectory { get; } = Path.Combine(InteropDirectory, "protos");

    public static string ProtoFile { get; } = Path.Combine(ProtoDirectory, "inventory.proto");

    /// <summary>The other folder inventory.proto imports from ("warehouse/location.proto"): without it the .proto does not compile.</summary>
    public static string ImportDirectory { get; } = Path.Combine(ProtoDirectory, "shared");

    /// <summary>The contract as a FileDescriptorSet with its imports, compiled by Grpc.Tools' protoc when the test project builds.</summary>
    public static string ProtosetPath { get; } = Path.Combine(AppContext.BaseDirectory, "inventory.protoset");

    public TargetSecurity Security { get; }

    /// <summary>The certificates it serves and trusts (null in cleartext): the CA, server, client and stranger PEM files.</summary>
    public InteropCertificates? Certificates { get; }

    public string Url => _script.Url;

    public Uri Address => new(Url);

    public string Output => _script.Output;

    /// <summary>Starts it and waits for its "Now listening on" line; <paramref name="options"/> go to the script (--no-reflection, --max-concurrent-streams N, ...).</summary>
    public static async Task<GrpcJsTarget> StartAsync(TargetSecurity security = TargetSecurity.Plain, params string[] options)
    {
        var certificates = security == TargetSecurity.Plain ? null : new InteropCertificates();
        var arguments = new List<string>();
        if (certificates is not null)
        {
            arguments.AddRange(["--tls", "--cert", certificates.ServerCertificatePath, "--key", certificates.ServerKeyPath]);
        }

        if (security == TargetSecurity.MutualTls)
        {
            arguments.AddRange(["--client-ca", certificates!.CaPath]);
        }

        try
        {
            return new GrpcJsTarget(await ListeningScript.StartAsync("grpc-js-target.js", [.. arguments, .. options]), security, certificates);
        }
        catch
        {
            certificates?.Dispose();
            throw;
        }
    }

    /// <summary>A grpc-dotnet channel to it: under TLS trusting only its CA, under mTLS presenting the client certificate.</summary>
    public GrpcChannel Channel(bool presentClientCertificate = true)
    {
        if (Certificates is null)
        {
            return GrpcChannel.ForAddress(Url);
        }

        var handler = presentClientCertificate && Security == TargetSecurity.MutualTls
            ? Certificates.Handler(Certificates.ClientCertificatePath, Certificates.ClientKeyPath)
            : Certificates.Handler();
        return GrpcChannel.ForAddress(Url, new GrpcChannelOptions { HttpHandler = handler });
    }

    /// <summary>What the server saw per method (calls, distinct peers, most in flight), on a channel of its own; reset forgets it after answering.</summary>
    public async Task<StatsReply> StatsAsync(bool reset = false)
    {
        using var channel = Channel();
        return await new Inventory.InventoryClient(channel).StatsAsync(new StatsRequest { Reset = reset }, deadline: DateTime.UtcNow.AddSeconds(10));
    }

    /// <summary>How many distinct client connections (ip:port) called the method (GetItem, ListItems, RecordItems, Exchange).</summary>
    public async Task<int> PeersAsync(string method) =>
        (await StatsAsync()).Methods.TryGetValue(method, out var stats) ? stats.Peers.Count : 0;

    /// <summary>Sends SIGTERM and waits (bounded) for it to exit; its exit code, or null if it still runs.</summary>
    public Task<int?> TerminateAsync(TimeSpan timeout) => _script.TerminateAsync(timeout);

    public async ValueTask DisposeAsync()
    {
        await _script.DisposeAsync();
        Certificates?.Dispose();
    }
}
