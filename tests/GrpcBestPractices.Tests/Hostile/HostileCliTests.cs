using GrpcBestPractices.Tests.Infrastructure;
using LoadTest;
using Xunit.Abstractions;

namespace GrpcBestPractices.Tests.Hostile;

/// <summary>
/// ./loadtest against a hostile server's reflection, as a user points it at a service (host:port, --insecure): for every
/// case of issue 28 (but one, see <see cref="Cases"/>), <c>--list</c> and a run of three calls end within a minute, run
/// none of the server's code, crash never, print none of its control characters and leave no describe folder behind; a
/// refused set is exit 2 and one sentence naming the bound or the fault.
/// </summary>
[Trait("Category", "Process")]
public sealed class HostileCliTests(ITestOutputHelper output)
{
    /// <summary>
    /// Every case but messages-1000: its 1,000 messages are described through the same reflection describer by
    /// <see cref="HostileGatewayTests"/> and by this CLI (as an agent) in <see cref="HostileAgentTests"/>, and compiling
    /// them here once more took 53 s of a quiet machine and over the describe's budget on a busy one.
    /// </summary>
    public static TheoryData<string> Cases => new(HostileCases.All.Where(hostile => hostile.Name != "messages-1000").Select(hostile => hostile.Name));

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task ListAndARunEndInTheirBoundWithASentenceAndRunNoneOfTheServersCode(string name)
    {
        var hostile = HostileCases.Named(name);
        using var folder = new TemporaryFolder();
        await using var server = await HostileReflectionServer.StartAsync(hostile.Set(folder.Path), hostile.ServerOptions);

        var list = await HostileTool.CliAsync(folder.Path, server.HostPort, "--insecure", "--list");
        HostileAssert.RanNoCode(folder.Path, "--list");
        var run = await HostileTool.CliAsync(folder.Path, server.HostPort, "--insecure", "--call", HostileDescriptors.Call, "--count", "3", "--strategy", "client-wrapper");
        output.WriteLine($"{name}: --list {list}{Environment.NewLine}{name}: run {run}");

        HostileAssert.RanNoCode(folder.Path, "a run");
        foreach (var (what, end) in new[] { ("--list", list), ("the run", run) })
        {
            var printed = end.Result.Output + end.Result.Error;
            HostileAssert.DidNotCrash(what, end.Result.ExitCode, printed);
            HostileAssert.HasNoControlCharacters(what, printed);
            HostileAssert.NeverSays(hostile, what, printed);
            Assert.True(end.Took < HostileTool.CliBound, $"{what} took {end.Took}.");
            var works = end.Result.ExitCode == ExitCodes.Passed;
            Assert.True(hostile.Verdict switch
            {
                HostileVerdict.Works => works || (end.Result.ExitCode == ExitCodes.Usage && HostileAssert.IsOverTheTimeBudget(end.Result.Error)),
                HostileVerdict.Refused => end.Result.ExitCode == ExitCodes.Usage,
                _ => works || end.Result.ExitCode == ExitCodes.Usage,
            }, $"{what} of {name}: {end}");
            if (works)
            {
                Assert.Contains(what == "--list" ? $"{HostileDescriptors.Call} (unary)" : "COMPLETED: 1 run", end.Result.Output);
            }
            else
            {
                Assert.Empty(end.Result.Output);
                HostileAssert.IsTheSentence(hostile, what, Assert.Single(end.Result.ErrorLines));
            }
        }

        HostileAssert.LeftNoDescribeFolder(folder.Path, "./loadtest");
    }
}
