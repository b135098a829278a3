using System.Reflection;
using System.Text.Json;
using System.Xml.Linq;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.Deploy;

/// <summary>
/// The configuration keys each app really reads, worked out from the apps themselves: their options classes (a
/// <c>Section</c> constant and its settable properties), the options bound from the root, their appsettings.json, and
/// what the host reads. Keys are compared as configuration compares them: ':'-separated, ignoring case.
/// </summary>
public static class AppSettingKeys
{
    /// <summary>Options bound from the whole configuration rather than a section.</summary>
    private static readonly Type[] RootOptions = [typeof(ApiGateway.Configuration.GatewayOptions)];

    /// <summary>Read by ASP.NET Core's host itself (ASPNETCORE_URLS is "urls") and by the gateway's host filter.</summary>
    private static readonly string[] WebHostKeys = ["urls", "http_ports", "environment", "AllowedHosts"];

    /// <summary>
    /// Keys read without an options class: the gateway's connection string (GetConnectionString), and the variables the
    /// CLI's agent mode reads from its environment.
    /// </summary>
    private static readonly Dictionary<string, string[]> ReadDirectly = new()
    {
        ["ApiGateway"] = [ApiGateway.History.HistoryOptions.ConnectionStringKey],
        ["LoadTest"] = [.. LoadTest.AgentMode.EnvironmentVariables.Select(FromEnvironmentName)],
    };

    /// <summary>Each project that builds an image, by its ContainerRepository.</summary>
    public static IReadOnlyDictionary<string, string> ProjectsByRepository { get; } = FindContainerProjects();

    /// <summary>The keys the app an image runs reads, or null when the image is none of ours.</summary>
    public static IReadOnlySet<string>? OfImage(string repository) =>
        ProjectsByRepository.TryGetValue(repository, out var project) ? Of(project) : null;

    public static IReadOnlySet<string> Of(string project)
    {
        var keys = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        var assembly = Assembly.Load(project);
        foreach (var type in assembly.GetTypes())
        {
            var section = type.GetField("Section", BindingFlags.Public | BindingFlags.Static) is { IsLiteral: true } field ? (string?)field.GetValue(null) : null;
            var prefix = section is not null ? section + ":" : RootOptions.Contains(type) ? "" : null;
            if (prefix is null)
            {
                continue;
            }

            keys.UnionWith(type.GetProperties(BindingFlags.Public | BindingFlags.Instance).Where(property => property.SetMethod?.IsPublic == true)
                .Select(property => prefix + property.Name));
        }

        var appsettings = Path.Combine(AppProcess.RepositoryRoot, project, "appsettings.json");
        if (File.Exists(appsettings))
        {
            using var document = JsonDocument.Parse(File.ReadAllText(appsettings), new JsonDocumentOptions { CommentHandling = JsonCommentHandling.Skip, AllowTrailingCommas = true });
            AddLeaves(document.RootElement, "", keys);
        }

        if (XDocument.Load(ProjectFile(project)).Root?.Attribute("Sdk")?.Value == "Microsoft.NET.Sdk.Web")
        {
            keys.UnionWith(WebHostKeys);
        }

        keys.UnionWith(ReadDirectly.GetValueOrDefault(project, []));
        return keys;
    }

    /// <summary>
    /// The key an environment variable sets, as .NET's host reads it: '__' is ':', and the ASPNETCORE_ and DOTNET_ prefixes
    /// belong to the host's own settings (ASPNETCORE_URLS is "urls").
    /// </summary>
    public static string FromEnvironmentName(string name)
    {
        foreach (var prefix in new[] { "ASPNETCORE_", "DOTNET_" })
        {
            if (name.StartsWith(prefix, StringComparison.Ordinal))
            {
                name = name[prefix.Length..];
                break;
            }
        }

        return name.Replace("__", ":", StringComparison.Ordinal);
    }

    private static string ProjectFile(string project) => Path.Combine(AppProcess.RepositoryRoot, project, project + ".csproj");

    private static void AddLeaves(JsonElement element, string path, HashSet<string> keys)
    {
        if (element.ValueKind == JsonValueKind.Object)
        {
            foreach (var property in element.EnumerateObject())
            {
                AddLeaves(property.Value, path.Length == 0 ? property.Name : $"{path}:{property.Name}", keys);
            }
        }
        else
        {
            keys.Add(path);
        }
    }

    private static Dictionary<string, string> FindContainerProjects() =>
        // The apps are the repository's top-level projects; a deeper search would walk node_modules too.
        Directory.EnumerateDirectories(AppProcess.RepositoryRoot).SelectMany(folder => Directory.EnumerateFiles(folder, "*.csproj"))
            .Select(path => (Project: Path.GetFileNameWithoutExtension(path), Repository: XDocument.Load(path).Descendants("ContainerRepository").FirstOrDefault()?.Value))
            .Where(project => project.Repository is not null)
            .ToDictionary(project => project.Repository!, project => project.Project);
}
