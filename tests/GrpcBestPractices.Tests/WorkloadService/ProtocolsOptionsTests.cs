using Microsoft.Extensions.Options;
using PerformanceService.Listeners;

namespace GrpcBestPractices.Tests.WorkloadService;

/// <summary>The Protocols section as the start-up validation sees it: defaults on loopback, empty means off, a bad address is named.</summary>
public sealed class ProtocolsOptionsTests
{
    [Fact]
    public void TheDefaultsAreValidAndListenOnLoopbackOnly()
    {
        var options = new ProtocolsOptions();

        Assert.True(Validate(options).Succeeded);
        Assert.Equal(new ListenAddress("http", "127.0.0.1", 5002, null), options.Http1Address);
        Assert.Equal(new ListenAddress("https", "127.0.0.1", 5001, null), options.TlsAddress);
        Assert.Equal("data", options.CertificateFolder);
    }

    [Fact]
    public void AnEmptyUrlTurnsThatListenerOff()
    {
        var options = new ProtocolsOptions { Http1Url = "", TlsUrl = " " };

        Assert.True(Validate(options).Succeeded);
        Assert.Null(options.Http1Address);
        Assert.Null(options.TlsAddress);
    }

    [Theory]
    [InlineData("https://127.0.0.1:5002", "https://127.0.0.1:5001", "Protocols:Http1Url must start with http:// ('https://127.0.0.1:5002' does not); TLS has its own listener, Protocols:TlsUrl.")]
    [InlineData("http://127.0.0.1:5002", "http://127.0.0.1:5001", "Protocols:TlsUrl must start with https:// ('http://127.0.0.1:5001' does not); it is the TLS listener.")]
    [InlineData("127.0.0.1:5002", "https://127.0.0.1:5001", "Protocols:Http1Url must be an address such as http://127.0.0.1:5000; '127.0.0.1:5002' is not one.")]
    [InlineData("http://127.0.0.1:5002/rest", "https://127.0.0.1:5001", "Protocols:Http1Url is a listening address and cannot have a path; 'http://127.0.0.1:5002/rest' has '/rest'.")]
    [InlineData("http://127.0.0.1:5002", "https://localhost:0", "Protocols:TlsUrl: port 0 (any free port) needs an IP address such as 127.0.0.1, not localhost ('https://localhost:0').")]
    public void ABadAddressFailsNamingTheKeyAndWhatIsAllowed(string http1, string tls, string message)
    {
        var result = Validate(new ProtocolsOptions { Http1Url = http1, TlsUrl = tls });

        Assert.True(result.Failed);
        Assert.Contains(message, result.FailureMessage);
    }

    [Fact]
    public void ACertificateFolderIsRequired()
    {
        var result = Validate(new ProtocolsOptions { CertificateFolder = "" });

        Assert.Contains("Protocols:CertificateFolder must name the folder", result.FailureMessage);
    }

    [Theory]
    [InlineData("http://0.0.0.0:5002", "0.0.0.0", 5002)]
    [InlineData("http://*:5002", "*", 5002)]
    [InlineData("http://[::1]:0", "[::1]", 0)]
    [InlineData("http://localhost:5002", "localhost", 5002)]
    public void AnyAddressKestrelTakesIsTakenWhenConfigured(string url, string host, int port)
    {
        Assert.True(ListenAddress.TryParse(url, "http", "--urls", out var address, out var problem), problem);

        Assert.Equal(host, address.Host);
        Assert.Equal(port, address.Port);
    }

    private static ValidateOptionsResult Validate(ProtocolsOptions options) =>
        new DataAnnotationValidateOptions<ProtocolsOptions>(null).Validate(null, options);
}
