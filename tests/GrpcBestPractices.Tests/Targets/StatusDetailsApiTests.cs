using System.Security.Cryptography;
using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.Targets;

/// <summary>
/// The gateway against the grpc-js inventory server failing every second call with words of its own: the run's answer,
/// its stored record, its events and its report carry the status with the server's message, with the target's metadata
/// value masked.
/// </summary>
[Trait("Category", "Process")]
public sealed class StatusDetailsApiTests
{
    private const string GetItem = GrpcJsTarget.Service + "/GetItem";

    [Fact]
    public async Task APartlyFailedRunsAnswerEventsAndReportCarryTheServersWords()
    {
        var secret = "sk-" + Convert.ToHexString(RandomNumberGenerator.GetBytes(24));
        await using var target = await GrpcJsTarget.StartAsync(TargetSecurity.Plain, "--fail-every", "2", "--fail-code", "9", "--fail-detail", $"tenant acme is suspended (key {secret})");
        await using var gateway = await AppProcess.StartAsync("ApiGateway",
        [
            "--ServerUrl", $"http://127.0.0.1:{Ports.Unused()}",
            "--Targets:inventory:Address", target.Url,
            "--Targets:inventory:Proto", GrpcJsTarget.ProtoFile,
            "--Targets:inventory:ImportPaths:0", GrpcJsTarget.ImportDirectory,
            "--Targets:inventory:Metadata:x-api-key", secret,
        ]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(120) };

        var started = await http.StartRunAsync($$"""{"target": "inventory", "call": "{{GetItem}}", "data": {"sku": "a"}, "strategy": "client-wrapper", "count": 40, "warmup": 0}""");
        var id = started.GetProperty("id").GetString();
        var run = await http.WaitUntilFinishedAsync($"/api/runs/{id}");

        const string Said = "tenant acme is suspended (key ***)";
        Assert.True(run.GetProperty("state").GetString() == "Completed", run.ToString());
        var detail = Assert.Single(run.GetProperty("stats").GetProperty("statusDetails").EnumerateArray());
        Assert.Equal(("FailedPrecondition", 20L), (detail.GetProperty("status").GetString(), detail.GetProperty("calls").GetInt64()));
        var message = Assert.Single(detail.GetProperty("messages").EnumerateArray());
        Assert.Equal((Said, 20L), (message.GetProperty("message").GetString(), message.GetProperty("calls").GetInt64()));
        var events = await http.GetStringAsync($"/api/runs/{id}/events");
        var report = await http.GetStringAsync($"/api/runs/{id}/report");
        Assert.Contains(JsonSerializer.Serialize(Said)[1..^1], events);
        Assert.Contains("\"statusDetails\"", events);
        Assert.Contains(System.Net.WebUtility.HtmlEncode($"'{Said}'"), report);
        Assert.All([JsonSerializer.Serialize(run), events, report, await http.GetStringAsync("/api/runs")], written => Assert.DoesNotContain(secret, written));
    }
}
