using System.Diagnostics;
using System.Text.Json.Nodes;
using GrpcBestPractices.Tests.Infrastructure;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.Deploy;

/// <summary>
/// deploy/k8s read as data and held to what the apps really are: their images, their settings, their ports. No cluster
/// is needed; what only a cluster shows (pulling images, scheduling, Postgres starting) stays for docs/distributed.md's walk-through.
/// </summary>
public sealed class ManifestTests(ITestOutputHelper output)
{
    private static readonly string[] ThirdPartyImages = ["postgres"];

    private static readonly IReadOnlyList<Manifest> Manifests = Manifest.LoadAll();

    [Fact]
    public void EveryDocumentParsesAndNamesItsKindNameAndNamespace()
    {
        Assert.Contains(Manifests, manifest => manifest.Kind == "Namespace" && manifest.Name == ManifestChecks.Namespace);
        Assert.Equal(["Deployment", "Job", "StatefulSet"], Manifests.Where(manifest => manifest.PodTemplate is not null).Select(manifest => manifest.Kind).Distinct().Order());
        AssertNone(Manifests.SelectMany(ManifestChecks.Shape));
    }

    [Fact]
    public void TheAgentsAreAnIndexedJobWhoseEveryPodKnowsItsShard()
    {
        var job = Assert.Single(Manifests, manifest => manifest.Kind == "Job");
        Assert.Equal(Path.Combine("agents", "job.yaml"), job.File);
        AssertNone(ManifestChecks.IndexedJob(job));
    }

    [Fact]
    public void EveryImageIsOneTheAppsProjectsBuild()
    {
        Assert.Equal(
            ["grpc-best-practices/api-gateway", "grpc-best-practices/load-agent", "grpc-best-practices/performance-service"],
            AppSettingKeys.ProjectsByRepository.Keys.Order());
        Assert.Equal(
            AppSettingKeys.ProjectsByRepository.Keys.Order(),
            Manifests.SelectMany(manifest => manifest.Containers).Select(container => ManifestChecks.Repository(Manifest.Text(container["image"])!))
                .Except(ThirdPartyImages).Distinct().Order());
        AssertNone(Manifests.SelectMany(manifest => ManifestChecks.Images(manifest, [.. AppSettingKeys.ProjectsByRepository.Keys], ThirdPartyImages)));
    }

    [Fact]
    public void EveryVariableSetOnAnAppIsASettingItReads()
    {
        AssertNone(Manifests.SelectMany(manifest => ManifestChecks.Environment(manifest, AppSettingKeys.OfImage)));
    }

    [Fact]
    public void ServicesSelectPodsThatExposeThePortsTheyForwardTo()
    {
        Assert.Equal(["gateway", "performance-service", "postgres"], Manifests.Where(manifest => manifest.Kind == "Service").Select(manifest => manifest.Name).Order());
        AssertNone(ManifestChecks.Selectors(Manifests));
    }

    [Fact]
    public void ListenersProbesAndScrapesUseDeclaredPorts()
    {
        AssertNone(Manifests.SelectMany(ManifestChecks.Ports));
    }

    [Fact]
    public void KustomizationListsEveryManifestBesideItAndLeavesTheAgentsOut()
    {
        var kustomization = Assert.Single(Manifests, manifest => manifest.Kind == "Kustomization");
        var resources = (kustomization.Document["resources"] as JsonArray ?? []).Select(Manifest.Text).Order(StringComparer.Ordinal);
        var beside = Directory.EnumerateFiles(Manifest.Folder, "*.yaml").Select(Path.GetFileName).Where(name => name != "kustomization.yaml").Order(StringComparer.Ordinal);

        Assert.Equal(beside, resources);
        Assert.Equal(ManifestChecks.Namespace, Manifest.Text(kustomization.Document["namespace"]));
    }

    /// <summary>kustomize is built into kubectl and needs no cluster (unlike `kubectl apply --dry-run=client`, which asks the API server about kinds).</summary>
    [KubectlFact]
    [Trait("Category", "Process")]
    public async Task KubectlKustomizeBuildsTheManifestsWithoutACluster()
    {
        var kustomize = await ToolRun.RunAsync(new ProcessStartInfo("kubectl", ["kustomize", Manifest.Folder]), TimeSpan.FromSeconds(60));

        Assert.True(kustomize.ExitCode == 0, $"kubectl kustomize failed: {kustomize}");
        var documents = Manifest.Parse("kubectl kustomize", kustomize.Output).ToList();
        output.WriteLine($"kubectl kustomize built {documents.Count} objects: {string.Join(", ", documents.Select(document => $"{document.Kind}/{document.Name}"))}");
        Assert.Equal(Manifests.Count(manifest => manifest.File != "kustomization.yaml" && !manifest.File.StartsWith("agents", StringComparison.Ordinal)), documents.Count);
        Assert.All(documents, document => Assert.Empty(ManifestChecks.Shape(document)));
    }

    private static void AssertNone(IEnumerable<string> problems)
    {
        var found = problems.ToList();
        Assert.True(found.Count == 0, string.Join(Environment.NewLine, found));
    }
}

/// <summary>A fact that needs kubectl on PATH, and is reported as skipped (not passed) where it is missing, as on many CI machines.</summary>
public sealed class KubectlFactAttribute : FactAttribute
{
    public KubectlFactAttribute()
    {
        var onPath = (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator)
            .Any(folder => folder.Length > 0 && File.Exists(Path.Combine(folder, "kubectl")));
        if (!onPath)
        {
            Skip = "kubectl is not on PATH; the YAML checks in ManifestTests still ran.";
        }
    }
}
