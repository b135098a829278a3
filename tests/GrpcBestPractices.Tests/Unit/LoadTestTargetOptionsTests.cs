using LoadEngine.Clients;
using LoadTest;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>ghz's flags read into the CLI's settings: the address as an argument, the call, its descriptors and data, and the connection.</summary>
public sealed class LoadTestTargetOptionsTests
{
    [Theory]
    [InlineData("https://127.0.0.1:5001/", "127.0.0.1:5001")]
    [InlineData("http://127.0.0.1:5000/", "127.0.0.1:5000", "--insecure")]
    [InlineData("http://127.0.0.1:5000/", "http://127.0.0.1:5000")]
    [InlineData("http://localhost:5000/", "--target", "http://localhost:5000")]
    public void TheAddressIsTargetOrGhzsArgumentWhoseHostPortIsTlsUnlessInsecure(string expected, params string[] arguments)
    {
        Assert.Equal(expected, Read([.. arguments, "--count", "10"]).Target.ToString());
    }

    [Fact]
    public void TheCallItsDescriptorsAndItsDataReachEveryPlan()
    {
        var settings = Read("127.0.0.1:5000", "--insecure", "--call", "pkg.Svc/Method", "--proto", "a.proto", "--proto", "b.proto", "--import-path", "x",
            "-i", "y, z", "-d", "{\"n\":1}", "--count", "10", "--strategy", "client-wrapper");

        var described = settings.Described!;
        Assert.Equal(["a.proto", "b.proto"], described.Source.Protos);
        Assert.Equal(["x", "y", "z"], described.Source.ImportPaths);
        Assert.False(described.List);
        var plan = Assert.Single(settings.Plans);
        Assert.Equal(("pkg.Svc/Method", "{\"n\":1}", (string?)null), (plan.Described?.Call, plan.Described?.Data, plan.Described?.Target));
    }

    [Fact]
    public void ListNeedsNoPlanAndNoCountAndReflectionIsTheDefault()
    {
        var settings = Read("--list", "--target", "http://127.0.0.1:5000");

        Assert.True(settings.Described!.List);
        Assert.True(settings.Described.Source.UsesReflection);
        Assert.Empty(settings.Plans);
    }

    [Fact]
    public void TheConnectionFlagsInGhzsSpellingsBecomeTheEnginesConnection()
    {
        var connection = Read("--target", "https://127.0.0.1:5001", "--count", "10", "--skipTLS", "--authority", "localhost", "-m", "x-a: 1", "-m", "{\"x-b\":\"2\"}", "-e")
            .Engine.Connection;

        Assert.True(connection.InsecureSkipVerify);
        Assert.Equal("localhost", connection.Authority);
        Assert.Equal(TargetConnection.Gzip, connection.Compression);
        Assert.Equal(["x-a=1", "x-b=2"], connection.Metadata.Select(pair => $"{pair.Key}={pair.Value}"));
    }

    [Theory]
    [InlineData("Option '--target' is required.")]
    [InlineData("the address was given twice, --target 'http://127.0.0.1:5000' and the argument '127.0.0.1:5000'; give it once.", "--target", "http://127.0.0.1:5000", "127.0.0.1:5000")]
    [InlineData("--insecure calls in cleartext, and the address https://127.0.0.1:5001/ is https://; give http:// or leave --insecure out.", "https://127.0.0.1:5001", "--insecure")]
    [InlineData("the address was 'a b'; it must be host:port", "a b")]
    [InlineData("--import-path and --import-paths are where --proto's imports are found; give the --proto files too.", "127.0.0.1:5001", "-i", "x")]
    [InlineData("--proto describes the method --call names; give --call", "127.0.0.1:5001", "--proto", "a.proto")]
    [InlineData("--data and --data-file both give the request; give one of them.", "127.0.0.1:5001", "--call", "a.B/C", "-d", "{}", "-D", "a.json")]
    [InlineData("data is the request of a call; name the call it is for", "127.0.0.1:5001", "-d", "{}")]
    [InlineData("--metadata must be 'key: value'", "127.0.0.1:5001", "-m", "nocolon")]
    [InlineData("--compression was 'br'; it must be gzip, or left out for none.", "127.0.0.1:5001", "--compression", "br")]
    [InlineData("--cert and --key go together", "127.0.0.1:5001", "--cert", "c.pem")]
    public void BadTargetOptionsAreOneSentence(string sentence, params string[] arguments)
    {
        var command = new LoadTestCommand();
        var parsed = command.Parse([.. arguments, "--count", "10"]);
        Assert.Empty(parsed.Errors);

        Assert.False(LoadTestSettings.TryRead(parsed, command, true, out _, out var error));

        Assert.Contains(sentence, error);
    }

    [Fact]
    public void AnAgentTakesTheConnectionFromItsOwnCommandLine()
    {
        var command = new LoadTestCommand();
        var parsed = command.Parse(["agent", "--target", "https://127.0.0.1:5001", "--run-id", Guid.NewGuid().ToString(), "--shard", "0/2", "--history", "h.db",
            "--skipTLS", "-m", "x-a: 1"]);
        Assert.Empty(parsed.Errors);

        Assert.True(LoadTestSettings.TryRead(parsed, command, true, out var settings, out var error, withPlans: false), error);

        Assert.True(settings.Engine.Connection.InsecureSkipVerify);
        Assert.Equal("x-a", Assert.Single(settings.Engine.Connection.Metadata).Key);
    }

    private static LoadTestSettings Read(params string[] arguments)
    {
        var command = new LoadTestCommand();
        var parsed = command.Parse(arguments);
        Assert.Empty(parsed.Errors);
        Assert.True(LoadTestSettings.TryRead(parsed, command, true, out var settings, out var error, withPlans: true), error);
        return settings;
    }
}
