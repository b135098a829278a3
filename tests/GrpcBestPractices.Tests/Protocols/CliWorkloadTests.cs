using GrpcBestPractices.Tests.Fakes;
using GrpcBestPractices.Tests.Infrastructure;
using LoadEngine.Protocols;
using LoadTest;

namespace GrpcBestPractices.Tests.Protocols;

/// <summary>The CLI's workload options, read in this process: the plans they make, the listeners they name, and the sentence when they cannot run.</summary>
public sealed class CliWorkloadTests
{
    private const string Target = "http://127.0.0.1:5000";

    [Fact]
    public void TheCliRunsAWorkloadOnTheContenderItsFieldsNameAgainstTheListenersGiven()
    {
        using var folder = new TemporaryFolder();
        using var certificate = TestCertificates.SelfSigned("the service");
        var pem = TestCertificates.WritePem(certificate, folder.Path);

        var settings = Read("--target", Target, "--workload", "file-upload", "--protocol", "rest", "--serializer", "newtonsoft", "--http-version", "2",
            "--security", "tls", "--file-bytes", "10485760", "--clients", "8", "--load", "closed", "--concurrency", "8",
            "--http1-target", "http://127.0.0.1:5002", "--tls-target", "https://127.0.0.1:5001", "--trust-certificate", pem);

        var plan = Assert.Single(settings.Plans);
        Assert.False(settings.IsSuite);
        Assert.Equal(("rest-newtonsoft-h2-tls", "file-upload", 10_485_760L, 8, 10), (plan.Strategy, plan.Workload!.Id, plan.Workload.FileBytes, plan.Workload.Clients, plan.Count));
        Assert.Equal((new Uri("http://127.0.0.1:5002"), new Uri("https://127.0.0.1:5001"), pem), (settings.Engine.Http1Uri, settings.Engine.TlsUri, settings.Engine.TrustedCertificatePath));
    }

    [Fact]
    public void ContendersAllRunsEveryContenderThatCanRunTheWorkloadInTurnAsASuite()
    {
        using var folder = new TemporaryFolder();
        using var certificate = TestCertificates.SelfSigned("the service");
        string[] listeners = ["--http1-target", "http://127.0.0.1:5002", "--tls-target", "https://127.0.0.1:5001", "--trust-certificate", TestCertificates.WritePem(certificate, folder.Path)];

        var every = Read(["--target", Target, "--workload", "small-ints", "--contenders", "all", .. listeners]);
        var streams = Read(["--target", Target, "--workload", "bulk-read", "--variant", "stream", "--users", "5000", "--contenders", "all", .. listeners]);
        var two = Read("--target", Target, "--workload", "big-list", "--contenders", "grpc-h2-cleartext, rest-stj-h2-cleartext");

        Assert.True(every.IsSuite);
        Assert.Equal(ContenderList.Names, every.Plans.Select(plan => plan.Strategy));
        Assert.Equal(["grpc-h2-cleartext", "grpc-h2-tls", "grpc-code-first-h2-cleartext", "grpc-code-first-h2-tls"], streams.Plans.Select(plan => plan.Strategy));
        Assert.Equal(["grpc-h2-cleartext", "rest-stj-h2-cleartext"], two.Plans.Select(plan => plan.Strategy));
    }

    [Theory]
    [InlineData("--strategy is not an option of compare but of run.", "--strategy", "client-wrapper", "--workload", "small-ints", "--protocol", "grpc")]
    [InlineData("--contenders is not an option of run but of compare.", "--contenders", "all", "--count", "5")]
    [InlineData("--contenders names the contenders itself", "--workload", "small-ints", "--contenders", "all", "--protocol", "grpc")]
    [InlineData("contenders was 'grpc-h3'; it must be all or names separated by commas, from: grpc-h2-cleartext,", "--workload", "small-ints", "--contenders", "grpc-h3")]
    [InlineData("httpVersion was '1.1' with protocol grpc-code-first; gRPC needs HTTP/2", "--workload", "small-ints", "--protocol", "grpc-code-first", "--http-version", "1.1")]
    [InlineData("fileBytes was '209715200'; it must be a whole number of bytes from 1024 to 104857600", "--workload", "file-upload", "--protocol", "grpc", "--file-bytes", "209715200")]
    [InlineData("--protocol is not an option of run but of compare.", "--strategy", "client-wrapper", "--count", "5", "--protocol", "rest")]
    [InlineData("rest-stj-h1-cleartext calls the service's cleartext HTTP/1.1 listener, and --http1-target gives none.", "--workload", "small-ints", "--protocol", "rest")]
    [InlineData("grpc-h2-tls calls the service's TLS listener, and --tls-target gives none.", "--workload", "small-ints", "--protocol", "grpc", "--security", "tls")]
    [InlineData("grpc-h2-tls trusts only the service's certificate, named by --trust-certificate, and the certificate file '' does not exist", "--workload", "small-ints", "--protocol", "grpc", "--security", "tls", "--tls-target", "https://127.0.0.1:5001")]
    [InlineData("--tls-target must be an absolute https:// address with no path, e.g. https://127.0.0.1:5001; it was 'http://127.0.0.1:5001'.", "--workload", "small-ints", "--protocol", "grpc", "--tls-target", "http://127.0.0.1:5001")]
    [InlineData("trust-certificate was 'no-such.pem'; no such file.", "--workload", "small-ints", "--protocol", "grpc", "--trust-certificate", "no-such.pem")]
    public void AWorkloadCommandLineThatCannotRunSaysWhy(string sentence, params string[] arguments)
    {
        var command = new LoadTestCommand();
        var parsed = command.Parse(["--target", Target, .. arguments]);

        // The parser refuses an option of another command; the settings' rules, a value that cannot run.
        var error = parsed.Errors.Count > 0 ? command.Problem(parsed) : LoadTestSettings.TryRead(parsed, command, true, out _, out var problem) ? "" : problem;

        Assert.Contains(sentence, error);
    }

    private static LoadTestSettings Read(params string[] arguments)
    {
        var command = new LoadTestCommand();
        var parsed = command.Parse(arguments);
        Assert.Empty(parsed.Errors);
        Assert.True(LoadTestSettings.TryRead(parsed, command, true, out var settings, out var error), error);
        return settings;
    }
}
