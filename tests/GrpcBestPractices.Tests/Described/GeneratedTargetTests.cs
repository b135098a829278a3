using LoadEngine.Targets.Described;

namespace GrpcBestPractices.Tests.Described;

/// <summary>The built-in service's contracts, already compiled into the process, describe it with no protoc and no compiler.</summary>
public sealed class GeneratedTargetTests
{
    [Fact]
    public async Task TheBuiltInContractsDescribeTheirMethodsAndAPlanCarryingTheirSetCallsThroughTheSameClasses()
    {
        var target = DescribedTarget.FromGenerated([Performance.PerformanceReflection.Descriptor, Workloads.ContractFirst.WorkloadsReflection.Descriptor]);

        Assert.Equal(Grpc.Core.MethodType.DuplexStreaming, target.Find("performance.Monitor/GetManyPerformanceStats").Kind);
        Assert.Contains(target.Methods, method => method.Call.StartsWith("workloads.Workloads/", StringComparison.Ordinal));
        // A stored plan carries the set; reading it back finds the same target, so nothing is compiled for it.
        Assert.Same(target, await DescribedTarget.FromDescriptorSetAsync(target.DescriptorSet, CancellationToken.None));
        Assert.Equal(typeof(Performance.PerformanceStatusRequest), CallData.Parse(target.Find("performance.Monitor/GetPerformance"), """{"clientName": "a"}""").Request(0, "g0c0").GetType());
    }
}
