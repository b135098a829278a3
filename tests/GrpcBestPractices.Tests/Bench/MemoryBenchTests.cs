using System.Buffers;
using System.Text.Json;
using GrpcBestPractices.Tests.Infrastructure;
using GrpcBestPractices.Tests.WorkloadService;
using Workloads;

namespace GrpcBestPractices.Tests.Bench;

/// <summary>
/// bench/memory.mjs's two parts that have logic: its arithmetic (bench/memory-figures.test.mjs, run by Node's own test
/// runner) and bench/MemoryProbe, the startup hook it loads into the gateway and the service, here in a real service.
/// </summary>
[Trait("Category", "Process")]
public sealed class MemoryBenchTests
{
    private static readonly string BenchDirectory = Path.Combine(AppProcess.RepositoryRoot, "bench");

    private static readonly string Probe = Path.Combine(BenchDirectory, "MemoryProbe", "bin", AppProcess.Configuration, "net10.0", "MemoryProbe.dll");

    [Fact]
    public async Task TheBenchsArithmeticPassesItsOwnTests()
    {
        var (exitCode, output, errors) = await NodeScript.RunAsync(BenchDirectory, "--test", TimeSpan.FromSeconds(60), "memory-figures.test.mjs");

        Assert.True(exitCode == 0, $"node --test memory-figures.test.mjs failed (exit {exitCode}):{Environment.NewLine}{output}{errors}");
        Assert.Contains("# fail 0", output);
    }

    [Fact]
    public async Task TheProbeSamplesTheServiceSeesKestrelsBuffersComeBackAndMakesAFullGcWhenAsked()
    {
        Assert.True(File.Exists(Probe), $"{Probe} is missing: the test project builds bench/MemoryProbe.");
        var folder = Directory.CreateTempSubdirectory("memory-probe-");
        try
        {
            var samples = Path.Combine(folder.FullName, "service.jsonl");
            await using var service = await RunningService.StartAsync([], new Dictionary<string, string>
            {
                ["DOTNET_STARTUP_HOOKS"] = Probe,
                ["MEMORY_PROBE_FILE"] = samples,
                ["MEMORY_PROBE_INTERVAL_MS"] = "20",
            });

            // An upload of 1 MiB over HTTP/1.1 passes through Kestrel's buffers, which are all back in its pool once it is acknowledged.
            var receipt = await service.Client("rest-stj", Route.Http1).UploadAsync(1024 * 1024);
            Assert.Equal((WorkloadChecksum.OfFile(1024 * 1024), 1024 * 1024L), receipt);
            var request = samples + ".collect";
            await File.WriteAllTextAsync(request, "");
            var deadline = DateTime.UtcNow.AddSeconds(10);
            while (File.Exists(request) && DateTime.UtcNow < deadline)
            {
                await Task.Delay(20);
            }

            Assert.False(File.Exists(request), "the probe did not make the GC it was asked for within 10 s.");
            var lines = await ReadLinesAsync(samples);
            var collected = lines.Last(line => line.GetProperty("collected").GetBoolean());
            var before = lines.Last(line => line.GetProperty("time").GetInt64() < collected.GetProperty("time").GetInt64());

            Assert.True(lines.Count >= 2);
            Assert.True(collected.GetProperty("gen2").GetInt32() > before.GetProperty("gen2").GetInt32(), "the collected sample follows a full GC");
            Assert.True(lines.Max(line => line.GetProperty("poolMostInUseBytes").GetInt64()) > 0, "the upload was seen in Kestrel's buffers");
            Assert.True(collected.GetProperty("poolBytes").GetInt64() > 0);
            Assert.Equal(0, collected.GetProperty("poolInUseBytes").GetInt64());
            Assert.True(collected.GetProperty("liveAfterGcBytes").GetInt64() > 0);
            Assert.True(collected.GetProperty("committedBytes").GetInt64() >= collected.GetProperty("liveAfterGcBytes").GetInt64());
        }
        finally
        {
            folder.Delete(recursive: true);
        }
    }

    [Fact]
    public void TheProbeCountsWhatIsRentedFromTheSharedArrayPoolOnlyWhileItFollowsIt()
    {
        using var rentals = new ArrayPoolRentals();
        // A size no other test rents (a 4 MiB array), since the pool is the whole test process's.
        var before = ArrayPool<byte>.Shared.Rent(3 * 1024 * 1024);
        rentals.Follow(true);
        var buffer = ArrayPool<byte>.Shared.Rent(3 * 1024 * 1024);
        var rented = rentals.Bytes;
        ArrayPool<byte>.Shared.Return(before);
        var afterAnEarlierOneCameBack = rentals.Bytes;
        ArrayPool<byte>.Shared.Return(buffer);

        Assert.True(rented >= buffer.Length, $"{rented} B rented");
        Assert.True(afterAnEarlierOneCameBack >= buffer.Length, "a buffer rented before it followed is not taken off");
        Assert.True(rentals.Bytes < buffer.Length, $"{rentals.Bytes} B still rented");
        Assert.True(rentals.TakeMost() >= buffer.Length);
        rentals.Follow(false);
        Assert.Equal(0, rentals.Bytes);
    }

    // The probe may be writing its next line: only whole lines count.
    private static async Task<List<JsonElement>> ReadLinesAsync(string path)
    {
        await using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite);
        using var reader = new StreamReader(stream);
        var text = await reader.ReadToEndAsync();
        return [.. text.Split('\n').SkipLast(1).Select(line => JsonDocument.Parse(line).RootElement)];
    }
}
