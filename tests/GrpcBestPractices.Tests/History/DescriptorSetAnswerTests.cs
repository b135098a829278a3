using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.History;

/// <summary>
/// A run of a described method is answered with its descriptor set's name, never the set: the history keeps each set
/// once, apart from the plans that name it, so GET /api/runs does not grow with the target's contract.
/// </summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class DescriptorSetAnswerTests(SystemFixture system, ITestOutputHelper output)
{
    [Fact]
    public async Task ARunOnADescribedTargetIsListedWithItsSetsNameAndNotItsBytes()
    {
        // The built-in service called through its descriptors: the cheapest described target, with no protoc.
        var started = await system.Http.StartRunAsync("""{"target": "performance", "call": "performance.Monitor/GetPerformance", "strategy": "client-wrapper", "count": 5}""");
        var id = started.GetProperty("id").GetString()!;
        var single = await system.Http.WaitUntilFinishedAsync($"/api/runs/{id}");
        using var response = await system.Http.GetAsync("/api/runs?strategy=client-wrapper&limit=500");
        var page = await response.Content.ReadAsStringAsync();
        var listed = JsonDocument.Parse(page).RootElement.GetProperty("runs").EnumerateArray().Single(run => run.GetProperty("id").GetString() == id);
        output.WriteLine($"GET /api/runs/{id}: {single.GetRawText().Length} bytes; its entry in GET /api/runs: {listed.GetRawText().Length} bytes, its plan {listed.GetProperty("plan").GetRawText().Length}");

        Assert.True(single.GetProperty("state").GetString() == "Completed", single.ToString());
        foreach (var plan in new[] { started.GetProperty("plan"), single.GetProperty("plan"), listed.GetProperty("plan") })
        {
            Assert.Matches("^[0-9A-F]{64}$", plan.GetProperty("descriptorSet").GetString());
            Assert.False(plan.TryGetProperty("descriptors", out _), plan.ToString());
            // Its name in 64 characters, whatever the set's size: the built-in service's set alone was 3.4 KB of base64 in every answer (a plan of 3 844 bytes).
            Assert.InRange(plan.GetRawText().Length, 1, 600);
        }
    }
}
