namespace GrpcBestPractices.Tests.Infrastructure;

/// <summary>
/// tests/interop/grpcio-target.py as its own process on a free loopback port: interop.paced.Paced served by Python grpcio (a
/// gRPC stack the project did not write, Debian's python3-grpcio) at a capacity known in advance: each Work call holds one
/// of <see cref="Workers"/> threads for <see cref="ServiceMs"/>, so it answers at most <see cref="CapacityPerSecond"/>.
/// Cleartext, no reflection and no streaming method: it is described by protos/paced.proto.
/// </summary>
public sealed class GrpcioTarget : IAsyncDisposable
{
    public const string Service = "interop.paced.Paced";

    public const string Work = Service + "/Work";

    /// <summary>Debian's interpreter, which python3-grpcio installs into (a python3 earlier on PATH, such as pyenv's, may not have it).</summary>
    public const string Python = "/usr/bin/python3";

    private readonly ListeningScript _script;

    private GrpcioTarget(ListeningScript script, int workers, int serviceMs)
    {
        _script = script;
        Workers = workers;
        ServiceMs = serviceMs;
    }

    public static string ProtoFile { get; } = Path.Combine(GrpcJsTarget.ProtoDirectory, "paced.proto");

    public int Workers { get; }

    public int ServiceMs { get; }

    /// <summary>The most calls per second it can answer: its workers, each busy for the service time per call.</summary>
    public double CapacityPerSecond => Workers * 1000.0 / ServiceMs;

    public string Url => _script.Url;

    public string Output => _script.Output;

    /// <summary>Starts it and waits for its "Now listening on" line; <paramref name="options"/> go to the script (--max-concurrent-streams N).</summary>
    public static async Task<GrpcioTarget> StartAsync(int workers, int serviceMs, params string[] options)
    {
        string[] arguments = ["--workers", $"{workers}", "--service-ms", $"{serviceMs}", "--stop-with-stdin", .. options];
        return new GrpcioTarget(await ListeningScript.StartAsync(Python, "grpcio-target.py", arguments), workers, serviceMs);
    }

    public ValueTask DisposeAsync() => _script.DisposeAsync();
}
