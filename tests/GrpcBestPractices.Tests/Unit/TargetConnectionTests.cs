using System.Security.Cryptography.X509Certificates;
using Grpc.Core;
using GrpcBestPractices.Tests.Fakes;
using GrpcBestPractices.Tests.Infrastructure;
using LoadEngine;
using LoadEngine.Clients;
using Microsoft.Extensions.Options;

namespace GrpcBestPractices.Tests.Unit;

/// <summary>The target's connection settings read and checked: each bad one is one sentence that names it, as the user spells it.</summary>
public sealed class TargetConnectionTests : IDisposable
{
    private static readonly Uri Secure = new("https://127.0.0.1:5001");
    private static readonly Uri Cleartext = new("http://127.0.0.1:5000");

    private readonly TemporaryFolder _folder = new();

    public void Dispose() => _folder.Dispose();

    [Fact]
    public void NothingSetLoadsToNoTlsOptionsNoInterceptorAndNoAuthority()
    {
        Assert.True(new TargetConnection().TryLoad(Secure, out var loaded, out _));

        Assert.Null(loaded.SslOptions());
        Assert.Empty(loaded.Headers);
        Assert.Null(loaded.Authority);
    }

    [Fact]
    public void ACaCertificateBecomesTheOnlyRootOfTheChainPolicy()
    {
        using var ca = TestCertificates.SelfSigned("test-ca");
        var path = TestCertificates.WritePem(ca, _folder.Path);

        Assert.True(Cli(new() { CaCertificate = path }).TryLoad(Secure, out var loaded, out var error), error);

        var policy = loaded.SslOptions()!.CertificateChainPolicy!;
        Assert.Equal(X509ChainTrustMode.CustomRootTrust, policy.TrustMode);
        Assert.Equal(ca.Thumbprint, Assert.Single(policy.CustomTrustStore).Thumbprint);
        Assert.Null(loaded.SslOptions()!.RemoteCertificateValidationCallback);
    }

    [Fact]
    public void AClientCertificateAndKeyLoadAsOneCertificateWithItsPrivateKey()
    {
        var (certificate, key) = WriteClientPair("client");

        Assert.True(Cli(new() { ClientCertificate = certificate, ClientKey = key }).TryLoad(Secure, out var loaded, out var error), error);

        var presented = Assert.Single(loaded.SslOptions()!.ClientCertificates!.Cast<X509Certificate2>());
        Assert.True(presented.HasPrivateKey);
        Assert.Equal("CN=client", presented.Subject);
    }

    [Fact]
    public void SkippingVerificationAcceptsAnyCertificateOnlyWhenAskedForByName()
    {
        Assert.True(Cli(new() { InsecureSkipVerify = true }).TryLoad(Secure, out var loaded, out _));

        Assert.True(loaded.SslOptions()!.RemoteCertificateValidationCallback!(this, null, null, System.Net.Security.SslPolicyErrors.RemoteCertificateChainErrors));
    }

    [Fact]
    public void MetadataAndGzipBecomeHeadersOfEveryCallWithBinaryValuesDecodedFromBase64()
    {
        var connection = Cli(new()
        {
            Metadata = [new("X-Tenant", "blue"), new("trace-bin", Convert.ToBase64String([1, 2, 255]))],
            Compression = TargetConnection.Gzip,
        });

        Assert.True(connection.TryLoad(Cleartext, out var loaded, out var error), error);

        Assert.Collection(
            loaded.Headers,
            tenant => Assert.Equal(("x-tenant", "blue"), (tenant.Key, tenant.Value)),
            trace => Assert.Equal("trace-bin:AQL/", $"{trace.Key}:{Convert.ToBase64String(trace.ValueBytes)}"),
            gzip => Assert.Equal(("grpc-internal-encoding-request", "gzip"), (gzip.Key, gzip.Value)));
    }

