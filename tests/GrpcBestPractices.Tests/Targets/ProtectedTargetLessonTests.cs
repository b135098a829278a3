using System.Net;
using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;
using LoadEngine.Lessons;
using LoadTest;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.Targets;

/// <summary>
/// Every lesson that runs on a user's method, on a target that refuses a call without its x-tenant metadata
/// (PermissionDenied) and a handshake without the client certificate: the grpc-js inventory server under mutual TLS.
/// Through the gateway the target is configured by a host name that is not a loopback literal; through the CLI by its
/// flags. Each lesson's channels, probes and warm-up calls come from the target's ChannelFactory, or a call is refused.
/// </summary>
[Trait("Category", "Process")]
public sealed class ProtectedTargetLessonTests(ITestOutputHelper output)
{
    private const string GetItem = $"{GrpcJsTarget.Service}/GetItem";

    private const string Data = """{"sku": "A-{{.RequestNumber}}", "quantity": "3"}""";

    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(300);

    private static IEnumerable<string> LessonsOnTargets => LessonList.All.Where(lesson => lesson.NotOnTargets is null).Select(lesson => lesson.Id);

    [Fact]
    public async Task EveryLessonOnAGatewayTargetNamedByHostCarriesItsMetadataAndClientCertificate()
    {
        await using var service = await AppProcess.StartAsync("PerformanceService");
        await using var inventory = await GrpcJsTarget.StartAsync(TargetSecurity.MutualTls, "--require-metadata", "x-tenant");
        var certificates = inventory.Certificates!;
        // A host name, not a loopback literal, that the resolver answers with this machine's loopback.
        var address = $"https://{ByName}:{inventory.Address.Port}";
        await using var gateway = await AppProcess.StartAsync("ApiGateway",
        [
            .. await SystemFixture.GatewayArgumentsAsync(service),
            "--Targets:inventory:Address", address,
            "--Targets:inventory:Proto", GrpcJsTarget.ProtoFile,
            "--Targets:inventory:ImportPaths:0", GrpcJsTarget.ImportDirectory,
            "--Targets:inventory:CaCertificate", certificates.CaPath,
            "--Targets:inventory:ClientCertificate", certificates.ClientCertificatePath,
            "--Targets:inventory:ClientKey", certificates.ClientKeyPath,
            "--Targets:inventory:Authority", InteropCertificates.ServerName,
            "--Targets:inventory:Metadata:x-tenant", "acme",
        ]);
        using var http = new HttpClient { BaseAddress = gateway.BaseAddress, Timeout = TimeSpan.FromSeconds(120) };

        var targets = (await http.GetJsonAsync("/api/targets")).EnumerateArray().ToDictionary(target => target.GetProperty("name").GetString()!);
        Assert.True(targets["inventory"].GetProperty("reachable").GetBoolean(), targets["inventory"].ToString());
        foreach (var lesson in LessonsOnTargets)
        {
            var started = await http.StartRunAsync(
                $$"""{"repetitions": 1, "target": "inventory", "call": "{{GetItem}}", "data": {{Data}}}""", $"/api/lessons/{lesson}/experiments");
            var experiment = await http.WaitUntilFinishedAsync($"/api/lessons/{lesson}/experiments/{started.GetProperty("id").GetString()}", Patience);

            output.WriteLine($"{lesson}: {experiment.GetProperty("state").GetString()}");
            Assert.True(experiment.GetProperty("state").GetString() == "Completed", $"{lesson}: {experiment}");
            var samples = experiment.GetProperty("samples").EnumerateArray().ToList();
            Assert.NotEmpty(samples);
            foreach (var sample in samples)
            {
                Assert.True(sample.GetProperty("state").GetString() == "Completed", $"{lesson}: {sample}");
                if (sample.TryGetProperty("runId", out var runId) && runId.ValueKind == JsonValueKind.String)
                {
                    var run = await http.GetJsonAsync($"/api/runs/{runId.GetString()}");
                    Assert.True(run.GetProperty("stats").GetProperty("failed").GetInt64() == 0, $"{lesson}: {run}");
                }
            }
        }

        // The address is the configuration's alone: a run that names one instead of a target is refused.
        using var byAddress = await http.PostJsonAsync("/api/runs", $$"""{"target": "{{address}}", "call": "{{GetItem}}", "count": 1}""");
        Assert.Equal(HttpStatusCode.BadRequest, byAddress.StatusCode);
        Assert.Contains("the configured targets are: performance, inventory", (await SystemFixture.ReadProblemAsync(byAddress)).GetProperty("detail").GetString());
    }

    [Fact]
    public async Task EveryLessonThroughTheCliCarriesTheMetadataAndClientCertificateItWasGiven()
    {
        await using var inventory = await GrpcJsTarget.StartAsync(TargetSecurity.MutualTls, "--require-metadata", "x-tenant");
        var certificates = inventory.Certificates!;
        using var folder = new TemporaryFolder();
        var json = folder.File("lessons.json");

        var result = await CliProcess.RunAsync("lessons", string.Join(',', LessonsOnTargets), "--target", inventory.Url,
            "--proto", GrpcJsTarget.ProtoFile, "--import-path", GrpcJsTarget.ImportDirectory, "--call", GetItem, "-d", Data,
            "--cacert", certificates.CaPath, "--cert", certificates.ClientCertificatePath, "--key", certificates.ClientKeyPath,
            "--authority", InteropCertificates.ServerName, "-m", "x-tenant: acme", "--repetitions", "1", "--json", json, "--plain");

        // One repetition is never beyond noise, so a headline may not pass (99); any other code is a lesson that did not run.
        Assert.True(result.ExitCode is ExitCodes.Passed or ExitCodes.ThresholdFailed, result.ToString());
        Assert.DoesNotContain("PermissionDenied", result.Output);
        using var outcomes = JsonDocument.Parse(File.ReadAllText(json));
        Assert.Equal(LessonsOnTargets.Order(), outcomes.RootElement.EnumerateArray().Select(outcome => outcome.GetProperty("lesson").GetString()!).Order());
        foreach (var outcome in outcomes.RootElement.EnumerateArray())
        {
            var experiment = outcome.GetProperty("experiment");
            Assert.True(experiment.GetProperty("state").GetString() == "Completed", outcome.ToString());
            Assert.All(experiment.GetProperty("samples").EnumerateArray(), sample => Assert.True(sample.GetProperty("state").GetString() == "Completed", sample.ToString()));
        }
    }

    /// <summary>
    /// This machine's own host name when its resolver answers it with loopback only (as /etc/hosts does in containers), else
    /// inventory.localhost if it resolves, else localhost: a name either way, never a literal, and never traffic beyond loopback.
    /// </summary>
    private static string ByName { get; } =
        new[] { Dns.GetHostName(), "inventory.localhost" }.FirstOrDefault(Resolves) ?? "localhost";

    private static bool Resolves(string name)
    {
        try
        {
            var addresses = Dns.GetHostAddresses(name);
            return addresses.Length > 0 && addresses.All(IPAddress.IsLoopback);
        }
        catch (System.Net.Sockets.SocketException)
        {
            return false;
        }
    }
}
