using System.Diagnostics;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.Deploy;

/// <summary>One app's `dotnet publish` folder: what the container image's /app will hold, and nothing else.</summary>
public sealed record PublishedApp(string Project, string Folder, TimeSpan PublishTime, IReadOnlyList<string> Files)
{
    public string Assembly => Path.Combine(Folder, Project + ".dll");

    public double Megabytes => Files.Sum(file => new FileInfo(Path.Combine(Folder, file)).Length) / (1024.0 * 1024.0);

    /// <summary>Files that appeared in the folder or left it since it was published: in the image the folder is read-only.</summary>
    public IEnumerable<string> Changes() => ListFiles(Folder).Except(Files).Concat(Files.Except(ListFiles(Folder)));

    public static IReadOnlyList<string> ListFiles(string folder) =>
        [.. Directory.EnumerateFiles(folder, "*", SearchOption.AllDirectories).Select(file => Path.GetRelativePath(folder, file)).Order(StringComparer.Ordinal)];
}

/// <summary>
/// The three apps published once for the class, from the build the tests run on (`--no-build`, so nothing is compiled
/// under the running tests), into a temporary folder; and the published service, started as its image starts it.
/// </summary>
public sealed class PublishedApps : IAsyncLifetime
{
    private readonly TemporaryFolder _folder = new();

    public IReadOnlyDictionary<string, PublishedApp> Apps { get; private set; } = new Dictionary<string, PublishedApp>();

    public AppProcess Service { get; private set; } = null!;

    public string ServiceH2c { get; private set; } = "";

    public string ServiceHttp1 { get; private set; } = "";

    /// <summary>Where the apps may write, as the manifests' emptyDir volumes: outside the app folders.</summary>
    public string State(string name) => Directory.CreateDirectory(_folder.File(Path.Combine("state", name))).FullName;

    /// <summary>What every published app gets besides its own settings: a home and a temp folder of its own (the pod's /tmp).</summary>
    public Dictionary<string, string> BaseEnvironment(string app) => new()
    {
        ["HOME"] = State(Path.Combine(app, "home")),
        ["TMPDIR"] = State(Path.Combine(app, "tmp")),
    };

    public async Task InitializeAsync()
    {
        var apps = new Dictionary<string, PublishedApp>();
        // One at a time: they share the projects they reference, and the machine's two cores are shared too.
        foreach (var project in new[] { "PerformanceService", "ApiGateway", "LoadTest" })
        {
            apps[project] = await PublishAsync(project);
        }

        Apps = apps;
        Service = await AppProcess.StartPublishedAsync(Apps["PerformanceService"].Assembly, new Dictionary<string, string>(BaseEnvironment("service"))
        {
            ["ASPNETCORE_URLS"] = "http://127.0.0.1:0",
            ["Protocols__Http1Url"] = "http://127.0.0.1:0",
            ["Protocols__TlsUrl"] = "https://127.0.0.1:0",
            ["Protocols__CertificateFolder"] = State(Path.Combine("service", "certificate")),
            // Read once the metrics listener exists (issue 14); its default is a fixed port.
            ["Metrics__Url"] = "http://127.0.0.1:0",
        });
        ServiceH2c = await Service.ListenerAsync("h2c");
        ServiceHttp1 = await Service.ListenerAsync("HTTP/1.1");
    }

    public async Task DisposeAsync()
    {
        if (Service is not null)
        {
            await Service.DisposeAsync();
        }

        _folder.Dispose();
    }

    private async Task<PublishedApp> PublishAsync(string project)
    {
        var output = _folder.File(Path.Combine("publish", project));
        var started = Stopwatch.GetTimestamp();
        var publish = await ToolRun.RunAsync(new ProcessStartInfo("dotnet", ["publish", Path.Combine(AppProcess.RepositoryRoot, project, project + ".csproj"),
            "-c", AppProcess.Configuration, "--no-build", "-o", output, "-nologo", "-v", "quiet"]), TimeSpan.FromMinutes(3));
        if (publish.ExitCode != 0)
        {
            throw new InvalidOperationException($"dotnet publish {project} failed: {publish}");
        }

        return new PublishedApp(project, output, Stopwatch.GetElapsedTime(started), PublishedApp.ListFiles(output));
    }
}