    [Fact]
    public async Task EveryKindOfCallOnTheFactorysInvokersCarriesTheMetadataBeforeItsOwnHeaders()
    {
        var recorder = new RecordingInvoker();
        var channels = new ChannelFactory(Options.Create(new EngineOptions { Connection = new() { Metadata = [new("x-tenant", "blue")] } }));
        var invoker = channels.Connection.Intercept(recorder);
        var unary = new Method<string, string>(MethodType.Unary, "s", "m", Marshallers.StringMarshaller, Marshallers.StringMarshaller);
        var own = new CallOptions(new Metadata { { "x-own", "1" } });

        await invoker.AsyncUnaryCall(unary, null, own, "request");
        _ = invoker.AsyncServerStreamingCall(unary, null, default, "request");
        _ = invoker.AsyncClientStreamingCall(unary, null, default);
        _ = invoker.AsyncDuplexStreamingCall(unary, null, default);

        Assert.Equal(["x-tenant=blue,x-own=1", "x-tenant=blue", "x-tenant=blue", "x-tenant=blue"], recorder.Headers);
    }

    [Fact]
    public void WithNothingToAddTheInvokerIsTheChannelsOwn()
    {
        var recorder = new RecordingInvoker();

        Assert.Same(recorder, new ChannelFactory(Options.Create(new EngineOptions())).Connection.Intercept(recorder));
    }

    public static TheoryData<string, string> BadSettings() => new()
    {
        { "cacert-on-cleartext", "--cacert applies to TLS, and the target http://127.0.0.1:5000/ is cleartext (http://); give an https:// address or leave --cacert out." },
        { "missing-cacert", "--cacert '/nowhere/ca.pem' does not exist; it names a PEM file of the CA certificates the target's certificate must chain to." },
        { "cacert-not-pem", "--cacert '{folder}/not.pem' holds no PEM certificate (no -----BEGIN CERTIFICATE----- block)." },
        { "cert-without-key", "--cert and --key go together: the client certificate and its private key, both PEM files." },
        { "skip-and-cacert", "--insecure-skip-verify accepts any certificate, so --cacert would change nothing; give one of them." },
        { "compression", "--compression was 'brotli'; it must be gzip, or left out for none." },
        { "authority", "--authority was 'a b'; it must be a host name, optionally with a port, e.g. api.example.com or localhost:5001." },
        { "reserved-key", "--metadata key 'grpc-timeout' cannot be sent: a key is letters, digits, '-', '_' and '.', and neither grpc-* nor host, te, content-type, user-agent, connection, which the call sets itself." },
        { "bin-not-base64", "--metadata 'trace-bin' ends in -bin, so its value must be base64; it is not (the value is not shown)." },
        { "binary-value", "--metadata 'x-tenant' has a value with characters outside printable ASCII; binary values go under a key ending in -bin, in base64." },
    };

    [Theory]
    [MemberData(nameof(BadSettings))]
    public void EachBadSettingIsOneSentenceNamingIt(string setting, string sentence)
    {
        File.WriteAllText(Path.Combine(_folder.Path, "not.pem"), "hello");
        var (connection, target) = setting switch
        {
            "cacert-on-cleartext" => (new TargetConnection { CaCertificate = "ca.pem" }, Cleartext),
            "missing-cacert" => (new TargetConnection { CaCertificate = "/nowhere/ca.pem" }, Secure),
            "cacert-not-pem" => (new TargetConnection { CaCertificate = Path.Combine(_folder.Path, "not.pem") }, Secure),
            "cert-without-key" => (new TargetConnection { ClientCertificate = "client.pem" }, Secure),
            "skip-and-cacert" => (new TargetConnection { CaCertificate = "ca.pem", InsecureSkipVerify = true }, Secure),
            "compression" => (new TargetConnection { Compression = "brotli" }, Secure),
            "authority" => (new TargetConnection { Authority = "a b" }, Secure),
            "reserved-key" => (new TargetConnection { Metadata = [new("grpc-timeout", "1S")] }, Secure),
            "bin-not-base64" => (new TargetConnection { Metadata = [new("trace-bin", "not base64!")] }, Secure),
            _ => (new TargetConnection { Metadata = [new("x-tenant", "blue\n")] }, Secure),
        };

        Assert.False(Cli(connection).TryLoad(target, out _, out var error));

        Assert.Equal(sentence.Replace("{folder}", _folder.Path), error);
    }

