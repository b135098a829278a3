using GrpcBestPractices.Tests.Infrastructure;

namespace GrpcBestPractices.Tests.EndToEnd;

/// <summary>
/// The page follows event streams with fetch() (EventSource cannot send the key as a header), so it parses Server-Sent
/// Events itself: ApiGateway/wwwroot/js/sse.js, held to the HTML standard's rules by tests/browser/sse.test.mjs in Node.
/// </summary>
[Trait("Category", "Process")]
public sealed class EventStreamReaderTests
{
    [Fact]
    public async Task ThePagesEventStreamReaderPassesItsOwnTests()
    {
        var (exitCode, output, errors) = await NodeScript.RunAsync(Path.Combine(AppProcess.RepositoryRoot, "tests", "browser"), "--test", TimeSpan.FromSeconds(60), "sse.test.mjs");

        Assert.True(exitCode == 0, $"node --test sse.test.mjs failed (exit {exitCode}):{Environment.NewLine}{output}{errors}");
        Assert.Contains("# fail 0", output);
        Assert.DoesNotContain("# pass 0", output);
    }
}
