using System.ComponentModel.DataAnnotations;
using ApiGateway.Configuration;
using ApiGateway.Endpoints;
using LoadEngine;
using LoadEngine.Protocols;

namespace GrpcBestPractices.Tests.Protocols;

/// <summary>The gateway's side of the workload runs, in this process: its Protocols settings and the catalog GET /api/workloads answers.</summary>
public sealed class GatewayWorkloadTests
{
    [Fact]
    public void TheCatalogListsEveryWorkloadAndTheTwelveContendersSayingWhichThisGatewayCanRun()
    {
        var catalog = WorkloadEndpoints.Catalog(new EngineOptions { Http1Uri = new Uri("http://127.0.0.1:5002"), TlsUri = new Uri("https://127.0.0.1:5001"), TrustedCertificatePath = "/nowhere/service-certificate.pem" });

        Assert.Equal(WorkloadList.Ids, catalog.Workloads.Select(workload => workload.Id));
        Assert.All(catalog.Workloads, workload => Assert.Equal(ContenderList.Names, workload.Contenders));
        Assert.Equal(["fileBytes", "clients"], catalog.Workloads.Single(workload => workload.Id == "file-upload").Parameters.Select(parameter => parameter.Name));
        Assert.Equal(12, catalog.Contenders.Count);
        Assert.All(catalog.Contenders, contender => Assert.Equal(contender.Security == "cleartext", contender.Available));
        Assert.StartsWith("grpc-h2-tls trusts only the service's certificate, named by Protocols:CertificatePath", catalog.Contenders[1].Unavailable);
        Assert.Equal(("rest", "newtonsoft", "1.1", "tls"), (catalog.Contenders[9].Protocol, catalog.Contenders[9].Serializer, catalog.Contenders[9].HttpVersion, catalog.Contenders[9].Security));
    }

    [Theory]
    [InlineData("http://127.0.0.1:5002", "https://127.0.0.1:5001", "x.pem", null)]
    [InlineData("", "", "", null)]
    [InlineData("https://127.0.0.1:5002", "https://127.0.0.1:5001", "x.pem", "Protocols:Http1Url must be empty (no HTTP/1.1 contenders) or an absolute http:// address")]
    [InlineData("http://127.0.0.1:5002", "http://127.0.0.1:5001", "x.pem", "Protocols:TlsUrl must be empty (no TLS contenders) or an absolute https:// address")]
    [InlineData("http://127.0.0.1:5002/rest", "", "", "Protocols:Http1Url must be empty")]
    [InlineData("", "https://127.0.0.1:5001", " ", "Protocols:CertificatePath is required with Protocols:TlsUrl")]
    public void TheGatewaysProtocolsSettingsAreCheckedAtStartNamingTheKey(string http1, string tls, string certificate, string? expected)
    {
        var options = new ProtocolsOptions { Http1Url = http1, TlsUrl = tls, CertificatePath = certificate };
        var results = new List<ValidationResult>();

        Assert.Equal(expected is null, Validator.TryValidateObject(options, new ValidationContext(options), results, validateAllProperties: true));
        Assert.Equal(expected is null ? [] : [expected], results.Select(result => result.ErrorMessage![..expected!.Length]));
    }
}
