using ApiGateway.Targets;
using GrpcBestPractices.Tests.Infrastructure;
using LoadEngine;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.FileProviders;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;

namespace GrpcBestPractices.Tests.Targets;

/// <summary>The Targets section: bound as one file or a list, checked at start with one sentence per problem naming its key.</summary>
public sealed class TargetOptionsTests
{
    [Fact]
    public void ATargetBindsItsAddressDescriptionMetadataAndTls()
    {
        using var folder = new TemporaryFolder();
        var proto = Write(folder, "inventory.proto", "syntax = \"proto3\";");
        var targets = Bind(folder.Path, new()
        {
            ["Targets:inventory:Address"] = "https://localhost:50051",
            ["Targets:inventory:Proto"] = proto,
            ["Targets:inventory:Metadata:authorization"] = "Bearer secret",
            ["Targets:inventory:Authority"] = "inventory.example.com",
            ["Targets:inventory:InsecureSkipVerify"] = "true",
            ["Targets:inventory:Compression"] = "gzip",
        });

        var inventory = targets.Targets["inventory"];
        Assert.Equal(new Uri("https://localhost:50051"), inventory.AddressUri);
        Assert.Equal([proto], inventory.Proto);
        Assert.Equal("proto", inventory.DescribedBy);
        Assert.Equal("Bearer secret", inventory.Metadata["authorization"]);
        Assert.True(inventory.InsecureSkipVerify);
        Assert.Equal([TargetsOptions.BuiltIn, "inventory"], targets.Names);
    }

    [Fact]
    public void ProtoFilesMayBeAListAndNoneMeansReflection()
    {
        using var folder = new TemporaryFolder();
        var targets = Bind(folder.Path, new()
        {
            ["Targets:a:Address"] = "http://127.0.0.1:1",
            ["Targets:a:Proto:0"] = Write(folder, "one.proto", ""),
            ["Targets:a:Proto:1"] = Write(folder, "two.proto", ""),
            ["Targets:a:ImportPaths:0"] = folder.Path,
            ["Targets:b:Address"] = "http://[::1]:2",
        });

        Assert.Equal(2, targets.Targets["a"].Proto.Count);
        Assert.Equal("reflection", targets.Targets["b"].DescribedBy);
    }

    [Theory]
    [InlineData("http://10.0.0.1:50051")]
    [InlineData("https://billing.example.com")]
    [InlineData("http://billing.staging.svc.cluster.local:8080")]
    [InlineData("http://billing:8080")]
    [InlineData("https://[2001:db8::7]:443")]
    public void ATargetMayBeAnyHostTheOperatorNames(string address)
    {
        using var folder = new TemporaryFolder();

        var targets = Bind(folder.Path, new() { ["Targets:billing:Address"] = address });

        Assert.Equal(new Uri(address), targets.Targets["billing"].AddressUri);
    }

    [Theory]
    [InlineData("Address", "http://127.0.0.1:50051#part", "Targets:inventory:Address must be an absolute http:// or https:// address of a host and port")]
    [InlineData("Address", "billing.staging.svc.cluster.local:8080", "Targets:inventory:Address must be an absolute http:// or https:// address of a host and port")]
    [InlineData("Address", "http://ops:hunter2@billing.staging:8080", "Targets:inventory:Address holds a user name or password before its host, which gRPC never sends; give credentials as Targets:inventory:Metadata (the address is not shown).")]
    [InlineData("Address", "ftp://127.0.0.1:50051", "Targets:inventory:Address must be an absolute http:// or https:// address")]
    [InlineData("Address", "http://127.0.0.1:50051/path", "Targets:inventory:Address must be an absolute http:// or https:// address")]
    [InlineData("Proto", "missing.proto", "Targets:inventory:Proto:0 must be a file")]
    [InlineData("Protoset", "missing.protoset", "Targets:inventory:Protoset must be a file")]
    [InlineData("CaCertificate", "missing.pem", "Targets:inventory:CaCertificate applies to TLS, and the target http://127.0.0.1:50051/ is cleartext")]
    [InlineData("Compression", "brotli", "Targets:inventory:Compression was 'brotli'; it must be gzip, or left out for none.")]
    [InlineData("ImportPaths", "protos", "Targets:inventory:ImportPaths are where Proto files' imports are found")]
    [InlineData("Metadata:grpc-timeout", "1S", "Targets:inventory:Metadata key 'grpc-timeout' cannot be sent")]
    [InlineData("Metadata:token-bin", "not base64!", "Targets:inventory:Metadata:token-bin ends in -bin, so its value must be base64; it is not (the value is not shown).")]
    public void ABadSettingFailsAtStartNamingItsKey(string key, string value, string sentence)
    {
        using var folder = new TemporaryFolder();
        var settings = new Dictionary<string, string?> { ["Targets:inventory:Address"] = "http://127.0.0.1:50051" };
        settings[$"Targets:inventory:{key}"] = value;

        var failure = Assert.Throws<OptionsValidationException>(() => Bind(folder.Path, settings));

        Assert.Contains(failure.Failures, problem => problem.Contains(sentence, StringComparison.Ordinal));
    }