    [Fact]
    public void AKeyThatIsNotTheCertificatesIsOneSentence()
    {
        var (certificate, _) = WriteClientPair("client");
        var (_, otherKey) = WriteClientPair("other");

        Assert.False(Cli(new() { ClientCertificate = certificate, ClientKey = otherKey }).TryLoad(Secure, out _, out var error));

        Assert.StartsWith($"--cert '{certificate}' with --key '{otherKey}' is not a PEM certificate and its matching private key (", error);
        Assert.EndsWith(").", error);
    }

    [Fact]
    public void AConfigurationSectionNamesItsKeys()
    {
        var connection = new TargetConnection { Compression = "zstd", SettingNames = ConnectionSettingNames.Under("Targets:inventory") };

        Assert.False(connection.TryLoad(Secure, out _, out var error));

        Assert.Equal("Targets:inventory:Compression was 'zstd'; it must be gzip, or left out for none.", error);
    }

    [Theory]
    [InlineData("x-tenant: blue", "x-tenant=blue")]
    [InlineData("authorization:Bearer a:b", "authorization=Bearer a:b")]
    [InlineData("{\"x-tenant\":\"blue\",\"x-zone\":\"eu\"}", "x-tenant=blue,x-zone=eu")]
    public void MetadataIsReadInGhzForms(string text, string pairs)
    {
        Assert.True(TargetConnection.TryParseMetadata(text, "--metadata", out var parsed, out var error), error);

        Assert.Equal(pairs, string.Join(',', parsed.Select(pair => $"{pair.Key}={pair.Value}")));
    }

    [Theory]
    [InlineData("Bearer s3cr3t-t0ken-value", "--metadata must be 'key: value' (or a JSON object {\"key\":\"value\"}); what was given has no key before a ':', and is not shown, as it may hold a secret.")]
    [InlineData("{\"n\":1, \"authorization\": \"s3cr3t-t0ken-value\"}", "--metadata: the value of \"n\" must be a JSON string.")]
    [InlineData("{\"authorization\": s3cr3t-t0ken-value}", "--metadata is not a JSON object of strings (invalid at line 1, byte 19; the text is not shown, as it may hold a secret); give 'key: value' or {\"key\":\"value\"}.")]
    public void MetadataInNeitherFormIsOneSentenceThatNeverQuotesTheValue(string text, string sentence)
    {
        Assert.False(TargetConnection.TryParseMetadata(text, "--metadata", out _, out var error));

        Assert.Equal(sentence, error);
        Assert.DoesNotContain("s3cr3t", error);
    }

    private static TargetConnection Cli(TargetConnection connection)
    {
        connection.SettingNames = ConnectionSettingNames.Cli;
        return connection;
    }

    private (string Certificate, string Key) WriteClientPair(string name)
    {
        var (certificate, key, _) = TestCertificates.WriteClientPair(_folder.Path, name);
        return (certificate, key);
    }

    /// <summary>An invoker that keeps each call's headers and answers nothing.</summary>
    private sealed class RecordingInvoker : CallInvoker
    {
        public List<string> Headers { get; } = [];

        public override TResponse BlockingUnaryCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options, TRequest request) =>
            throw new NotSupportedException();

        public override AsyncUnaryCall<TResponse> AsyncUnaryCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options, TRequest request)
        {
            Record(options);
            return new(Task.FromResult(default(TResponse)!), Task.FromResult(new Metadata()), () => Status.DefaultSuccess, () => [], () => { });
        }

        public override AsyncServerStreamingCall<TResponse> AsyncServerStreamingCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options, TRequest request)
        {
            Record(options);
            return null!;
        }

        public override AsyncClientStreamingCall<TRequest, TResponse> AsyncClientStreamingCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options)
        {
            Record(options);
            return null!;
        }

        public override AsyncDuplexStreamingCall<TRequest, TResponse> AsyncDuplexStreamingCall<TRequest, TResponse>(Method<TRequest, TResponse> method, string? host, CallOptions options)
        {
            Record(options);
            return null!;
        }

        private void Record(CallOptions options) => Headers.Add(string.Join(',', (options.Headers ?? []).Select(entry => $"{entry.Key}={entry.Value}")));
    }
}
