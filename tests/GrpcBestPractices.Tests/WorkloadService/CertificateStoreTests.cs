using System.Net;
using System.Runtime.Versioning;
using System.Security.Cryptography.X509Certificates;
using GrpcBestPractices.Tests.Infrastructure;
using Microsoft.Extensions.Time.Testing;
using PerformanceService.Listeners;

namespace GrpcBestPractices.Tests.WorkloadService;

/// <summary>The service's certificate files, made and reused in a folder of the test's own: no process, no socket.</summary>
[UnsupportedOSPlatform("windows")]
public sealed class CertificateStoreTests : IDisposable
{
    private readonly TemporaryFolder _folder = new();
    private readonly FakeTimeProvider _time = new(new DateTimeOffset(2026, 11, 22, 12, 0, 0, TimeSpan.Zero));

    [Fact]
    public void TheFirstLoadMakesASelfSignedServerCertificateForTheLoopbackNamesValidForAYear()
    {
        var (certificate, origin) = Store().LoadOrCreate();
        using (certificate)
        {
            Assert.Equal(CertificateOrigin.Created, origin);
            Assert.True(certificate.HasPrivateKey);
            Assert.Equal(certificate.SubjectName.Name, certificate.IssuerName.Name);
            Assert.NotNull(certificate.GetECDsaPublicKey());
            Assert.Equal(_time.GetUtcNow().AddYears(1).UtcDateTime, certificate.NotAfter.ToUniversalTime());
            Assert.True(certificate.NotBefore.ToUniversalTime() <= _time.GetUtcNow().UtcDateTime);
            var names = certificate.Extensions.OfType<X509SubjectAlternativeNameExtension>().Single();
            Assert.Equal(["localhost"], names.EnumerateDnsNames());
            Assert.Equal([IPAddress.Loopback, IPAddress.IPv6Loopback], names.EnumerateIPAddresses());
            var usage = certificate.Extensions.OfType<X509EnhancedKeyUsageExtension>().Single();
            Assert.Equal("1.3.6.1.5.5.7.3.1", Assert.Single(usage.EnhancedKeyUsages.Cast<System.Security.Cryptography.Oid>()).Value);
        }
    }

    [Fact]
    public void TheKeyFileIsReadableByItsOwnerOnlyAndThePemHoldsOnlyThePublicCertificate()
    {
        using var certificate = Store().LoadOrCreate().Certificate;

        Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite, File.GetUnixFileMode(_folder.File(CertificateStore.PfxName)));
        var pem = File.ReadAllText(_folder.File(CertificateStore.PemName));
        Assert.DoesNotContain("PRIVATE KEY", pem);
        using var published = X509Certificate2.CreateFromPem(pem);
        Assert.Equal(certificate.Thumbprint, published.Thumbprint);
        Assert.Empty(Directory.GetFiles(_folder.Path, "*.tmp"));
    }

    [Fact]
    public void ALaterLoadReusesTheSameCertificate()
    {
        using var first = Store().LoadOrCreate().Certificate;
        var pem = File.ReadAllText(_folder.File(CertificateStore.PemName));

        var (second, origin) = Store().LoadOrCreate();
        using (second)
        {
            Assert.Equal(CertificateOrigin.Reused, origin);
            Assert.Equal(first.Thumbprint, second.Thumbprint);
            Assert.Equal(pem, File.ReadAllText(_folder.File(CertificateStore.PemName)));
        }
    }

    [Fact]
    public void AnExpiredCertificateIsReplacedAndItsPemWithIt()
    {
        using var first = Store().LoadOrCreate().Certificate;

        _time.Advance(TimeSpan.FromDays(366));
        var (renewed, origin) = Store().LoadOrCreate();
        using (renewed)
        {
            Assert.Equal(CertificateOrigin.RenewedAfterExpiry, origin);
            Assert.NotEqual(first.Thumbprint, renewed.Thumbprint);
            using var published = X509Certificate2.CreateFromPem(File.ReadAllText(_folder.File(CertificateStore.PemName)));
            Assert.Equal(renewed.Thumbprint, published.Thumbprint);
        }
    }

    [Fact]
    public void AKeyFileWidenedByACopyIsMadeOwnerOnlyAgainAndAMissingPemIsWrittenAgain()
    {
        using var first = Store().LoadOrCreate().Certificate;
        File.SetUnixFileMode(_folder.File(CertificateStore.PfxName), UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.GroupRead | UnixFileMode.OtherRead);
        File.Delete(_folder.File(CertificateStore.PemName));

        using var second = Store().LoadOrCreate().Certificate;

        Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite, File.GetUnixFileMode(_folder.File(CertificateStore.PfxName)));
        using var published = X509Certificate2.CreateFromPem(File.ReadAllText(_folder.File(CertificateStore.PemName)));
        Assert.Equal(first.Thumbprint, published.Thumbprint);
    }

    [Fact]
    public void AnUnreadableKeyFileFailsWithASentenceSayingWhatToDo()
    {
        File.WriteAllText(_folder.File(CertificateStore.PfxName), "not a certificate");

        var error = Assert.Throws<InvalidOperationException>(() => Store().LoadOrCreate());

        Assert.Contains(_folder.File(CertificateStore.PfxName), error.Message);
        Assert.Contains("delete it and service-certificate.pem beside it, and the next start makes a new pair", error.Message);
    }

    [Fact]
    public void AFolderThatDoesNotExistYetIsMadeForTheOwnerOnly()
    {
        var nested = Path.Combine(_folder.Path, "data");

        using var certificate = new CertificateStore(nested, _time).LoadOrCreate().Certificate;

        Assert.True(File.Exists(Path.Combine(nested, CertificateStore.PfxName)));
        Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute, File.GetUnixFileMode(nested));
    }

    public void Dispose() => _folder.Dispose();

    private CertificateStore Store() => new(_folder.Path, _time);
}