    [Fact]
    public void AMetadataValueIsNeverInTheSentence()
    {
        using var folder = new TemporaryFolder();
        var failure = Assert.Throws<OptionsValidationException>(() => Bind(folder.Path, new()
        {
            ["Targets:inventory:Address"] = "http://127.0.0.1:50051",
            ["Targets:inventory:Metadata:token-bin"] = "the-secret-value",
        }));

        Assert.DoesNotContain("the-secret-value", failure.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("performance", "'performance' is the built-in PerformanceService at ServerUrl")]
    [InlineData("in ventory", "a target's name may hold letters, digits")]
    public void TheBuiltInNameAndOddNamesAreRefused(string name, string sentence)
    {
        using var folder = new TemporaryFolder();
        var failure = Assert.Throws<OptionsValidationException>(() => Bind(folder.Path, new() { [$"Targets:{name}:Address"] = "http://127.0.0.1:50051" }));

        Assert.Contains(failure.Failures, problem => problem.Contains(sentence, StringComparison.Ordinal));
    }

    [Fact]
    public void ClientCertificateWithoutKeyIsRefused()
    {
        using var folder = new TemporaryFolder();
        var failure = Assert.Throws<OptionsValidationException>(() => Bind(folder.Path, new()
        {
            ["Targets:inventory:Address"] = "https://127.0.0.1:50051",
            ["Targets:inventory:ClientCertificate"] = Write(folder, "client.pem", "-"),
        }));

        Assert.Contains(failure.Failures, problem => problem.StartsWith("Targets:inventory:ClientCertificate and Targets:inventory:ClientKey go together", StringComparison.Ordinal));
    }

    [Fact]
    public void ATargetsEngineCallsItsAddressUnderTheGatewaysLimits()
    {
        using var folder = new TemporaryFolder();
        using var services = Services(folder.Path, new()
        {
            ["Targets:inventory:Address"] = "http://127.0.0.1:50051",
        });
        var engines = services.GetRequiredService<TargetEngines>();

        var target = engines.Services("inventory").GetRequiredService<IOptions<EngineOptions>>().Value;

        Assert.Equal(new Uri("http://127.0.0.1:50051"), target.ServerUri);
        Assert.Equal(TimeSpan.FromSeconds(7), target.CallTimeout);
        Assert.Null(target.TlsUri);
        Assert.Equal("Targets:inventory:Metadata", target.Connection.SettingNames.Metadata);
        Assert.Same(services.GetRequiredService<IOptions<EngineOptions>>(), engines.Services(null).GetRequiredService<IOptions<EngineOptions>>());
        Assert.Same(services.GetRequiredService<IOptions<EngineOptions>>(), engines.Services(TargetsOptions.BuiltIn).GetRequiredService<IOptions<EngineOptions>>());
    }

    private static string Write(TemporaryFolder folder, string name, string text)
    {
        File.WriteAllText(folder.File(name), text);
        return folder.File(name);
    }

    private static TargetsOptions Bind(string root, Dictionary<string, string?> settings)
    {
        using var services = Services(root, settings);
        return services.GetRequiredService<IOptions<TargetsOptions>>().Value;
    }

    private static ServiceProvider Services(string root, Dictionary<string, string?> settings)
    {
        var configuration = new ConfigurationBuilder().AddInMemoryCollection(settings).Build();
        var services = new ServiceCollection();
        services.AddSingleton<IConfiguration>(configuration);
        services.AddSingleton<IHostEnvironment>(new TestEnvironment(root));
        services.AddSingleton<ILoggerFactory>(NullLoggerFactory.Instance);
        services.AddOptions<EngineOptions>().Configure(engine => engine.CallTimeout = TimeSpan.FromSeconds(7));
        services.AddTargets();
        return services.BuildServiceProvider();
    }

    private sealed class TestEnvironment(string root) : IHostEnvironment
    {
        public string EnvironmentName { get; set; } = "Test";

        public string ApplicationName { get; set; } = "ApiGateway";

        public string ContentRootPath { get; set; } = root;

        public IFileProvider ContentRootFileProvider { get; set; } = new NullFileProvider();
    }
}
