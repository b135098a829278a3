using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;
using LoadEngine.Targets.Described;

namespace GrpcBestPractices.Tests.Targets;

/// <summary>The grpc-js target's contract as the test build's protoc compiled it (inventory.protoset), read without a server.</summary>
public sealed class InventoryDescriptorTests
{
    [Fact]
    public async Task TheRequestTemplateOfAMessageWithAWrapperShowsItsOtherKindsOfField()
    {
        var method = (await DescribedTarget.FromDescriptorSetAsync(File.ReadAllBytes(GrpcJsTarget.ProtosetPath), CancellationToken.None)).Find(GrpcJsTarget.Service + "/GetItem");

        var template = JsonDocument.Parse(method.RequestTemplate).RootElement;

        Assert.All(new[] { "sku", "quantity", "condition", "checkedAt", "photo", "counts", "location", "tags", "delayMs", "failCode" }, name => Assert.True(template.TryGetProperty(name, out _), $"the template has no {name}: {method.RequestTemplate}"));
        Assert.Equal(("0", "CONDITION_UNSPECIFIED"), (template.GetProperty("quantity").GetString(), template.GetProperty("condition").GetString()));
        Assert.Equal(["site", "aisle", "shelves"], template.GetProperty("location").EnumerateObject().Select(p => p.Name));
    }
}
