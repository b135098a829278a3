using System.Net;
using System.Security.Cryptography.X509Certificates;
using Grpc.Core;
using LoadEngine.Calls;
using LoadEngine.Clients;
using LoadEngine.Runs;
using LoadEngine.Strategies;

namespace LoadEngine.Protocols;

/// <summary>
/// One workload on one contender, as a recipe: how its channels or HttpClients are made (kept for the run, spread over
/// <see cref="RunPlan.Clients"/>, or a new one per call) and what one call is. The engine loops, times and records.
/// </summary>
public sealed class WorkloadStrategy : ICallSource, IWireMeasured
{
    private readonly Func<IWorkloadApi> _connect;
    private readonly IWorkloadApi[]? _kept;
    private readonly WorkloadCall _call;
    private readonly string _measured;

    /// <param name="connect">Makes one API client with connections of its own, counted by <paramref name="wire"/>.</param>
    public WorkloadStrategy(WorkloadInfo workload, Contender contender, RunPlan plan, Func<IWorkloadApi> connect, WireCounter wire)
    {
        var prepared = workload.Prepare(plan);
        _connect = connect;
        _call = prepared.Call;
        Wire = wire;
        ServiceApi = contender.ServiceApi;
        ServiceCallsPerCall = prepared.ServiceCallsPerCall;
        Info = new StrategyInfo(contender.Name, "Protocols", $"{workload.Id}: {workload.What}", $"{workload.Title}, as in {workload.Source}.",
            "https://learn.microsoft.com/aspnet/core/grpc/comparison", workload.DefaultLoad);
        var clients = plan.Workload?.Clients ?? 1;
        _kept = plan.Workload?.Connection == ConnectionUse.NewPerCall ? null : [.. Enumerable.Range(0, clients).Select(_ => connect())];
        _measured = $"{workload.Id} on {contender.Label}: {workload.What} {prepared.Describe}{Connections(contender, plan.Workload?.Connection, clients)} " +
            $"{Serialization(contender)} Every answer is fully deserialized and its checksum compared with what the service was given; a mismatch fails the call as DataLoss. " +
            "Bytes per call are counted on the client's own sockets over the measured phase (under TLS the encrypted bytes); serviceAllocatedBytesPerCall is the whole " +
            "service process's allocation over the measured phase ÷ calls, from its GET /diagnostics.";
    }

    /// <summary>The workload <paramref name="plan"/> names on its contender, at the listener the engine's options give it; its caller disposes it.</summary>
    public static WorkloadStrategy Create(RunPlan plan, EngineOptions options, ChannelFactory channels)
    {
        var workload = WorkloadList.Find(plan.Workload?.Id) ?? throw new InvalidOperationException($"'{plan.Workload?.Id}' is not a workload.");
        var contender = plan.Workload?.Contender ?? throw new InvalidOperationException("A workload run names its contender.");
        if (!WorkloadTargets.TryResolve(contender, options, out var address, out var trusted, out var error))
        {
            throw new InvalidOperationException(error);
        }

        var wire = new WireCounter();
        return new WorkloadStrategy(workload, contender, plan, new WorkloadConnections(contender, address, trusted, wire, channels).Connect, wire);
    }

    public StrategyInfo Info { get; }

    public WireCounter Wire { get; }

    public string ServiceApi { get; }

    public int ServiceCallsPerCall { get; }

    public string DescribeMeasurement() => _measured;

    public Task CallAsync(CallContext context) =>
        _kept is { } kept ? _call(kept[(int)(context.Index % kept.Length)], context.Index, context.Options) : CallOnNewAsync(context.Index, context.Options);

    public void Dispose()
    {
        foreach (var api in _kept ?? [])
        {
            api.Dispose();
        }
    }

    private async Task CallOnNewAsync(long index, CallOptions options)
    {
        using var api = _connect();
        await _call(api, index, options);
    }

    private static string Connections(Contender contender, ConnectionUse? connection, int clients) => connection == ConnectionUse.NewPerCall
        ? $"Each call on a new {Client(contender)} with a new SocketsHttpHandler (so a new connection{(contender.Security == WireSecurity.Tls ? " and TLS handshake" : "")}), disposed after the call: the 2020 study never disposed them; this one does."
        : clients > 1
            ? $"Calls spread round-robin over {clients} {Client(contender)}s kept for the run, each with connections of its own."
            : $"One {Client(contender)} kept for the run.";

    private static string Client(Contender contender) => contender.IsGrpc ? "GrpcChannel" : "HttpClient";

    private static string Serialization(Contender contender) => contender switch
    {
        { Protocol: ApiProtocol.Grpc } => "The generated stubs (Google.Protobuf).",
        { Protocol: ApiProtocol.GrpcCodeFirst } => "protobuf-net.Grpc's client for ICodeFirstWorkloads (protobuf-net).",
        { Serializer: PayloadSerializer.SystemTextJson } => "Answers read with ResponseHeadersRead and deserialized from the response stream by System.Text.Json's source-generated context.",
        _ => "Answers read with ResponseHeadersRead; Newtonsoft.Json reads only synchronously, so each body is buffered asynchronously first and then deserialized from that stream with a JsonTextReader.",
    };
}

/// <summary>
/// Makes a contender's API clients, each on a SocketsHttpHandler of its own whose connections are counted, and which
/// under TLS trusts only the service's certificate. GrpcChannel uses such a handler's own connection pool (a handler with a
/// ConnectCallback gets no client-side balancer), as HttpClient does.
/// </summary>
public sealed class WorkloadConnections(Contender contender, Uri address, X509Certificate2? trusted, WireCounter wire, ChannelFactory channels)
{
    private readonly RestRoutes? _routes = contender.IsGrpc ? null : new RestRoutes(address, JsonCodec.For(contender.Serializer).Segment);

    public IWorkloadApi Connect() => contender.Protocol switch
    {
        ApiProtocol.Grpc => new ContractFirstApi(channels.CreateChannel(Handler(), address)),
        ApiProtocol.GrpcCodeFirst => new CodeFirstApi(channels.CreateChannel(Handler(), address)),
        _ => new RestWorkloadApi(
            new HttpClient(Handler(), disposeHandler: true)
            {
                DefaultRequestVersion = contender.HttpVersion == WireVersion.Http11 ? HttpVersion.Version11 : HttpVersion.Version20,
                // Exactly the version asked for: over TLS, ALPN offers only it; in cleartext HTTP/2 is prior knowledge (h2c).
                DefaultVersionPolicy = HttpVersionPolicy.RequestVersionExact,
                Timeout = Timeout.InfiniteTimeSpan,
            },
            _routes!,
            JsonCodec.For(contender.Serializer)),
    };

    private SocketsHttpHandler Handler()
    {
        // What GrpcChannel.ForAddress sets on a handler it makes itself; REST over HTTP/2 gets the same.
        var handler = channels.CreateHandler(multipleConnections: true);
        handler.ConnectCallback = wire.ConnectAsync;
        if (trusted is not null)
        {
            handler.SslOptions = TlsTrust.TrustOnly(trusted);
        }

        return handler;
    }
}
