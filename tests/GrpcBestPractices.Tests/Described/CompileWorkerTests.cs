using LoadEngine.Targets.Described;

namespace GrpcBestPractices.Tests.Described;

/// <summary>
/// The compiler runs in a worker process of its own (LoadEngine.Compiler), never in the process that describes, and the
/// worker exits once idle. Alone in its collection: it watches a worker this test host shares with every other test that
/// describes in-process, which run before it.
/// </summary>
[Collection(CompileWorkerCollection.Name)]
[Trait("Category", "Process")]
public sealed class CompileWorkerTests
{
    [Fact]
    public async Task TheCompilerRunsInAWorkerOfItsOwnThatExitsWhenIdle()
    {
        await DescribedTarget.FromDescriptorSetAsync(CompiledSetLifetimeTests.UniqueSet(), CancellationToken.None);
        var worker = CSharpCompiler.WorkerProcessId;

        // Roslyn never loads into this process: its code and heap stay with the worker.
        Assert.DoesNotContain(AppDomain.CurrentDomain.GetAssemblies(), assembly => assembly.GetName().Name!.StartsWith("Microsoft.CodeAnalysis", StringComparison.Ordinal));
        Assert.NotNull(worker);
        var deadline = DateTime.UtcNow.AddSeconds(90);
        while (IsRunning(worker.Value) && DateTime.UtcNow < deadline)
        {
            await Task.Delay(250);
        }

        Assert.False(IsRunning(worker.Value), $"the compile worker {worker} is still running long after its last compile");
    }

    private static bool IsRunning(int processId)
    {
        try
        {
            using var process = System.Diagnostics.Process.GetProcessById(processId);
            return !process.HasExited;
        }
        catch (ArgumentException)
        {
            return false;
        }
    }
}

[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class CompileWorkerCollection
{
    public const string Name = "The compile worker, alone";
}
