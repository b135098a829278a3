using System.Text.Json.Nodes;
using System.Text.RegularExpressions;

namespace GrpcBestPractices.Tests.Deploy;

/// <summary>
/// What must hold between deploy/k8s and the apps for a cluster to run them, each check a list of sentences naming what
/// is wrong (empty when all is well), so the tests can prove on broken samples that a check does catch its mistake.
/// </summary>
public static partial class ManifestChecks
{
    public const string Namespace = "grpc-best-practices";

    /// <summary>Kinds that are not objects in a namespace: the namespace itself, and kustomize's own file.</summary>
    private static readonly HashSet<string> Unnamespaced = ["Namespace", "Kustomization"];

    public static IEnumerable<string> Shape(Manifest manifest)
    {
        var document = manifest.Document;
        foreach (var required in new[] { "apiVersion", "kind" })
        {
            if (string.IsNullOrEmpty(Manifest.Text(document[required])))
            {
                yield return $"{manifest.Where} has no {required}.";
            }
        }

        if (manifest.Kind == "Kustomization")
        {
            yield break;
        }

        if (manifest.Name.Length == 0)
        {
            yield return $"{manifest.Where} has no metadata.name.";
        }

        var space = Manifest.Text(document["metadata"]?["namespace"]);
        if (!Unnamespaced.Contains(manifest.Kind) && space != Namespace)
        {
            yield return $"{manifest.Where} is in namespace '{space}', not {Namespace}.";
        }
    }

    /// <summary>
    /// A Job of agents: Indexed, as many at once as in all (an agent that waits for another's slot would start its shard
    /// late), never restarted in place nor kept forever, and each pod told its shard of exactly that many.
    /// </summary>
    public static IEnumerable<string> IndexedJob(Manifest manifest)
    {
        if (manifest.Kind != "Job")
        {
            yield break;
        }

        var spec = manifest.Document["spec"];
        if (Manifest.Text(spec?["completionMode"]) != "Indexed")
        {
            yield return $"{manifest.Where} is not completionMode: Indexed, so its pods have no shard index.";
        }

        var completions = Manifest.Text(spec?["completions"]);
        var parallelism = Manifest.Text(spec?["parallelism"]);
        if (completions is null || completions != parallelism)
        {
            yield return $"{manifest.Where} has parallelism {parallelism ?? "unset"} and completions {completions ?? "unset"}; every agent of a run must run at once.";
        }

        foreach (var field in new[] { "backoffLimit", "ttlSecondsAfterFinished" })
        {
            if (Manifest.Text(spec?[field]) is null)
            {
                yield return $"{manifest.Where} sets no {field}.";
            }
        }

        if (Manifest.Text(manifest.PodTemplate?["spec"]?["restartPolicy"]) != "Never")
        {
            yield return $"{manifest.Where} does not set restartPolicy: Never, so a failed agent would be run again in place.";
        }

        foreach (var container in manifest.Containers)
        {
            var args = Strings(container["args"]);
            var shard = args.IndexOf("--shard") is var at and >= 0 && at + 1 < args.Count ? args[at + 1] : null;
            if (shard != $"$(JOB_COMPLETION_INDEX)/{completions}")
            {
                yield return $"{manifest.Where} container {Manifest.Text(container["name"])} has --shard {shard ?? "missing"}; it must be $(JOB_COMPLETION_INDEX)/{completions}.";
            }

            var index = Env(container).FirstOrDefault(variable => Manifest.Text(variable["name"]) == "JOB_COMPLETION_INDEX");
            if (Manifest.Text(index?["valueFrom"]?["fieldRef"]?["fieldPath"]) != "metadata.annotations['batch.kubernetes.io/job-completion-index']")
            {
                yield return $"{manifest.Where} does not declare JOB_COMPLETION_INDEX from the job-completion-index annotation, so $(JOB_COMPLETION_INDEX) in its args is not expanded.";
            }
        }
    }

    /// <summary>Every image is one the apps' projects build (their ContainerRepository) or one of the few named third-party ones.</summary>
    public static IEnumerable<string> Images(Manifest manifest, IReadOnlyCollection<string> repositories, IReadOnlyCollection<string> thirdParty)
    {
        foreach (var container in manifest.Containers)
        {
            var image = Manifest.Text(container["image"]) ?? "";
            if (!repositories.Contains(Repository(image)) && !thirdParty.Contains(Repository(image)))
            {
                yield return $"{manifest.Where} runs image '{image}', which is neither a ContainerRepository of the apps ({string.Join(", ", repositories)}) nor {string.Join(", ", thirdParty)}.";
            }
        }
    }

    /// <summary>
    /// Every variable set on one of our apps is a setting that app reads, or a helper another value or argument expands
    /// with $(NAME): a misspelt key is otherwise ignored without a word, and the app runs on its default. An entry of a
    /// setting that is a dictionary (Auth:ApiKeys:&lt;name&gt;) is read as that setting.
    /// </summary>
    public static IEnumerable<string> Environment(Manifest manifest, Func<string, IReadOnlySet<string>?> keysOfImage)
    {
        foreach (var container in manifest.Containers)
        {
            if (keysOfImage(Repository(Manifest.Text(container["image"]) ?? "")) is not { } keys)
            {
                continue;
            }

            var variables = Env(container).ToList();
            var expanded = variables.Select(variable => Manifest.Text(variable["value"])).Concat(Strings(container["args"]))
                .SelectMany(text => Expansion().Matches(text ?? "").Select(match => match.Groups[1].Value)).ToHashSet();
            foreach (var name in variables.Select(variable => Manifest.Text(variable["name"]) ?? ""))
            {
                var key = AppSettingKeys.FromEnvironmentName(name);
                if (!keys.Contains(key) && !keys.Contains(key[..Math.Max(0, key.LastIndexOf(':'))]) && !expanded.Contains(name))
                {
                    yield return $"{manifest.Where} sets {name} on {Manifest.Text(container["name"])}, which that app does not read (as {AppSettingKeys.FromEnvironmentName(name)}) and nothing expands.";
                }
            }
        }
    }

