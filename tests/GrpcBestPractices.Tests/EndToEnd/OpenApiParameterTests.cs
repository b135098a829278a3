using System.Globalization;
using System.Net;
using System.Text;
using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>
/// What the running gateway's OpenAPI document says about every operation's parameters and problems, held against what
/// the gateway then does: each documented limit is enforced, and each query parameter it does not document is refused.
/// Every operation is iterated, so a new route that does not declare its parameters fails here.
/// </summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class OpenApiParameterTests(SystemFixture system)
{
    private const string ExampleId = "3f2b8c1e-9a4d-4e6b-8f0a-1c2d3e4f5a6b";

    [Fact]
    public async Task EveryParameterOfEveryOperationIsTypedBoundedDefaultedAndExplained()
    {
        var operations = await OperationsAsync();

        Assert.Contains(operations, operation => operation.Name == "GET /Performance/client-wrapper/{count}");
        foreach (var operation in operations)
        {
            foreach (var parameter in operation.Parameters)
            {
                var what = $"{operation.Name}: {parameter.GetProperty("name").GetString()}";
                var schema = parameter.GetProperty("schema");
                var type = schema.GetProperty("type").GetString();
                var scalar = type == "array" ? schema.GetProperty("items") : schema;
                var description = parameter.TryGetProperty("description", out var text) ? text.GetString() : null;
                Assert.False(string.IsNullOrWhiteSpace(description), $"{what} has no description");
                Assert.Contains(type, (string[])["integer", "number", "boolean", "string", "array"]);
                switch (scalar.GetProperty("type").GetString())
                {
                    case "integer" or "number":
                        Assert.True(scalar.TryGetProperty("minimum", out _) && scalar.TryGetProperty("maximum", out _), $"{what} is a number without its limits");
                        break;
                    case "string" when type != "array":
                        Assert.True(scalar.TryGetProperty("enum", out _) || scalar.TryGetProperty("format", out _) || scalar.TryGetProperty("pattern", out _),
                            $"{what} is free text: give it its values, format or pattern");
                        break;
                }

                var required = parameter.TryGetProperty("required", out var flag) && flag.GetBoolean();
                Assert.True(required || scalar.TryGetProperty("default", out _) || description!.Contains("left out", StringComparison.OrdinalIgnoreCase),
                    $"{what} is optional but neither has a default nor says what leaving it out means");
            }
        }
    }

    [Fact]
    public async Task EveryOperationDocumentsItsProblemsWithAnExampleSentence()
    {
        var operations = await OperationsAsync();

        foreach (var operation in operations)
        {
            var responses = operation.Element.GetProperty("responses");
            var statuses = responses.EnumerateObject().Select(response => response.Name).ToList();
            Assert.Contains("400", statuses);
            Assert.Contains("405", statuses);
            if (operation.Path.Contains("{id}", StringComparison.Ordinal))
            {
                Assert.Contains("404", statuses);
            }

            foreach (var response in responses.EnumerateObject().Where(response => int.Parse(response.Name, CultureInfo.InvariantCulture) >= 400))
            {
                var what = $"{operation.Name} {response.Name}";
                Assert.True(response.Value.TryGetProperty("content", out var content), $"{what} has no body");
                var body = Assert.Single(content.EnumerateObject());
                Assert.Equal("application/problem+json", body.Name);
                var examples = body.Value.TryGetProperty("example", out var example)
                    ? [example]
                    : body.Value.GetProperty("examples").EnumerateObject().Select(named => named.Value.GetProperty("value")).ToList();
                Assert.NotEmpty(examples);
                Assert.All(examples, problem =>
                {
                    Assert.Equal(response.Name, problem.GetProperty("status").GetInt32().ToString(CultureInfo.InvariantCulture));
                    Assert.False(string.IsNullOrWhiteSpace(problem.GetProperty("title").GetString()), $"{what}'s example has no title");
                    Assert.Matches(@"^[A-Za-z0-9'].{20,}[.?]$", problem.GetProperty("detail").GetString());
                });
            }
        }
    }

    [Fact]
    public async Task EveryDocumentedLimitIsTheOneTheGatewayEnforces()
    {
        var probed = 0;
        foreach (var operation in (await OperationsAsync()).Where(operation => operation.Method == "GET"))
        {
            // A path id names a resource: one that is not a GUID matches no route, and an unknown lesson is none; both are 404s (BadInputTests, LessonExperimentTests).
            foreach (var parameter in operation.Parameters.Where(parameter => parameter.GetProperty("in").GetString() == "query"
                || !(parameter.GetProperty("schema").TryGetProperty("format", out var format) && format.GetString() == "guid" || parameter.GetProperty("schema").TryGetProperty("enum", out _))))
            {
                var name = parameter.GetProperty("name").GetString()!;
                foreach (var wrong in WrongValues(parameter.GetProperty("schema")))
                {
                    using var response = await system.Http.GetAsync(operation.Request(name, wrong));
                    var body = await response.Content.ReadAsStringAsync();
                    Assert.True(response.StatusCode == HttpStatusCode.BadRequest, $"{operation.Name} with {name}={wrong} answered {(int)response.StatusCode}: {body}");
                    Assert.Contains(name, (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString());
                    probed++;
                }
            }
        }

        // The chapter routes alone have count, concurrency, warmup, delayMs, payloadBytes, rate, duration, load and includeStatuses.
        Assert.True(probed > 60, $"only {probed} values probed");
    }

    [Fact]
    public async Task AQueryParameterNoRouteDocumentsIsA400ThatNamesItAndListsThoseItTakes()
    {
        foreach (var operation in await OperationsAsync())
        {
            using var request = new HttpRequestMessage(new HttpMethod(operation.Method), operation.Request("concurency", "5"));
            if (operation.Element.TryGetProperty("requestBody", out _))
            {
                request.Content = new StringContent("{}", Encoding.UTF8, "application/json");
            }

            using var response = await system.Http.SendAsync(request);

            Assert.True(response.StatusCode == HttpStatusCode.BadRequest, $"{operation.Name}?concurency=5 answered {(int)response.StatusCode}");
            var detail = (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString()!;
            Assert.StartsWith("concurency is not a parameter of this route", detail);
            var query = operation.Parameters.Where(parameter => parameter.GetProperty("in").GetString() == "query").Select(parameter => parameter.GetProperty("name").GetString()).ToList();
            Assert.Contains(query.Count == 0 ? "it takes no query parameters" : $"it takes: {string.Join(", ", query)}", detail);
        }
    }

    [Theory]
    [InlineData("/Performance/client-wrapper/10?concurency=5", "concurency is not a parameter of this route (did you mean concurrency?); it takes: load, concurrency, rate,")]
    [InlineData("/api/runs?limt=5", "limt is not a parameter of this route (did you mean limit?); it takes: strategy, limit, offset.")]
    [InlineData("/Lessons/payload?bytes=5", "bytes is not a parameter of this route; it takes: payloadBytes.")]
    [InlineData("/api/strategies?all=true", "all is not a parameter of this route; it takes no query parameters.")]
    public async Task AMistypedParameterIsNamedWithTheOneMeant(string route, string expected)
    {
        using var response = await system.Http.GetAsync(route);

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        Assert.StartsWith(expected, (await SystemFixture.ReadProblemAsync(response)).GetProperty("detail").GetString());
    }

    [Fact]
    public async Task ParameterNamesAreMatchedWithoutRegardToCaseAsTheyAreBound()
    {
        using var response = await system.Http.GetAsync("/api/runs?Limit=1");

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
    }

    [Fact]
    public async Task TheChapterAnswersSchemaListsTheFiguresBeforeTheSeriesAndTheStatusesLast()
    {
        using var document = JsonDocument.Parse(await system.Http.GetStringAsync("/swagger/v1/swagger.json"));

        var properties = document.RootElement.GetProperty("components").GetProperty("schemas").GetProperty("ChapterRunResponse")
            .GetProperty("properties").EnumerateObject().Select(property => property.Name).ToList();

        Assert.Equal("performanceStatuses", properties[^1]);
        Assert.Equal("series", properties[^2]);
        Assert.True(properties.IndexOf("stats") < properties.IndexOf("series") && properties.IndexOf("verdict") < properties.IndexOf("series"));
    }

    /// <summary>Values just outside what the document allows, or not of its type: each must be refused.</summary>
    private static IEnumerable<string> WrongValues(JsonElement schema)
    {
        static string Text(double value) => value.ToString(CultureInfo.InvariantCulture);

        switch (schema.GetProperty("type").GetString())
        {
            case "integer":
                yield return Text(schema.GetProperty("minimum").GetDouble() - 1);
                yield return Text(schema.GetProperty("maximum").GetDouble() + 1);
                yield return "1.5";
                break;
            case "number":
                yield return Text(schema.GetProperty("minimum").GetDouble() - 1);
                yield return Text(schema.GetProperty("maximum").GetDouble() * 2);
                break;
            case "boolean":
                yield return "maybe";
                break;
            case "string" when schema.TryGetProperty("enum", out _) || schema.TryGetProperty("format", out _):
                yield return "nope";
                break;
        }
    }

    private async Task<IReadOnlyList<Operation>> OperationsAsync()
    {
        using var document = JsonDocument.Parse(await system.Http.GetStringAsync("/swagger/v1/swagger.json"));
        return [.. document.RootElement.Clone().GetProperty("paths").EnumerateObject()
            .SelectMany(path => path.Value.EnumerateObject().Select(operation => new Operation(operation.Name.ToUpperInvariant(), path.Name, operation.Value)))];
    }

    private sealed record Operation(string Method, string Path, JsonElement Element)
    {
        public string Name => $"{Method} {Path}";

        public IReadOnlyList<JsonElement> Parameters =>
            Element.TryGetProperty("parameters", out var parameters) ? [.. parameters.EnumerateArray()] : [];

        /// <summary>The operation's path and required query, each from its example, with <paramref name="name"/> set to <paramref name="value"/>.</summary>
        public string Request(string name, string value)
        {
            var path = Path;
            var query = new List<string>();
            foreach (var parameter in Parameters)
            {
                var own = parameter.GetProperty("name").GetString()!;
                var given = own == name ? value : Example(parameter);
                if (parameter.GetProperty("in").GetString() == "path")
                {
                    path = path.Replace($"{{{own}}}", Uri.EscapeDataString(given), StringComparison.Ordinal);
                }
                else if (own == name || (parameter.TryGetProperty("required", out var required) && required.GetBoolean()))
                {
                    query.Add($"{own}={Uri.EscapeDataString(given)}");
                }
            }

            if (!Parameters.Any(parameter => parameter.GetProperty("name").GetString() == name))
            {
                query.Add($"{name}={Uri.EscapeDataString(value)}");
            }

            return query.Count == 0 ? path : $"{path}?{string.Join('&', query)}";
        }

        private static string Example(JsonElement parameter) =>
            parameter.TryGetProperty("example", out var example) ? example.ToString() : ExampleId;
    }
}
