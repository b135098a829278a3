using System.Diagnostics;
using System.Net;
using System.Net.Http.Json;
using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>The README's run command: both apps up, the Swagger URL printed, Ctrl+C leaves nothing behind.</summary>
[Collection(SystemCollection.Name)]
[Trait("Category", "Process")]
public sealed class RunScriptTests
{
    [Fact]
    public async Task RunScriptStartsBothAppsPrintsSwaggerAndCtrlCStopsBoth()
    {
        var (servicePort, gatewayPort) = (Ports.Unused(), Ports.Unused());
        // The bond runs the script in a session and process group of its own, as a terminal's foreground job has, so Ctrl+C can be sent to all of it.
        var start = new ProcessStartInfo("bash") { WorkingDirectory = AppProcess.RepositoryRoot, RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (var argument in new[] { "run.sh", "--no-build" })
        {
            start.ArgumentList.Add(argument);
        }

        start.Environment["SERVICE_URL"] = $"http://127.0.0.1:{servicePort}";
        start.Environment["GATEWAY_URL"] = $"http://127.0.0.1:{gatewayPort}";
        start.Environment["CONFIGURATION"] = AppProcess.Configuration;
        // The script's apps inherit these: the service's other listeners on free ports and its certificate in the test's own
        // folder, and the gateway's history there too, so the test's runs never reach the user's own history.
        using var folder = new TemporaryFolder();
        start.Environment["Protocols__Http1Url"] = "http://127.0.0.1:0";
        start.Environment["Protocols__TlsUrl"] = "https://127.0.0.1:0";
        start.Environment["Metrics__Url"] = "http://127.0.0.1:0";
        start.Environment["Protocols__CertificateFolder"] = folder.Path;
        start.Environment["History__DatabasePath"] = folder.File("history.db");
        using var script = TestHostBond.Start(start);
        var output = new List<string>();
        var swagger = new TaskCompletionSource<string>(TaskCreationOptions.RunContinuationsAsynchronously);
        script.OutputDataReceived += (_, e) =>
        {
            if (e.Data is null)
            {
                return;
            }

            lock (output)
            {
                output.Add(e.Data);
            }

            // The script's own line, not the gateway's log line that says the same.
            if (e.Data.TrimStart().StartsWith("Swagger UI:", StringComparison.Ordinal))
            {
                swagger.TrySetResult(e.Data.Split("Swagger UI:")[1].Trim());
            }
        };
        script.ErrorDataReceived += (_, e) =>
        {
            lock (output)
            {
                output.Add(e.Data ?? string.Empty);
            }
        };
        script.BeginOutputReadLine();
        script.BeginErrorReadLine();

        try
        {
            var printed = await swagger.Task.WaitAsync(TimeSpan.FromSeconds(60));
            Assert.Equal($"http://127.0.0.1:{gatewayPort}/swagger", printed);
            using var http = new HttpClient();
            Assert.Equal(HttpStatusCode.OK, (await http.GetAsync(printed + "/index.html")).StatusCode);
            Assert.Equal(HttpStatusCode.OK, (await http.GetAsync($"http://127.0.0.1:{gatewayPort}/Performance/client-wrapper/5")).StatusCode);
            // The gateway got the addresses the service's other listeners really have, and the certificate it made.
            var contenders = (await http.GetFromJsonAsync<JsonElement>($"http://127.0.0.1:{gatewayPort}/api/workloads")).GetProperty("contenders").EnumerateArray();
            Assert.All(contenders, contender => Assert.True(contender.GetProperty("available").GetBoolean(), contender.ToString()));
            var started = await http.PostAsync($"http://127.0.0.1:{gatewayPort}/api/runs", new StringContent(
                """{"workload": "small-ints", "protocol": "rest", "security": "tls", "count": 5}""", System.Text.Encoding.UTF8, "application/json"));
            Assert.Equal(HttpStatusCode.Accepted, started.StatusCode);
            var run = await http.WaitUntilFinishedAsync($"http://127.0.0.1:{gatewayPort}{started.Headers.Location}");
            Assert.Equal("Completed", run.GetProperty("state").GetString());
            Assert.True(File.Exists(folder.File("history.db")), "the gateway did not keep its history in the test's own folder");

            Signal("INT", -script.Id);
            // A bound, not a timing: both apps drain and stop in seconds, which a machine busy with other work may stretch.
            await script.WaitForExitAsync().WaitAsync(TimeSpan.FromSeconds(90));

            Assert.False(Ports.Listening(servicePort), "PerformanceService still listens after Ctrl+C");
            Assert.False(Ports.Listening(gatewayPort), "ApiGateway still listens after Ctrl+C");
            Assert.Empty(ProcessesMentioning($"127.0.0.1:{servicePort}"));
        }
        catch (Exception) when (Dump(output))
        {
            throw;
        }
        finally
        {
            if (!script.HasExited)
            {
                Signal("KILL", -script.Id);
            }
        }
    }

    [Theory]
    [InlineData("SERVICE_URL", "http", "the service's gRPC listener")]
    [InlineData("GATEWAY_URL", "http", "the gateway")]
    [InlineData("TLS_URL", "https", "the service's TLS listener")]
    [InlineData("HTTP1_URL", "http", "the service's HTTP/1.1 listener")]
    [InlineData("METRICS_URL", "http", "the service's metrics listener")]
    public async Task RunScriptNamesATakenPortAndTheVariableThatMovesItBeforeBuilding(string variable, string scheme, string listener)
    {
        using var holder = new System.Net.Sockets.TcpListener(IPAddress.Loopback, 0);
        holder.Start();
        var port = ((IPEndPoint)holder.LocalEndpoint).Port;
        // No --no-build: the sentence must come before the build, which takes minutes.
        var start = new ProcessStartInfo("bash", ["run.sh"]) { WorkingDirectory = AppProcess.RepositoryRoot };
        foreach (var (name, other) in new[] { ("SERVICE_URL", "http"), ("GATEWAY_URL", "http"), ("TLS_URL", "https"), ("HTTP1_URL", "http"), ("METRICS_URL", "http") })
        {
            start.Environment[name] = $"{other}://127.0.0.1:{(name == variable ? port : Ports.Unused())}";
        }

        var run = await ToolRun.RunAsync(start, TimeSpan.FromSeconds(60));

        Assert.True(run.ExitCode == 1, run.ToString());
        Assert.DoesNotContain("Building", run.Output, StringComparison.Ordinal);
        var sentence = Assert.Single(run.ErrorLines);
        Assert.StartsWith($"run.sh: port {port}, wanted for {listener} ({scheme}://127.0.0.1:{port}), is already taken", sentence, StringComparison.Ordinal);
        Assert.Contains($"set {variable} to another address", sentence, StringComparison.Ordinal);
        // ss (iproute2) tells who holds it: this test host.
        if (File.Exists("/usr/bin/ss") || File.Exists("/bin/ss"))
        {
            Assert.Contains($"(pid {Environment.ProcessId})", sentence, StringComparison.Ordinal);
        }
    }

    private static bool Dump(List<string> output)
    {
        lock (output)
        {
            Console.WriteLine(string.Join(Environment.NewLine, output));
        }

        return false;
    }

    private static void Signal(string signal, int target)
    {
        using var kill = Process.Start("kill", [$"-{signal}", "--", target.ToString(System.Globalization.CultureInfo.InvariantCulture)]);
        kill.WaitForExit();
    }


    private static List<int> ProcessesMentioning(string text) =>
        Directory.EnumerateDirectories("/proc")
            .Select(directory => (Id: int.TryParse(Path.GetFileName(directory), out var id) ? id : 0, Directory: directory))
            .Where(entry => entry.Id > 0)
            .Where(entry =>
            {
                try
                {
                    return File.ReadAllText(Path.Combine(entry.Directory, "cmdline")).Replace('\0', ' ').Contains(text);
                }
                catch (IOException)
                {
                    return false;
                }
                catch (UnauthorizedAccessException)
                {
                    return false;
                }
            })
            .Select(entry => entry.Id)
            .ToList();
}
