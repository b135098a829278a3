using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.Hostile;

/// <summary>
/// tests/interop/hostile-reflection.js as its own process on a free loopback port: server reflection answered from a
/// descriptor set byte for byte (the attacks of <see cref="HostileDescriptors"/>), in one of its modes (--wrong-kind,
/// --error-message TEXT, --never-answer, --changing), and every method of the set echoing the call's metadata. It stops
/// when its standard input closes, so it goes with the test host however the run ends.
/// </summary>
public sealed class HostileReflectionServer : IAsyncDisposable
{
    private readonly ListeningScript _script;
    private readonly string _setFolder;

    private HostileReflectionServer(ListeningScript script, string setFolder)
    {
        _script = script;
        _setFolder = setFolder;
    }

    public string Url => _script.Url;

    /// <summary>host:port, as ghz and ./loadtest take an address.</summary>
    public string HostPort => new Uri(Url).Authority;

    /// <summary>Serves <paramref name="set"/> (written to a file of its own); <paramref name="options"/> go to the script.</summary>
    public static async Task<HostileReflectionServer> StartAsync(byte[] set, params string[] options)
    {
        var folder = Directory.CreateTempSubdirectory("grpcbp-hostile-set-").FullName;
        try
        {
            var path = Path.Combine(folder, "set.protoset");
            await File.WriteAllBytesAsync(path, set);
            return new HostileReflectionServer(await ListeningScript.StartAsync("hostile-reflection.js", ["--set", path, "--stop-with-stdin", .. options]), folder);
        }
        catch
        {
            Directory.Delete(folder, recursive: true);
            throw;
        }
    }

    public async ValueTask DisposeAsync()
    {
        await _script.DisposeAsync();
        Directory.Delete(_setFolder, recursive: true);
    }
}
