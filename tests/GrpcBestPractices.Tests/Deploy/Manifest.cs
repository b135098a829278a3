using System.Text.Json.Nodes;
using GrpcBestPractices.Tests.Infrastructure;
using YamlDotNet.Core;
using YamlDotNet.Core.Events;
using YamlDotNet.Serialization;

namespace GrpcBestPractices.Tests.Deploy;

/// <summary>
/// One YAML document of deploy/k8s, as JSON nodes (every scalar a string, as YAML without a schema gives it), with the
/// file it came from, so a failed check can name where to look.
/// </summary>
public sealed record Manifest(string File, JsonObject Document)
{
    public static string Folder { get; } = Path.Combine(AppProcess.RepositoryRoot, "deploy", "k8s");

    public string Kind => Text(Document["kind"]) ?? "";

    public string Name => Text(Document["metadata"]?["name"]) ?? "";

    public string Where => $"{File}: {Kind} {Name}";

    /// <summary>The pod template of a Deployment, StatefulSet or Job; null for other kinds.</summary>
    public JsonObject? PodTemplate => Kind is "Deployment" or "StatefulSet" or "Job" ? Document["spec"]?["template"] as JsonObject : null;

    public IEnumerable<JsonObject> Containers =>
        (PodTemplate?["spec"]?["containers"] as JsonArray ?? []).OfType<JsonObject>();

    /// <summary>Every document of every YAML file under deploy/k8s, in file order.</summary>
    public static IReadOnlyList<Manifest> LoadAll() =>
        [.. Directory.EnumerateFiles(Folder, "*.yaml", SearchOption.AllDirectories).Order(StringComparer.Ordinal)
            .SelectMany(path => Parse(Path.GetRelativePath(Folder, path), System.IO.File.ReadAllText(path)))];

    /// <summary>The documents of one YAML text; a syntax error throws, naming the file, line and column.</summary>
    public static IEnumerable<Manifest> Parse(string file, string yaml)
    {
        var deserializer = new DeserializerBuilder().Build();
        var parser = new Parser(new StringReader(yaml));
        parser.Consume<StreamStart>();
        var documents = new List<Manifest>();
        while (parser.Accept<DocumentStart>(out _))
        {
            object? document;
            try
            {
                document = deserializer.Deserialize<object?>(parser);
            }
            catch (YamlException invalid)
            {
                throw new InvalidDataException($"{file} is not valid YAML at {invalid.Start}: {invalid.Message}", invalid);
            }

            // An empty document (a stray '---') is nothing to apply.
            if (document is not null)
            {
                documents.Add(new Manifest(file, ToJson(document) as JsonObject
                    ?? throw new InvalidDataException($"{file} holds a document that is not a mapping.")));
            }
        }

        return documents;
    }

    public static string? Text(JsonNode? node) => node is JsonValue value && value.TryGetValue<string>(out var text) ? text : null;

    private static JsonNode? ToJson(object? value) => value switch
    {
        null => null,
        IDictionary<object, object?> mapping => new JsonObject(mapping.Select(pair => KeyValuePair.Create(pair.Key.ToString()!, ToJson(pair.Value)))),
        IList<object?> sequence => new JsonArray([.. sequence.Select(ToJson)]),
        _ => JsonValue.Create(value.ToString()),
    };
}
