namespace GrpcBestPractices.Tests.Fakes;

/// <summary>A plan's called part changed as the tests need it: a described call, its descriptor set, a workload's settings.</summary>
public static class PlanParts
{
    public static RunPlan Calling(this RunPlan plan, string call, string? data = null, string? target = null) =>
        plan with { Called = new MethodCall { Target = target, Call = call, Data = data } };

    public static RunPlan WithDescriptors(this RunPlan plan, byte[]? set, string? hash) =>
        plan with { Called = plan.Described! with { Descriptors = set, DescriptorSet = hash } };

    public static RunPlan WithWorkload(this RunPlan plan, Func<WorkloadContender, WorkloadContender> change) =>
        plan with { Called = change(plan.Workload!) };
}