    /// <summary>Every Service selects the pods of a workload in its namespace, and every port it forwards to is one those pods expose.</summary>
    public static IEnumerable<string> Selectors(IReadOnlyList<Manifest> manifests)
    {
        foreach (var service in manifests.Where(manifest => manifest.Kind == "Service"))
        {
            var selector = service.Document["spec"]?["selector"] as JsonObject;
            if (selector is null || selector.Count == 0)
            {
                yield return $"{service.Where} selects no pods.";
                continue;
            }

            var selected = manifests.Where(workload => workload.PodTemplate is { } template
                && Manifest.Text(workload.Document["metadata"]?["namespace"]) == Manifest.Text(service.Document["metadata"]?["namespace"])
                && selector.All(pair => Manifest.Text(template["metadata"]?["labels"]?[pair.Key]) == Manifest.Text(pair.Value))).ToList();
            if (selected.Count == 0)
            {
                yield return $"{service.Where} selects {string.Join(", ", selector.Select(pair => $"{pair.Key}={Manifest.Text(pair.Value)}"))}, which no pod template carries.";
                continue;
            }

            foreach (var port in (service.Document["spec"]?["ports"] as JsonArray ?? []).OfType<JsonObject>())
            {
                var target = Manifest.Text(port["targetPort"]) ?? Manifest.Text(port["port"]) ?? "";
                if (!selected.Any(workload => workload.Containers.Any(container => Exposes(container, target))))
                {
                    yield return $"{service.Where} forwards to port {target}, which the pods of {string.Join(", ", selected.Select(workload => workload.Name))} do not expose.";
                }
            }
        }
    }

    /// <summary>
    /// Every address a container is told to listen on beyond its own loopback, every probe and every scrape annotation
    /// names a port the container declares: otherwise the Service, the kubelet or Prometheus knocks on a closed one.
    /// </summary>
    public static IEnumerable<string> Ports(Manifest manifest)
    {
        foreach (var container in manifest.Containers)
        {
            var name = Manifest.Text(container["name"]);
            foreach (var variable in Env(container))
            {
                foreach (Match listen in ListenUrl().Matches(Manifest.Text(variable["value"]) ?? ""))
                {
                    if (!Exposes(container, listen.Groups["port"].Value))
                    {
                        yield return $"{manifest.Where} container {name} listens on {listen.Value} ({Manifest.Text(variable["name"])}) but declares no containerPort {listen.Groups["port"].Value}.";
                    }
                }
            }

            foreach (var probe in new[] { "readinessProbe", "livenessProbe", "startupProbe" })
            {
                var handler = container[probe];
                var port = Manifest.Text(handler?["httpGet"]?["port"]) ?? Manifest.Text(handler?["tcpSocket"]?["port"]) ?? Manifest.Text(handler?["grpc"]?["port"]);
                if (port is not null && !Exposes(container, port))
                {
                    yield return $"{manifest.Where} container {name} has a {probe} on port {port}, which it does not declare.";
                }
            }
        }

        var scraped = Manifest.Text(manifest.PodTemplate?["metadata"]?["annotations"]?["prometheus.io/port"]);
        if (scraped is not null && !manifest.Containers.Any(container => Exposes(container, scraped)))
        {
            yield return $"{manifest.Where} asks Prometheus to scrape port {scraped}, which no container declares.";
        }
    }

    /// <summary>The image's repository: without its tag or digest.</summary>
    public static string Repository(string image)
    {
        var digest = image.IndexOf('@', StringComparison.Ordinal);
        var withoutDigest = digest >= 0 ? image[..digest] : image;
        var colon = withoutDigest.LastIndexOf(':');
        return colon > withoutDigest.LastIndexOf('/') ? withoutDigest[..colon] : withoutDigest;
    }

    private static bool Exposes(JsonObject container, string port) =>
        (container["ports"] as JsonArray ?? []).OfType<JsonObject>()
            .Any(declared => Manifest.Text(declared["containerPort"]) == port || Manifest.Text(declared["name"]) == port);

    private static IEnumerable<JsonObject> Env(JsonObject container) => (container["env"] as JsonArray ?? []).OfType<JsonObject>();

    private static List<string> Strings(JsonNode? node) => [.. (node as JsonArray ?? []).Select(Manifest.Text).OfType<string>()];

    [GeneratedRegex(@"\$\(([A-Za-z_][A-Za-z0-9_]*)\)")]
    private static partial Regex Expansion();

    // Addresses on every interface of the pod; a loopback one is the container's own business.
    [GeneratedRegex(@"https?://(0\.0\.0\.0|\*|\+|\[::\]):(?<port>\d+)")]
    private static partial Regex ListenUrl();
}
