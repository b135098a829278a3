using System.Globalization;
using System.Net;
using System.Text.Json;
using System.Text.RegularExpressions;
using GrpcBestPractices.Tests.Fakes;
using GrpcBestPractices.Tests.Infrastructure;
using Microsoft.AspNetCore.Http.Metadata;
using Microsoft.AspNetCore.Routing;
using Microsoft.AspNetCore.WebUtilities;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>The OpenAPI document the running gateway serves, held against the endpoints its own code maps, and Swagger UI under the policy.</summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed partial class OpenApiTests(SystemFixture system)
{
    [Fact]
    public async Task NSwagDocumentsEveryRouteTheGatewayMaps()
    {
        var mapped = (await GatewayEndpoints.MapAsync())
            .SelectMany(endpoint => endpoint.HttpMethods().Select(method => $"{method} {endpoint.OpenApiPath()}"))
            .Order().ToList();

        var document = await GetDocumentAsync();
        var documented = document.GetProperty("paths").EnumerateObject()
            .SelectMany(path => path.Value.EnumerateObject().Select(operation => $"{operation.Name.ToUpperInvariant()} {path.Name}"))
            .Order().ToList();

        Assert.StartsWith("NSwag ", document.GetProperty("x-generator").GetString());
        // Never an empty list against an empty list: the chapter's routes and the run API are among them.
        Assert.Contains("GET /Performance/client-wrapper/{count}", mapped);
        Assert.Contains("POST /api/runs", mapped);
        Assert.Equal(mapped, documented);
    }

    [Fact]
    public async Task EveryOperationCarriesItsEndpointsSummaryDescriptionTagsBodyAndResponses()
    {
        var endpoints = await GatewayEndpoints.MapAsync();
        var paths = (await GetDocumentAsync()).GetProperty("paths");

        var declared = endpoints.Select(Declared).ToList();
        var documented = endpoints.Select(endpoint => Documented(paths, endpoint)).ToList();

        Assert.All(declared, operation => Assert.False(string.IsNullOrEmpty(operation.Summary), $"{operation.Operation} has no summary to document"));
        Assert.Equal(declared, documented);
    }

    [Fact]
    public async Task TheDocumentIntroducesTheGatewayAndLinksToTheChartPage()
    {
        var info = (await GetDocumentAsync()).GetProperty("info");

        Assert.Equal("GrpcBestPractices gateway", info.GetProperty("title").GetString());
        Assert.Contains("[Open the chart page](/)", info.GetProperty("description").GetString());
    }

    [Fact]
    public async Task ARunsPlanIsDocumentedAsItsFlatJsonWithNoneOfItsCSharpParts()
    {
        var schemas = (await GetDocumentAsync()).GetProperty("components").GetProperty("schemas");
        var plan = JsonSerializer.SerializeToElement(SampleRuns.Plan("client-wrapper"), LoadEngine.Runs.RunJson.Options);

        var documented = schemas.GetProperty("RunPlan").GetProperty("properties").EnumerateObject().Select(property => property.Name).ToList();

        // Every field a plan's JSON writes is documented, with the call's fields no built-in plan writes, and no C# part.
        Assert.Empty(plan.EnumerateObject().Select(field => field.Name).Except(documented));
        Assert.Contains("protocol", documented);
        Assert.Contains("descriptorSet", documented);
        Assert.DoesNotContain("called", documented);
        Assert.DoesNotContain(schemas.EnumerateObject(), schema => schema.Name is "PlanCall" or "MethodCall" or "Flat");
    }

    [Theory]
    [InlineData("/swagger")]
    [InlineData("/swagger/index.html")]
    public async Task SwaggerUiStartsWithNoInlineScriptAndLoadsOnlyFromTheGateway(string path)
    {
        using var page = await system.Http.GetAsync(path);
        var html = await page.Content.ReadAsStringAsync();

        Assert.Equal(HttpStatusCode.OK, page.StatusCode);
        Assert.Equal("text/html", page.Content.Headers.ContentType?.MediaType);
        var directives = Assert.Single(page.Headers.GetValues("Content-Security-Policy")).Split(';', StringSplitOptions.TrimEntries);
        Assert.Equal("script-src 'self'", Assert.Single(directives, directive => directive.StartsWith("script-src", StringComparison.Ordinal)));
        Assert.Contains("default-src 'self'", directives);

        var scripts = ScriptElement().Matches(html);
        Assert.NotEmpty(scripts);
        Assert.All(scripts, script =>
        {
            Assert.Contains("src=\"", script.Groups["attributes"].Value);
            Assert.True(string.IsNullOrWhiteSpace(script.Groups["body"].Value), $"inline script: {script.Value}");
        });
        Assert.DoesNotMatch(EventHandlerAttribute(), html);

        var references = ReferenceAttribute().Matches(html).Select(match => new Uri(page.RequestMessage!.RequestUri!, match.Groups["url"].Value)).ToList();
        Assert.Contains(references, reference => reference.AbsolutePath.EndsWith(".js", StringComparison.Ordinal));
        Assert.Contains(references, reference => reference.AbsolutePath.EndsWith(".css", StringComparison.Ordinal));
        foreach (var reference in references)
        {
            Assert.Equal(system.Gateway.BaseAddress.GetLeftPart(UriPartial.Authority), reference.GetLeftPart(UriPartial.Authority));
            using var asset = await system.Http.GetAsync(reference);
            Assert.True(asset.StatusCode == HttpStatusCode.OK, $"{reference} answered {(int)asset.StatusCode}");
        }
    }

    /// <summary>What a caller is told about one operation, in a shape both the endpoint's metadata and the document give.</summary>
    private sealed record OperationText(string Operation, string? Summary, string? Description, string Tags, string Body, string Responses);

    private static OperationText Declared(RouteEndpoint endpoint)
    {
        var metadata = endpoint.Metadata;
        var accepts = metadata.GetMetadata<IAcceptsMetadata>();
        var responses = metadata.OfType<IProducesResponseTypeMetadata>().GroupBy(response => response.StatusCode).Select(status =>
            Response(status.Key.ToString(CultureInfo.InvariantCulture), ReasonPhrases.GetReasonPhrase(status.Key),
                status.Where(response => response.Type is not null && response.Type != typeof(void)).SelectMany(response => response.ContentTypes)));
        return new OperationText(
            Name(endpoint),
            metadata.GetMetadata<IEndpointSummaryMetadata>()?.Summary,
            metadata.GetMetadata<IEndpointDescriptionMetadata>()?.Description,
            string.Join(", ", metadata.GetOrderedMetadata<ITagsMetadata>().SelectMany(tags => tags.Tags).Distinct()),
            accepts?.RequestType is { } body ? string.Join(", ", accepts.ContentTypes.Order().Select(type => $"{type} {body.Name}")) : "",
            string.Join("; ", responses.Order()));
    }

    private static OperationText Documented(JsonElement paths, RouteEndpoint endpoint)
    {
        var operation = paths.GetProperty(endpoint.OpenApiPath()).GetProperty(endpoint.HttpMethods()[0].ToLowerInvariant());
        var body = operation.TryGetProperty("requestBody", out var requestBody)
            ? string.Join(", ", requestBody.GetProperty("content").EnumerateObject().OrderBy(type => type.Name)
                .Select(type => $"{type.Name} {type.Value.GetProperty("schema").GetProperty("$ref").GetString()?.Split('/')[^1]}"))
            : "";
        var responses = operation.GetProperty("responses").EnumerateObject().Select(response => Response(response.Name, Text(response.Value, "description"),
            response.Value.TryGetProperty("content", out var content) ? content.EnumerateObject().Select(type => type.Name) : []));
        return new OperationText(
            Name(endpoint),
            Text(operation, "summary"),
            Text(operation, "description"),
            string.Join(", ", operation.GetProperty("tags").EnumerateArray().Select(tag => tag.GetString())),
            body,
            string.Join("; ", responses.Order()));
    }

    private static string Name(RouteEndpoint endpoint) => $"{endpoint.HttpMethods()[0]} {endpoint.OpenApiPath()}";

    private static string Response(string status, string? description, IEnumerable<string> contentTypes) =>
        $"{status} {description} [{string.Join(", ", contentTypes.Distinct().Order())}]";

    private async Task<JsonElement> GetDocumentAsync()
    {
        using var document = JsonDocument.Parse(await system.Http.GetStringAsync("/swagger/v1/swagger.json"));
        return document.RootElement.Clone();
    }

    private static string? Text(JsonElement element, string property) =>
        element.TryGetProperty(property, out var value) ? value.GetString() : null;

    [GeneratedRegex("<script\\b(?<attributes>[^>]*)>(?<body>.*?)</script>", RegexOptions.Singleline | RegexOptions.IgnoreCase)]
    private static partial Regex ScriptElement();

    [GeneratedRegex(@"\s(?:src|href)=""(?<url>[^""]*)""")]
    private static partial Regex ReferenceAttribute();

    [GeneratedRegex(@"<[^>]*\son[a-z]+\s*=", RegexOptions.IgnoreCase)]
    private static partial Regex EventHandlerAttribute();
}
