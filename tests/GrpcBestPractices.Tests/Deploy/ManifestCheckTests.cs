namespace GrpcBestPractices.Tests.Deploy;

/// <summary>Each check of <see cref="ManifestChecks"/> on a broken sample: a check that cannot fail would prove nothing about deploy/k8s.</summary>
public sealed class ManifestCheckTests
{
    private const string Gateway = "grpc-best-practices/api-gateway";

    [Fact]
    public void ShapeCatchesAMissingNameAndAForeignNamespace()
    {
        var problems = ManifestChecks.Shape(One("""
            apiVersion: v1
            kind: ConfigMap
            metadata:
              namespace: default
            """)).ToList();

        Assert.Contains(problems, problem => problem.Contains("has no metadata.name", StringComparison.Ordinal));
        Assert.Contains(problems, problem => problem.Contains("is in namespace 'default', not grpc-best-practices", StringComparison.Ordinal));
    }

    [Fact]
    public void ASyntaxErrorNamesTheFileAndTheLineWhereTheParserGaveUp()
    {
        var error = Assert.Throws<InvalidDataException>(() => Manifest.Parse("broken.yaml", "kind: Service\nmetadata: [name: x\n").ToList());

        Assert.StartsWith("broken.yaml is not valid YAML at Line: 3", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void IndexedJobCatchesUnequalParallelismAndAShardCountThatDisagrees()
    {
        var problems = ManifestChecks.IndexedJob(One("""
            apiVersion: batch/v1
            kind: Job
            metadata: { name: agents, namespace: grpc-best-practices }
            spec:
              completionMode: Indexed
              completions: 4
              parallelism: 2
              template:
                spec:
                  restartPolicy: OnFailure
                  containers:
                    - name: agent
                      image: grpc-best-practices/load-agent:latest
                      args: ["agent", "--shard", "$(JOB_COMPLETION_INDEX)/3"]
                      env:
                        - { name: JOB_COMPLETION_INDEX, value: "0" }
            """)).ToList();

        Assert.Contains(problems, problem => problem.Contains("parallelism 2 and completions 4", StringComparison.Ordinal));
        Assert.Contains(problems, problem => problem.Contains("has --shard $(JOB_COMPLETION_INDEX)/3; it must be $(JOB_COMPLETION_INDEX)/4", StringComparison.Ordinal));
        Assert.Contains(problems, problem => problem.Contains("does not declare JOB_COMPLETION_INDEX from the job-completion-index annotation", StringComparison.Ordinal));
        Assert.Contains(problems, problem => problem.Contains("sets no backoffLimit", StringComparison.Ordinal));
        Assert.Contains(problems, problem => problem.Contains("sets no ttlSecondsAfterFinished", StringComparison.Ordinal));
        Assert.Contains(problems, problem => problem.Contains("restartPolicy: Never", StringComparison.Ordinal));
    }

    [Fact]
    public void ImagesCatchARepositoryNoProjectBuilds()
    {
        var problems = ManifestChecks.Images(Pod("""
            - name: gateway
              image: grpc-best-practices/apigateway:latest
            - name: postgres
              image: postgres:17
            """), [Gateway], ["postgres"]).ToList();

        Assert.Equal("sample.yaml: Deployment sample runs image 'grpc-best-practices/apigateway:latest', which is neither a ContainerRepository of the apps (grpc-best-practices/api-gateway) nor postgres.", Assert.Single(problems));
    }

    [Fact]
    public void EnvironmentCatchesAMisspeltKeyAndAnUnusedHelper()
    {
        var problems = ManifestChecks.Environment(Pod("""
            - name: gateway
              image: grpc-best-practices/api-gateway:latest
              env:
                - { name: POD_IP, value: "10.0.0.1" }
                - { name: SERVER_IP, value: "10.0.0.2" }
                - { name: AllowedHosts, value: "gateway;$(POD_IP)" }
                - { name: ServerURL, value: "http://performance-service:5000" }
                - { name: Server__Url, value: "http://performance-service:5000" }
                - { name: Protocols__Http1Url, value: "http://performance-service:5002" }
            """), AppSettingKeys.OfImage).ToList();

        Assert.Equal(2, problems.Count);
        Assert.Contains(problems, problem => problem.Contains("sets SERVER_IP on gateway, which that app does not read", StringComparison.Ordinal));
        Assert.Contains(problems, problem => problem.Contains("sets Server__Url on gateway, which that app does not read (as Server:Url)", StringComparison.Ordinal));
    }

    [Theory]
    [InlineData("ServerUrl", true)]
    [InlineData("History:DatabasePath", true)]
    [InlineData("Protocols:CertificatePath", true)]
    [InlineData("Runs:MaxCount", true)]
    [InlineData("urls", true)]
    [InlineData("Protocols:CertificateFolder", false)]
    public void TheGatewaysKeysComeFromItsOptionsAndAppsettings(string key, bool read)
    {
        Assert.Equal(read, AppSettingKeys.Of("ApiGateway").Contains(key));
    }

    [Fact]
    public void SelectorsCatchAServiceWhoseLabelsOrPortsNoPodHas()
    {
        var manifests = Manifest.Parse("sample.yaml", """
            apiVersion: v1
            kind: Service
            metadata: { name: lost, namespace: grpc-best-practices }
            spec:
              selector: { app.kubernetes.io/name: gatway }
              ports: [{ port: 80, targetPort: http }]
            ---
            apiVersion: v1
            kind: Service
            metadata: { name: closed, namespace: grpc-best-practices }
            spec:
              selector: { app.kubernetes.io/name: gateway }
              ports: [{ port: 80, targetPort: 8081 }, { port: 81, targetPort: http }]
            ---
            apiVersion: apps/v1
            kind: Deployment
            metadata: { name: gateway, namespace: grpc-best-practices }
            spec:
              template:
                metadata:
                  labels: { app.kubernetes.io/name: gateway }
                spec:
                  containers:
                    - name: gateway
                      image: grpc-best-practices/api-gateway:latest
                      ports: [{ name: http, containerPort: 8080 }]
            """).ToList();

        var problems = ManifestChecks.Selectors(manifests).ToList();

        Assert.Equal(2, problems.Count);
        Assert.Contains("Service lost selects app.kubernetes.io/name=gatway, which no pod template carries.", problems[0], StringComparison.Ordinal);
        Assert.Contains("Service closed forwards to port 8081, which the pods of gateway do not expose.", problems[1], StringComparison.Ordinal);
    }

    [Fact]
    public void PortsCatchAListenerAProbeAndAScrapeOnUndeclaredPorts()
    {
        var problems = ManifestChecks.Ports(Pod("""
            - name: service
              image: grpc-best-practices/performance-service:latest
              ports: [{ name: h2c, containerPort: 5000 }]
              env:
                - { name: ASPNETCORE_URLS, value: "http://0.0.0.0:5000" }
                - { name: Protocols__Http1Url, value: "http://0.0.0.0:5002" }
                - { name: Protocols__TlsUrl, value: "https://127.0.0.1:5001" }
              readinessProbe: { grpc: { port: 5000 } }
              livenessProbe: { httpGet: { path: /health, port: metrics } }
            """, scrapePort: "5003")).ToList();

        Assert.Equal(3, problems.Count);
        Assert.Contains("listens on http://0.0.0.0:5002 (Protocols__Http1Url) but declares no containerPort 5002.", problems[0], StringComparison.Ordinal);
        Assert.Contains("has a livenessProbe on port metrics, which it does not declare.", problems[1], StringComparison.Ordinal);
        Assert.Contains("asks Prometheus to scrape port 5003, which no container declares.", problems[2], StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("grpc-best-practices/api-gateway:latest", Gateway)]
    [InlineData("registry.example.com:5000/grpc-best-practices/api-gateway", "registry.example.com:5000/grpc-best-practices/api-gateway")]
    [InlineData("grpc-best-practices/api-gateway@sha256:0123abcd", Gateway)]
    public void RepositoryDropsTheTagAndDigestButNotARegistryPort(string image, string repository)
    {
        Assert.Equal(repository, ManifestChecks.Repository(image));
    }

    private static Manifest One(string yaml) => Assert.Single(Manifest.Parse("sample.yaml", yaml));

    private static Manifest Pod(string containers, string? scrapePort = null) => One($$"""
        apiVersion: apps/v1
        kind: Deployment
        metadata: { name: sample, namespace: grpc-best-practices }
        spec:
          template:
            metadata:
              annotations: {{(scrapePort is null ? "{}" : $"{{ prometheus.io/port: \"{scrapePort}\" }}")}}
            spec:
              containers:
        {{Indent(containers, "        ")}}
        """);

    private static string Indent(string text, string indent) => string.Join("\n", text.Split('\n').Select(line => indent + line));
}
